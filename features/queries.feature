@queries
Feature: Querying commitments, stake and rewards
  The bidder lists the bids it sent that got commitments (GetBidInfo, GET /v1/bidder/get_bid_info); each provider
  lists the commitments it made (GetCommitmentInfo, GET /v1/provider/get_commitment_info). Both take the query
  parameters block_number (or blockNumber), page and limit, and group the commitments by L1 block.

  Decided divergences from upstream (docs/divergences.md): block groups sort numerically ascending (upstream sorts
  the decimal text, so 100000 came before 99999); the block filter is an exact match (upstream's is a text prefix,
  so 12 also gave 120…) and paging applies with it; a page counts commitments; the default limit is 50 for bid info
  and 100 for commitment info; a negative page or limit, or a limit above 1000, is refused with InvalidArgument;
  `revertableTxnHashes` is [] when a bid has none (upstream answers [""]).

  Levels: the listings and their defaults are the interface's (§2.5, §2.6, §4.5, §4.6, §8); paging bounds, the
  exact block filter and the numeric order are the intended behaviour where upstream has defects (each scenario
  names its entry of docs/divergences.md); stake and reward operations are upstream's.

  Blocks named by capital letters are fresh blocks far ahead of the L1 head, chosen per scenario; `{X}` in a query
  stands for block X. Providers 1 and 2 run applications that accept every bid, so each bid gets two commitments.

  Background:
    Given the target's nodes answer

  # ------------------------------------------------------------------------------------------------ grouping and order

  @intended
  Scenario: bid info sorts blocks numerically and bids highest first, each bid with its providers' commitments
    Divergence: Get*Info block order
    Given providers 1 and 2 run applications that accept every bid
    And fresh blocks X and Y on either side of a decimal digit boundary, with a deposit
    When the bidder bids 3000, 1000 and 2000 wei for block Y
    And the bidder bids 500 and 700 wei for block X
    Then every page of the bidder's bid info lists blocks in ascending numeric order, block X before block Y
    And the bidder's bid info for block Y lists the bids of 3000, 2000 and 1000 wei in that order, each with the commitments of providers 1 and 2
    And the bidder's bid info for block X lists the bids of 700 and 500 wei in that order, each with the commitments of providers 1 and 2
    And every page of provider 1's commitment info lists blocks in ascending numeric order, block X before block Y
    And provider 1's commitment info for block Y lists the commitments of 3000, 2000 and 1000 wei in that order

  @upstream
  Scenario: bid info and commitment info describe the bids and commitments exactly
    Given providers 1 and 2 run applications that accept every bid
    And a fresh block B with a deposit
    When the bidder bids 4000 wei for block B with a reverting transaction hash
    And the bidder bids 2500 wei for block B with a reverting transaction hash
    Then the bidder's bid info for block B describes each bid sent with every field, as the SendBid commitments did
    And the commitment info of providers 1 and 2 for block B describes each commitment with every field

  @intended
  Scenario Outline: the block filter is an exact match (<key>)
    Divergence: Get*Info block filter
    Given providers 1 and 2 run applications that accept every bid
    And fresh blocks P and Q where the digits of P begin those of Q, with deposits
    When the bidder bids 1500 wei for block P
    And the bidder bids 1600 wei for block Q
    When I ask the bidder for its bid info with "<key>={P}"
    Then the bid info lists exactly:
      | block | bid  | commitments |
      | P     | 1500 | 2           |
    When I ask provider 2 for its commitment info with "<key>={P}"
    Then the commitment info lists exactly:
      | block | amount |
      | P     | 1500   |

    Examples:
      | key          |
      | block_number |
      | blockNumber  |

  @intended
  Scenario: a bid without reverting hashes is listed with revertableTxnHashes []
    Divergence: `revertingTxHashes` / `revertableTxnHashes` when none were given
    Given providers 1 and 2 run applications that accept every bid
    And a fresh block B with a deposit
    When the bidder bids 4100 wei for block B
    Then the bidder's bid info for block B describes each bid sent with every field, as the SendBid commitments did
    And the commitment info of providers 1 and 2 for block B describes each commitment with every field

  @upstream
  Scenario: a block without commitments gives empty lists
    Given a fresh block E
    When I ask the bidder for its bid info with "block_number={E}"
    Then the body is the JSON '{"blockBidInfo":[]}'
    When I ask provider 1 for its commitment info with "blockNumber={E}"
    Then the body is the JSON '{"commitments":[]}'

  @upstream
  Scenario: block_number=0 is no block filter
    A block number of 0 is the protobuf default of an absent field: both nodes list every block for it.
    Given providers 1 and 2 run applications that accept every bid
    And a fresh block B with a deposit
    When the bidder bids 1700 wei for block B
    Then the bidder's bid info with "block_number=0&limit=3" is the one with "limit=3", and lists commitments
    And provider 1's commitment info with "block_number=0&limit=3" is the one with "limit=3", and lists commitments

  # ------------------------------------------------------------------------------------------------ paging

  @intended
  Scenario: paging counts commitments, with the block filter
    Divergence: Get*Info block filter
    Given providers 1 and 2 run applications that accept every bid
    And a fresh block B with a deposit
    When the bidder bids 5000, 4000, 3000, 2000 and 1000 wei for block B
    And I ask the bidder for its bid info with "block_number={B}&limit=4"
    Then the bid info lists exactly:
      | block | bid  | commitments |
      | B     | 5000 | 2           |
      | B     | 4000 | 2           |
    When I ask the bidder for its bid info with "block_number={B}&limit=3&page=1"
    Then the bid info lists exactly:
      | block | bid  | commitments |
      | B     | 4000 | 1           |
      | B     | 3000 | 2           |
    When I ask the bidder for its bid info with "block_number={B}&limit=4&page=2"
    Then the bid info lists exactly:
      | block | bid  | commitments |
      | B     | 1000 | 2           |
    When I ask the bidder for its bid info with "block_number={B}&limit=4&page=3"
    Then the body is the JSON '{"blockBidInfo":[]}'
    When I ask provider 1 for its commitment info with "block_number={B}&limit=2&page=1"
    Then the commitment info lists exactly:
      | block | amount |
      | B     | 3000   |
      | B     | 2000   |
    When I ask provider 1 for its commitment info with "block_number={B}&limit=2&page=2"
    Then the commitment info lists exactly:
      | block | amount |
      | B     | 1000   |
    When I ask provider 1 for its commitment info with "block_number={B}&limit=2&page=3"
    Then the body is the JSON '{"commitments":[]}'
    When I ask provider 1 for its commitment info with "block_number={B}&limit=0"
    Then the commitment info lists 5 commitments

  @spec
  Scenario: default page sizes are 50 commitments for bid info and 100 for commitment info
    Divergence: Get*Info paging
    The interface gives both defaults (§4.5, §4.6, §8); upstream pages 100 by default and ignores paging when a block
    is named, so it fails here for a documented defect.
    Given providers 1 and 2 run applications that accept every bid
    And a fresh block D with a deposit
    When the bidder sends 101 bids of 1000 wei for block D
    And I ask the bidder for its bid info with "block_number={D}"
    Then the bid info lists 50 commitments
    When I ask the bidder for its bid info with "block_number={D}&page=4"
    Then the bid info lists 2 commitments
    When I ask provider 2 for its commitment info with "block_number={D}"
    Then the commitment info lists 100 commitments
    When I ask provider 2 for its commitment info with "block_number={D}&page=1"
    Then the commitment info lists 1 commitments

  @upstream
  Scenario Outline: <case> is refused with InvalidArgument
    When I send GET "<path>" to the <node>
    Then the query is refused with HTTP 400, code 3 and the message "<message>"

    Examples:
      | case                        | node       | path                                                | message                                                                  |
      | a non-numeric page          | bidder     | /v1/bidder/get_bid_info?page=abc                    | parsing field "page": strconv.ParseInt: parsing "abc": invalid syntax    |
      | an int32 overflow           | bidder     | /v1/bidder/get_bid_info?limit=2147483648            | parsing field "limit": strconv.ParseInt: parsing "2147483648": value out of range |
      | a non-numeric blockNumber   | bidder     | /v1/bidder/get_bid_info?blockNumber=x1              | parsing field "block_number": strconv.ParseInt: parsing "x1": invalid syntax |
      | a repeated limit            | bidder     | /v1/bidder/get_bid_info?limit=1&limit=2             | too many values for field "limit": 1, 2                                  |
      | a non-numeric limit         | provider 1 | /v1/provider/get_commitment_info?limit=ten          | parsing field "limit": strconv.ParseInt: parsing "ten": invalid syntax   |
      | a non-numeric block_number  | provider 2 | /v1/provider/get_commitment_info?block_number=1.5   | parsing field "block_number": strconv.ParseInt: parsing "1.5": invalid syntax |

  @intended
  Scenario Outline: <case> is refused with InvalidArgument
    Divergence: Get*Info paging errors
    When I send GET "<path>" to the <node>
    Then the query is refused with HTTP 400, code 3 and the message "<message>"

    Examples:
      | case                        | node       | path                                                | message                                                                  |
      | a negative page             | bidder     | /v1/bidder/get_bid_info?page=-1                     | page must be a non-negative integer, got -1                              |
      | a limit above 1000          | bidder     | /v1/bidder/get_bid_info?limit=1001                  | limit must be between 0 and 1000, got 1001                               |
      | a negative page             | provider 1 | /v1/provider/get_commitment_info?page=-2            | page must be a non-negative integer, got -2                              |
      | a limit above 1000          | provider 1 | /v1/provider/get_commitment_info?limit=100000       | limit must be between 0 and 1000, got 100000                             |

    # A negative limit crashes upstream's node (a slice with a negative capacity): run last, after everything else.
    @may-crash
    Examples:
      | case                        | node       | path                                                | message                                                                  |
      | a negative limit            | bidder     | /v1/bidder/get_bid_info?limit=-5                    | limit must be between 0 and 1000, got -5                                 |
      | a negative limit            | provider 1 | /v1/provider/get_commitment_info?limit=-3           | limit must be between 0 and 1000, got -3                                 |

  # ------------------------------------------------------------------------------------------------ stake and rewards

  @upstream
  Scenario: a provider's stake, the minimum stake, and adding stake
    When I send GET "/v1/provider/get_min_stake" to the provider 1
    Then the stake answer is ProviderRegistry's minimum stake with no BLS keys
    When I send GET "/v1/provider/get_stake" to the provider 1
    Then the stake answer is provider 1's stake and BLS keys in ProviderRegistry
    Given provider 1's stake in ProviderRegistry is noted
    When I send POST "/v1/provider/stake/1000000000000000000" to the provider 1
    Then the stake answer is 1000000000000000000 wei with no BLS keys
    And ProviderRegistry holds the noted stake plus 1000000000000000000 wei for provider 1
    When I send GET "/v1/provider/get_stake" to the provider 1
    Then the stake answer is provider 1's stake and BLS keys in ProviderRegistry

  @upstream
  Scenario Outline: a stake request with <case> is refused
    Given provider 1's stake in ProviderRegistry is noted
    When I send POST "<path>" to the provider 1
    Then the query is refused with HTTP 400, code 3 and the message "<message>"
    And ProviderRegistry holds the noted stake plus 0 wei for provider 1

    Examples:
      | case                 | path                                                  | message                                                                                                                                             |
      | amount 0             | /v1/provider/stake/0                                  | validate stake request: validation error:\n - amount: amount must be a valid integer. [amount]                                                      |
      | a leading zero       | /v1/provider/stake/0100                               | validate stake request: validation error:\n - amount: amount must be a valid integer. [amount]                                                      |
      | a short BLS key      | /v1/provider/stake/1?bls_public_keys=abcd             | validate stake request: validation error:\n - bls_public_keys: bls_public_key must be a valid 48-byte hex string, with optional 0x prefix. [bls_public_key] |

  @intended
  Scenario: withdrawing stake without an unstake request fails on-chain
    Divergence: Chain failures
    When I send POST "/v1/provider/withdraw_stake" to the provider 1
    Then the query is refused with HTTP 400, code 9 and the message "waiting for receipt: transaction failed: NoUnstakeRequest(sender={PROVIDER 1}): there is no unstake request; call unstake first, then withdraw_stake after the withdrawal delay"

  @upstream
  Scenario: a provider asks to unstake through its API: ProviderRegistry records the request and keeps the stake
    Given provider 3 of the target may be unstaked
    And provider 3's stake in ProviderRegistry is noted
    When I send POST "/v1/provider/unstake" to the provider 3
    Then the body is the JSON '{}'
    And ProviderRegistry recorded an unstake request of provider 3 in this scenario
    And ProviderRegistry holds the noted stake plus 0 wei for provider 3
    When I send GET "/v1/provider/get_stake" to the provider 3
    Then the stake answer is provider 3's stake and BLS keys in ProviderRegistry

  @intended
  Scenario: a provider's reward is BidderRegistry's providerAmount; withdrawing it leaves 0
    Divergence: `claim_slashed_funds`, `withdraw_provider_reward` with nothing owed
    Given provider 2's reward in BidderRegistry is noted
    When I send GET "/v1/provider/get_provider_reward" to the provider 2
    Then the reward answer is the noted reward
    When I send POST "/v1/provider/withdraw_provider_reward" to the provider 2
    Then the reward answer is the noted reward
    And BidderRegistry holds no reward for provider 2
    When I send GET "/v1/provider/get_provider_reward" to the provider 2
    Then the reward answer is 0
    Given provider 2's transaction count is noted
    When I send POST "/v1/provider/withdraw_provider_reward" to the provider 2
    Then the reward answer is 0
    And provider 2 sent no transaction

  @intended
  Scenario: claiming slashed funds answers the amount as a bare JSON string, then "0"
    Divergence: `claim_slashed_funds`, `withdraw_provider_reward` with nothing owed
    Given the slashed funds owed to the bidder are noted
    When I send POST "/v1/bidder/claim_slashed_funds" to the bidder
    Then the body is the JSON string of the noted slashed funds
    And ProviderRegistry owes the bidder nothing
    Given the bidder's transaction count is noted
    When I send POST "/v1/bidder/claim_slashed_funds" to the bidder
    Then the body is the JSON '"0"'
    And the bidder sent no transaction

  # ------------------------------------------------------------------------------------------------ documentation

  @spec @openapi
  Scenario: the OpenAPI documents list the query, stake and reward operations
    When I send GET "/swagger/json" to the bidder
    Then the OpenAPI document lists these operations:
      | method | path                              |
      | GET    | /v1/bidder/get_bid_info           |
      | POST   | /v1/bidder/claim_slashed_funds    |
    When I send GET "/swagger/json" to the provider 1
    Then the OpenAPI document lists these operations:
      | method | path                                  |
      | GET    | /v1/provider/get_commitment_info      |
      | POST   | /v1/provider/stake/{amount}           |
      | GET    | /v1/provider/get_stake                |
      | GET    | /v1/provider/get_min_stake            |
      | POST   | /v1/provider/unstake                  |
      | POST   | /v1/provider/withdraw_stake           |
      | GET    | /v1/provider/get_provider_reward      |
      | POST   | /v1/provider/withdraw_provider_reward |
