@bids @bid-options @v1.2
Feature: Bid options: carried with the bid, signed in its digest, echoed on every commitment
  In protocol v1.2 a bid may carry options (bidOptions: a list of options, today a position constraint), sent on
  the p2p wire as the bytes of their protobuf encoding, hashed into the bid digest as an 11th word
  keccak256(bidOptions) with `,bytes bidOptions` added to the type string, echoed on each streamed commitment (the
  request's object, or null), and shown to the provider application with the bidder's address. An empty
  slash_amount means the bid's amount. No interface document covers v1.2: expectations rest on upstream's v1.2.5
  behaviour (p2p/pkg/preconfirmation/encryptor/encryptor.go and its test, p2p/pkg/rpc/bidder/service.go,
  PreconfManager.getBidHash; upstream-head-delta §1.2, §1.4, §1.5, §2.6) and are tagged @upstream.

  Placeholders as in bidding.feature: $BLOCK, $DECAY_START, $DECAY_END.

  @upstream
  Scenario Outline: the suite's bid digest reproduces upstream's vector (<case>)
    Given the bid of upstream's digest test vector, with bid options <options>
    Then its protocol <version> bid digest is <digest>

    Examples:
      | case                        | options | version | digest                                                           |
      | v1.1, no options field      | none    | v1.1    | 8d1f669e1d55329ba0dc133fba063c06c8ae146b8e815732f9951930c807ff7f |
      | upstream's 0x1234           | 0x1234  | v1.2    | 63fc79776bb6995561cf5850551f6abf99471e5130bd3785feff90285f7dda26 |
      | no options: keccak256("")   | 0x      | v1.2    | abfb28441e35ddbe17a41f3d306127fb6049dcc46a3ebbc9c68719f370dc2784 |

  @upstream
  Scenario Outline: the target's PreconfManager hashes a bid with options <options> as the suite does
    Given the bid of upstream's digest test vector, with bid options <options>
    Then the target's PreconfManager.getBidHash of it equals the suite's bid digest in the target's domain

    Examples:
      | options |
      | 0x1234  |
      | 0x      |

  @upstream
  Scenario: a bid with a position constraint gets commitments that echo its options
    Given the target's nodes answer
    And the bidder has 1 ETH deposited for a fresh block range
    And provider 1 runs a provider application that accepts every bid
    When the bidder sends the bid:
      """
      {"txHashes": ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"], "amount": "3001",
       "blockNumber": "$BLOCK", "decayStartTimestamp": "$DECAY_START", "decayEndTimestamp": "$DECAY_END",
       "bidOptions": {"options": [{"positionConstraint": {"anchor": "ANCHOR_TOP", "basis": "BASIS_PERCENTILE", "value": 10}}]}}
      """
    Then the bid stream ends with HTTP 200 and 1 commitment
    And every commitment is well-formed
    And every commitment has bidOptions {"options": [{"positionConstraint": {"anchor": "ANCHOR_TOP", "basis": "BASIS_PERCENTILE", "value": 10}}]}
    And provider 1's application received the bid with bidOptions {"options": [{"positionConstraint": {"anchor": "ANCHOR_TOP", "basis": "BASIS_PERCENTILE", "value": 10}}]}

  @upstream
  Scenario: a bid without options gets commitments with bidOptions null, and its slash amount is the bid's amount
    Given the target's nodes answer
    And the bidder has 1 ETH deposited for a fresh block range
    And provider 1 runs a provider application that accepts every bid
    When the bidder sends the bid:
      """
      {"txHashes": ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"], "amount": "3002",
       "blockNumber": "$BLOCK", "decayStartTimestamp": "$DECAY_START", "decayEndTimestamp": "$DECAY_END"}
      """
    Then the bid stream ends with HTTP 200 and 1 commitment
    And every commitment has bidOptions null
    And every commitment has slashAmount "3002"
    And provider 1's application received the bid with slashAmount "3002"

  @upstream
  Scenario: the provider application sees the bidder's address on each bid, EIP-55 with 0x
    Given the target's nodes answer
    And the bidder has 1 ETH deposited for a fresh block range
    And provider 1 runs a provider application that accepts every bid
    When the bidder sends a bid of 3003 wei
    Then the bid stream ends with HTTP 200 and 1 commitment
    And provider 1's application was shown the bidder's address on the bid, EIP-55 with 0x
