@bids @bidding
Feature: Bids become signed commitments
  The bidder node signs each bid (SendBid, POST /v1/bidder/bid) and sends it to every connected provider. Each
  provider node hands the bid to its provider application (ReceiveBids) and waits for the decision
  (SendProcessedBids); an acceptance comes back as a commitment signed by the provider, streamed to the bidder as
  one `{"result":…}` line. The stream ends when every provider has answered, refused or timed out.

  Commitment fields are checked against interface.md §2.2 and api-behaviour.md §1.1: int64 values as decimal
  strings, digests, signatures and addresses as lower-case hex without 0x, signatures of 65 bytes with v = 27/28
  that recover (secp256k1, low S) over the digests they sign.

  Levels: the flow (a bid reaches every connected provider, an acceptance comes back as a commitment) is the
  interface's (§1, §4.1, §4.7); field formats, timeouts and the raw-transaction rules are upstream's.

  Placeholders in bodies and expected values: $BLOCK (a block of a fresh block range), $DECAY_START, $DECAY_END,
  $RAW_n (a signed raw transaction, 0x-prefixed), $RAW_n_NO_0X (the same, upper case without 0x) and
  $HASH_OF_RAW_n (its keccak256, lower case without 0x).

  Background:
    Given the target's nodes answer
    And the bidder has 1 ETH deposited for a fresh block range

  @upstream
  Scenario: two accepting providers give two verifiable commitments
    Given provider 1 runs a provider application that accepts every bid
    And provider 2 runs a provider application that accepts every bid
    When the bidder sends the bid:
      """
      {
        "txHashes": ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7",
                     "71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"],
        "amount": "1000",
        "blockNumber": "$BLOCK",
        "decayStartTimestamp": "$DECAY_START",
        "decayEndTimestamp": "$DECAY_END"
      }
      """
    Then the bid stream ends with HTTP 200 and 2 commitments
    And the commitments come from providers 1 and 2
    And every commitment is well-formed
    And every commitment is signed by the provider it names
    And every commitment carries the bidder's signature of the bid the provider applications received
    And every commitment echoes the bid's amount, block number and decay timestamps
    And every commitment has txHashes ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7", "71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"]
    And the slash amount of every commitment is what a bid without one gets in the target's protocol
    And every commitment carries the dispatch timestamp its provider application chose
    And the two commitments have different commitment digests

  @upstream @http
  Scenario: the bid stream is served as application/json
    Given provider 1 runs a provider application that accepts every bid
    When the bidder sends the bid:
      """
      {"txHashes": ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"], "amount": "1001",
       "blockNumber": "$BLOCK", "decayStartTimestamp": "$DECAY_START", "decayEndTimestamp": "$DECAY_END"}
      """
    Then the bid stream ends with HTTP 200 and 1 commitment
    And the stream of the bid had the content type "application/json"
    And provider 1's ReceiveBids stream had the content type "application/json"

  @intended
  Scenario: a bid without reverting hashes gets commitments with revertingTxHashes []
    Divergence: `revertingTxHashes` / `revertableTxnHashes` when none were given
    Given provider 1 runs a provider application that accepts every bid
    When the bidder sends a bid of 1100 wei
    Then the bid stream ends with HTTP 200 and 1 commitment
    And every commitment has revertingTxHashes []

  @upstream
  Scenario: reverting hashes and the slash amount are carried into the commitment
    Given provider 1 runs a provider application that accepts every bid
    When the bidder sends the bid:
      """
      {
        "txHashes": ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"],
        "revertingTxHashes": ["0x71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"],
        "amount": "2500",
        "blockNumber": $BLOCK,
        "decayStartTimestamp": $DECAY_START,
        "decayEndTimestamp": $DECAY_END,
        "slashAmount": "12345"
      }
      """
    Then the bid stream ends with HTTP 200 and 1 commitment
    And the commitment comes from provider 1
    And every commitment is well-formed
    And every commitment is signed by the provider it names
    And every commitment carries the bidder's signature of the bid the provider applications received
    And every commitment echoes the bid's amount, block number and decay timestamps
    And every commitment has revertingTxHashes ["71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"]
    And every commitment has slashAmount "12345"
    And provider 1's application received the bid with revertingTxHashes ["71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"]
    And provider 1's application received the bid with slashAmount "12345"

  @spec
  Scenario: providers that reject give no commitment
    Given provider 1 runs a provider application that rejects every bid
    And provider 2 runs a provider application that rejects every bid
    When the bidder sends a bid of 1000 wei
    Then the bid stream ends with HTTP 200 and no commitments
    And provider 1's application received 1 bid
    And provider 2's application received 1 bid

  @spec
  Scenario: with one provider accepting and one rejecting, exactly the acceptance comes back
    Given provider 1 runs a provider application that accepts every bid
    And provider 2 runs a provider application that rejects every bid
    When the bidder sends a bid of 1000 wei
    Then the bid stream ends with HTTP 200 and 1 commitment
    And the commitment comes from provider 1
    And every commitment is signed by the provider it names
    And provider 2's application received 1 bid

  @upstream
  Scenario: a provider that never answers does not hold the stream past the bid timeout
    Given provider 1 runs a provider application that accepts every bid
    And provider 2 runs a provider application that never answers
    When the bidder sends a bid of 1000 wei
    Then the bid stream ends with HTTP 200 and 1 commitment
    And the commitment comes from provider 1
    And the first commitment arrived within 2000 ms
    And the stream ended no later than the bid timeout plus 2000 ms
    And provider 2's application received 1 bid

  @upstream
  Scenario: a bid of raw transactions commits to their hashes, in order
    Given provider 1 runs a provider application that accepts every bid
    And provider 2 runs a provider application that accepts every bid
    When the bidder sends the bid:
      """
      {
        "rawTransactions": ["$RAW_1_NO_0X", "$RAW_2_NO_0X", "$RAW_3_NO_0X"],
        "amount": "3000",
        "blockNumber": "$BLOCK",
        "decayStartTimestamp": "$DECAY_START",
        "decayEndTimestamp": "$DECAY_END"
      }
      """
    Then the bid stream ends with HTTP 200 and 2 commitments
    And every commitment is well-formed
    And every commitment is signed by the provider it names
    And every commitment has txHashes ["$HASH_OF_RAW_1", "$HASH_OF_RAW_2", "$HASH_OF_RAW_3"]
    And provider 1's application received the bid with txHashes ["$HASH_OF_RAW_1", "$HASH_OF_RAW_2", "$HASH_OF_RAW_3"]
    And provider 1's application received the raw transactions $RAW_1, $RAW_2, $RAW_3 in the order of the bid's txHashes
    And provider 2's application received the raw transactions $RAW_1, $RAW_2, $RAW_3 in the order of the bid's txHashes

  @intended
  Scenario: raw transactions sent with 0x reach the provider application without it, and are committed to
    Divergence: ReceiveBids raw transactions
    Given provider 1 runs a provider application that accepts every bid
    When the bidder sends the bid:
      """
      {
        "rawTransactions": ["$RAW_4", "$RAW_5"],
        "amount": "3100",
        "blockNumber": "$BLOCK",
        "decayStartTimestamp": "$DECAY_START",
        "decayEndTimestamp": "$DECAY_END"
      }
      """
    Then the bid stream ends with HTTP 200 and 1 commitment
    And every commitment has txHashes ["$HASH_OF_RAW_4", "$HASH_OF_RAW_5"]
    And provider 1's application received the bid with rawTransactions ["$RAW_4_BARE", "$RAW_5_BARE"]

  @upstream
  Scenario Outline: tx hashes given <form> are committed to without 0x
    Given provider 1 runs a provider application that accepts every bid
    When the bidder sends the bid:
      """
      {
        "txHashes": ["<hash 1>", "<hash 2>"],
        "revertingTxHashes": ["<hash 2>"],
        "amount": "1000",
        "blockNumber": "$BLOCK",
        "decayStartTimestamp": "$DECAY_START",
        "decayEndTimestamp": "$DECAY_END"
      }
      """
    Then the bid stream ends with HTTP 200 and 1 commitment
    And every commitment is signed by the provider it names
    And every commitment has txHashes ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7", "71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"]
    And every commitment has revertingTxHashes ["71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"]
    And provider 1's application received the bid with txHashes ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7", "71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"]

    Examples:
      | form                  | hash 1                                                             | hash 2                                                             |
      | with 0x               | 0xfe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7 | 0x71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8 |

  @intended
  Scenario Outline: tx hashes given <form> are committed to in lower case
    Divergence: Transaction hashes
    Given provider 1 runs a provider application that accepts every bid
    When the bidder sends the bid:
      """
      {
        "txHashes": ["<hash 1>", "<hash 2>"],
        "revertingTxHashes": ["<hash 2>"],
        "amount": "1000",
        "blockNumber": "$BLOCK",
        "decayStartTimestamp": "$DECAY_START",
        "decayEndTimestamp": "$DECAY_END"
      }
      """
    Then the bid stream ends with HTTP 200 and 1 commitment
    And every commitment is signed by the provider it names
    And every commitment has txHashes ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7", "71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"]
    And every commitment has revertingTxHashes ["71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"]
    And provider 1's application received the bid with txHashes ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7", "71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"]

    Examples:
      | form                  | hash 1                                                             | hash 2                                                             |
      | in upper case         | FE4CB47DB3630551BEEDFBD02A71ECC69FD59758E2BA699606E2D5C74284FFA7   | 71C1348F2D7FF7E814F9C3617983703435EA7446DE420AEAC488BF1DE35737E8   |
      | in mixed case with 0x | 0xFe4cB47dB3630551bEEdfBD02a71ecc69fD59758e2ba699606E2D5C74284fFA7 | 0x71c1348F2d7FF7e814F9c3617983703435EA7446de420aeac488BF1de35737e8 |

  @upstream
  Scenario: the dispatch timestamp each provider application chose comes back in its commitment
    Given provider 1 runs a provider application that accepts with dispatch time decay start + 1500 ms
    And provider 2 runs a provider application that accepts with dispatch time decay start + 2750 ms
    When the bidder sends a bid of 1000 wei
    Then the bid stream ends with HTTP 200 and 2 commitments
    And the commitment of provider 1 has dispatchTimestamp "$DECAY_START+1500"
    And the commitment of provider 2 has dispatchTimestamp "$DECAY_START+2750"
    And every commitment is signed by the provider it names
