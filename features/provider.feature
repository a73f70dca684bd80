@bids @provider-app
Feature: The provider application's side: ReceiveBids and SendProcessedBids
  A provider node hands each bid it will consider to its provider application over ReceiveBids
  (GET /v1/provider/receive_bids; interface.md §2.3, §4.7, api-behaviour.md §1.7) and waits for the decision sent
  to SendProcessedBids (POST /v1/provider/send_processed_bids; §2.4, §4.4, api-behaviour.md §1.4): `bidDigest` as
  base64 of the digest received, `status` STATUS_ACCEPTED or STATUS_REJECTED, `dispatchTimestamp` in ms. A body
  carries one decision or a sequence of them (NDJSON or concatenated); every decision is applied and the call
  answers 200 `{}` (upstream answers 500 "EOF" after applying them; docs/divergences.md). Bids beyond the
  bidder's allowance for their block (deposit / 10) are refused before the application sees them.

  Levels: the decision flow is the interface's (§2.4, §4.4, §4.7); digests in base64, sequences of decisions and
  the handling of unknown digests are upstream's. What SendProcessedBids answers is checked only in the scenarios
  that name their divergence.

  Placeholders: $BLOCK (a block of a fresh block range), $DECAY_START, $ALLOWANCE (the window's deposit / 10),
  $DIGEST_OF_BID_n (the digest of the scenario's nth bid as the application received it, base64).

  Background:
    Given the target's nodes answer
    And the bidder has 1 ETH deposited for a fresh block range

  @upstream
  Scenario: with several applications on one provider node, each bid reaches exactly one of them
    Given provider 1 runs 2 provider applications that accept every bid
    When the bidder sends 6 bids of 1001 to 1006 wei, one after another
    Then each bid ended with HTTP 200 and exactly 1 commitment, from provider 1
    And each bid was received by exactly one of provider 1's applications

  @upstream
  Scenario: ReceiveBids shows the bid with its digest in base64
    Given provider 1 runs a provider application that accepts every bid
    When the bidder sends the bid:
      """
      {"txHashes": ["0xfe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"], "amount": "1234",
       "blockNumber": "$BLOCK", "decayStartTimestamp": "$DECAY_START", "decayEndTimestamp": "$DECAY_END"}
      """
    Then the bid stream ends with HTTP 200 and 1 commitment
    And provider 1's application received the bid with txHashes ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"]
    And provider 1's application received the bid with bidAmount "1234"
    And provider 1's application received the bid with blockNumber "$BLOCK"
    And provider 1's application received the bid with decayStartTimestamp "$DECAY_START"
    And provider 1's application received the bid with decayEndTimestamp "$DECAY_END"
    And provider 1's application received the bid with revertingTxHashes []
    And provider 1's application received the bid with rawTransactions []
    And provider 1's application received the slash amount a bid without one gets in the target's protocol
    And the bid digest provider 1's application received is the base64 of the commitment's receivedBidDigest

  @upstream
  Scenario Outline: decisions for two bids in one request, as <framing>
    Given provider 1 runs a provider application that never answers
    When the bidder starts a bid of 2001 wei
    And the bidder starts a bid of 2002 wei
    And provider 1's application has received 2 bids
    And provider 1's application sends these decisions in one request, as <framing>:
      | bid | status          | dispatchTimestamp |
      | 1   | STATUS_ACCEPTED | $DECAY_START+10   |
      | 2   | STATUS_REJECTED |                   |
    Then bid 1 ends with HTTP 200 and 1 commitment
    And the commitment comes from provider 1
    And every commitment has dispatchTimestamp "$DECAY_START+10"
    And every commitment is signed by the provider it names
    And bid 2 ends with HTTP 200 and no commitments

    Examples:
      | framing           |
      | NDJSON            |
      | concatenated JSON |

  @upstream
  Scenario: decisions for two bids in two requests
    Given provider 1 runs a provider application that never answers
    When the bidder starts a bid of 3001 wei
    And the bidder starts a bid of 3002 wei
    And provider 1's application has received 2 bids
    And provider 1's application sends these decisions, one request each:
      | bid | status          | dispatchTimestamp |
      | 2   | STATUS_ACCEPTED | $DECAY_START+20   |
      | 1   | STATUS_ACCEPTED | $DECAY_START+30   |
    Then bid 1 ends with HTTP 200 and 1 commitment
    And every commitment has dispatchTimestamp "$DECAY_START+30"
    And bid 2 ends with HTTP 200 and 1 commitment
    And every commitment has dispatchTimestamp "$DECAY_START+20"

  @intended @http
  Scenario: the interface's decayDispatchTimestamp spelling sets the dispatch time
    Divergence: `decayDispatchTimestamp`
    Given provider 1 runs a provider application that never answers
    When the bidder starts a bid of 3501 wei
    And provider 1's application has received 1 bid
    And provider 1's application sends the decision body:
      """
      {"bidDigest": "$DIGEST_OF_BID_1", "status": "STATUS_ACCEPTED", "decayDispatchTimestamp": "$DECAY_START+40"}
      """
    Then bid 1 ends with HTTP 200 and 1 commitment
    And every commitment has dispatchTimestamp "$DECAY_START+40"

  @upstream
  Scenario: unknown and repeated digests are ignored
    Given provider 1 runs a provider application that never answers
    When the bidder starts a bid of 4001 wei
    And provider 1's application has received 1 bid
    And provider 1's application sends the decision body:
      """
      {"bidDigest": "q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq80=", "status": "STATUS_ACCEPTED", "dispatchTimestamp": "$DECAY_START"}
      """
    When provider 1's application sends the decision body:
      """
      {"bidDigest": "fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7", "status": "STATUS_REJECTED"}
      """
    When provider 1's application sends the decision body:
      """
      {"bidDigest": "$DIGEST_OF_BID_1", "status": "STATUS_ACCEPTED", "dispatchTimestamp": "$DECAY_START+50"}
      """
    Then bid 1 ends with HTTP 200 and 1 commitment
    And every commitment has dispatchTimestamp "$DECAY_START+50"
    When provider 1's application sends the decision body:
      """
      {"bidDigest": "$DIGEST_OF_BID_1", "status": "STATUS_REJECTED"}
      """
    Then the target's nodes answer

  @intended
  Scenario: SendProcessedBids answers 200 {} once it applied the decisions, known or not
    Divergence: SendProcessedBids reply
    Given provider 1 runs a provider application that never answers
    When the bidder starts a bid of 4001 wei
    And provider 1's application has received 1 bid
    And provider 1's application sends the decision body:
      """
      {"bidDigest": "q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq80=", "status": "STATUS_ACCEPTED", "dispatchTimestamp": "$DECAY_START"}
      """
    Then the decision request is answered with HTTP 200 and the body {}
    When provider 1's application sends the decision body:
      """
      {"bidDigest": "fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7", "status": "STATUS_REJECTED"}
      """
    Then the decision request is answered with HTTP 200 and the body {}
    When provider 1's application sends the decision body:
      """
      {"bidDigest": "$DIGEST_OF_BID_1", "status": "STATUS_ACCEPTED", "dispatchTimestamp": "$DECAY_START+50"}
      """
    Then the decision request is answered with HTTP 200 and the body {}
    And bid 1 ends with HTTP 200 and 1 commitment
    And every commitment has dispatchTimestamp "$DECAY_START+50"
    When provider 1's application sends the decision body:
      """
      {"bidDigest": "$DIGEST_OF_BID_1", "status": "STATUS_REJECTED"}
      """
    Then the decision request is answered with HTTP 200 and the body {}

  @upstream
  Scenario Outline: a decision that cannot be decoded (<case>) is refused with HTTP 400 and code 3
    Given provider 1 runs a provider application that never answers
    When the bidder starts a bid of 5001 wei
    And provider 1's application has received 1 bid
    And provider 1's application sends the decision body:
      """
      <body>
      """
    Then the decision request is refused with HTTP 400, code 3 and the message "<message>"

    Examples:
      | case                        | body                                                                                     | message |
      | a digest that is not base64 | {"bidDigest": "not base64!", "status": 1}                                                | proto: (line 1:15): invalid value for bytes type: "not base64!" |
      | malformed JSON              | {"bidDigest": "$DIGEST_OF_BID_1", "status": 1,,}                                         | invalid character ',' looking for beginning of object key string |

  @intended
  Scenario Outline: a decision with <case> is refused with HTTP 400 and code 3
    Divergence: SendProcessedBids invalid status
    Given provider 1 runs a provider application that never answers
    When the bidder starts a bid of 5001 wei
    And provider 1's application has received 1 bid
    And provider 1's application sends the decision body:
      """
      <body>
      """
    Then the decision request is refused with HTTP 400, code 3 and the message "<message>"

    Examples:
      | case                        | body                                                                                     | message |
      | status 0                    | {"bidDigest": "$DIGEST_OF_BID_1", "status": 0}                                           | validation error:\n - status: value must be in list [1, 2] [enum.in] |
      | no status                   | {"bidDigest": "$DIGEST_OF_BID_1", "dispatchTimestamp": "$DECAY_START"}                    | validation error:\n - status: value must be in list [1, 2] [enum.in] |
      | STATUS_UNSPECIFIED          | {"bidDigest": "$DIGEST_OF_BID_1", "status": "STATUS_UNSPECIFIED"}                        | validation error:\n - status: value must be in list [1, 2] [enum.in] |
      | an undefined status number  | {"bidDigest": "$DIGEST_OF_BID_1", "status": 7}                                           | validation error:\n - status: value must be in list [1, 2] [enum.in]\n - status: value must be one of the defined enum values [enum.defined_only] |

  @upstream
  Scenario: decisions before an invalid one stay applied
    Given provider 1 runs a provider application that never answers
    When the bidder starts a bid of 6001 wei
    And the bidder starts a bid of 6002 wei
    And provider 1's application has received 2 bids
    And provider 1's application sends the decision body:
      """
      {"bidDigest": "$DIGEST_OF_BID_1", "status": "STATUS_ACCEPTED", "dispatchTimestamp": "$DECAY_START+60"}
      {"bidDigest": "$DIGEST_OF_BID_2", "status": 0}
      """
    Then bid 1 ends with HTTP 200 and 1 commitment
    And every commitment has dispatchTimestamp "$DECAY_START+60"

  @intended @v1.1
  Scenario: a bid beyond the bidder's allowance for its block never reaches the provider application
    Divergence: Provider's first allowance check of a block
    Given provider 1 runs a provider application that accepts every bid
    And provider 2 runs a provider application that accepts every bid
    When the bidder sends the bid:
      """
      {"txHashes": ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"], "amount": "$ALLOWANCE+1",
       "blockNumber": "$BLOCK", "decayStartTimestamp": "$DECAY_START", "decayEndTimestamp": "$DECAY_END"}
      """
    Then the bid stream ends with HTTP 200 and no commitments
    And provider 1's application received no bid
    And provider 2's application received no bid
    When the bidder sends the bid:
      """
      {"txHashes": ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"], "amount": "$ALLOWANCE",
       "blockNumber": "$BLOCK+1", "decayStartTimestamp": "$DECAY_START", "decayEndTimestamp": "$DECAY_END"}
      """
    Then the bid stream ends with HTTP 200 and 2 commitments
    And provider 1's application received 1 bid
    And provider 2's application received 1 bid

  @upstream @v1.1
  Scenario: a decision that comes after the decision timeout gets no commitment, and the allowance comes back
    Given the target's decision timeout is at least 1500 ms shorter than its bid timeout
    And provider 1 runs a provider application that accepts 700 ms after the decision timeout
    When the bidder sends the bid:
      """
      {"txHashes": ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"], "amount": "$ALLOWANCE",
       "blockNumber": "$BLOCK+3", "decayStartTimestamp": "$DECAY_START", "decayEndTimestamp": "$DECAY_END"}
      """
    Then the bid stream ends with HTTP 200 and no commitments
    And provider 1's application received 1 bid
    When provider 1's application has answered every bid it received
    And provider 1's application accepts every bid from now on
    And the bidder sends the bid:
      """
      {"txHashes": ["71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"], "amount": "$ALLOWANCE",
       "blockNumber": "$BLOCK+3", "decayStartTimestamp": "$DECAY_START", "decayEndTimestamp": "$DECAY_END"}
      """
    Then the bid stream ends with HTTP 200 and 1 commitment
    And provider 1's application received 2 bids

  @upstream @v1.1
  Scenario: the allowance of a block is used up by the bids committed in it
    Given provider 1 runs a provider application that accepts every bid
    When the bidder sends the bid:
      """
      {"txHashes": ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"], "amount": "$ALLOWANCE",
       "blockNumber": "$BLOCK+2", "decayStartTimestamp": "$DECAY_START", "decayEndTimestamp": "$DECAY_END"}
      """
    Then the bid stream ends with HTTP 200 and 1 commitment
    When the bidder sends the bid:
      """
      {"txHashes": ["71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"], "amount": "1",
       "blockNumber": "$BLOCK+2", "decayStartTimestamp": "$DECAY_START", "decayEndTimestamp": "$DECAY_END"}
      """
    Then the bid stream ends with HTTP 200 and no commitments
    And provider 1's application received 1 bid
