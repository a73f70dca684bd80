@deposits @v1.2
Feature: Bidder deposits per provider, and withdrawals after a request and its period
  In protocol v1.2 a bidder's money sits per (bidder, provider) in BidderRegistry: Deposit puts an amount toward one
  provider, DepositEvenly splits a total over several, GetDeposit and GetAllDeposits read them back, and a
  withdrawal is two steps: RequestWithdrawals, then Withdraw once the withdrawal period (in settlement-chain
  milliseconds) has passed. There is no interface document for v1.2: every expectation rests on upstream's v1.2.5
  behaviour (p2p/rpc/bidderapi/v1/bidderapi.proto, p2p/pkg/rpc/bidder/service.go,
  contracts/contracts/core/BidderRegistry.sol; upstream-head-delta §1.1–§1.3, §2.2) and is tagged @upstream.

  Addresses in answers: Deposit and GetAllDeposits answer EIP-55 with 0x; DepositEvenly, RequestWithdrawals and
  Withdraw answer lower-case hex without 0x; GetDeposit echoes the request's spelling. Lists built from a map
  (GetAllDeposits, GetValidProviders) come in any order.

  The withdrawal scenarios use provider 3 (the provider the suite may take out of the registry): while a request
  is pending toward it, BidderRegistry refuses deposits toward it and its node refuses the bidder's bids, so the
  other scenarios' deposits leave it out.

  Placeholders: {provider N} is provider N's EIP-55 address, {provider N bare} the same in lower case without 0x.

  Background:
    Given the target's nodes answer

  @upstream
  Scenario: a deposit toward a provider answers this deposit's amount and the provider, and BidderRegistry holds it
    Given the bidder's deposit toward provider 1 is noted
    When the bidder is sent POST "/v1/bidder/deposit/1000000000000000000?provider={provider 1}"
    Then the answer is exactly {"amount":"1000000000000000000","provider":"{provider 1}"}
    And BidderRegistry holds the noted deposit toward provider 1 plus 1000000000000000000 wei

  @upstream
  Scenario: a second deposit answers its own amount, not the running total
    Given the bidder has deposited 5 wei toward provider 2
    When the bidder is sent POST "/v1/bidder/deposit/7?provider={provider 2 bare}"
    Then the answer is exactly {"amount":"7","provider":"{provider 2}"}

  @upstream
  Scenario: get_deposit answers the available amount toward a provider and echoes the provider as written
    Given the bidder has deposited 11 wei toward provider 1
    When the bidder is sent GET "/v1/bidder/get_deposit?provider={provider 1 bare}"
    Then the answer's provider is "{provider 1 bare}" and its amount is BidderRegistry's deposit toward provider 1

  @upstream
  Scenario: deposit_evenly splits the total, the last provider also gets the remainder
    Given the bidder's deposits toward providers 1 and 2 are noted
    When the bidder is sent POST "/v1/bidder/deposit_evenly?total_amount=1001&providers={provider 1}&providers={provider 2}"
    Then the answer is exactly {"providers":["{provider 1 bare}","{provider 2 bare}"],"amounts":["500","501"]}
    And BidderRegistry holds the noted deposit toward provider 1 plus 500 wei
    And BidderRegistry holds the noted deposit toward provider 2 plus 501 wei

  @upstream
  Scenario: get_all_deposits lists every provider the bidder holds a deposit toward, and the bidder's balance
    Given the bidder has deposited 3 wei toward provider 1
    And the bidder has deposited 3 wei toward provider 2
    When the bidder is sent GET "/v1/bidder/get_all_deposits"
    Then the answer lists, in any order, BidderRegistry's deposits toward providers 1 and 2 with their EIP-55 addresses
    And the answer's bidderBalance is a decimal string of wei

  @upstream
  Scenario: get_valid_providers lists the registered providers with enough stake and a BLS key
    When the bidder is sent GET "/v1/bidder/get_valid_providers"
    Then the answer's validProviders include providers 1 and 2, in any order, each as an EIP-55 address

  @upstream
  Scenario Outline: a deposit request with <case> is refused
    When the bidder is sent POST "<path>"
    Then the request fails with HTTP <http>, code <code> and the message "<message>"

    Examples:
      | case                      | path                                                                  | http | code | message                                                                                                                                                                        |
      | no provider               | /v1/bidder/deposit/1                                                  | 400  | 3    | validating deposit request: validation error:\n - provider: provider must be a valid Ethereum address. [provider]                                                              |
      | a provider that is no hex | /v1/bidder/deposit/1?provider=0xnothex                                | 400  | 3    | validating deposit request: validation error:\n - provider: provider must be a valid Ethereum address. [provider]                                                              |
      | amount 0 and no provider  | /v1/bidder/deposit/0                                                  | 400  | 3    | validating deposit request: validation error:\n - amount: amount must be a valid integer. [amount]\n - provider: provider must be a valid Ethereum address. [provider]         |
      | amount 01                 | /v1/bidder/deposit/01?provider={provider 1}                           | 400  | 3    | validating deposit request: validation error:\n - amount: amount must be a valid integer. [amount]                                                                             |
      | the zero address          | /v1/bidder/deposit/1?provider=0x0000000000000000000000000000000000000000 | 400  | 3    | provider address is zero address                                                                                                                                            |

  @upstream
  Scenario Outline: a deposit_evenly request with <case> is refused
    When the bidder is sent POST "<path>"
    Then the request fails with HTTP <http>, code <code> and the message "<message>"

    Examples:
      | case                   | path                                                             | http | code | message                                                                                                                                    |
      | no providers           | /v1/bidder/deposit_evenly?total_amount=10                        | 400  | 3    | at least one provider is required                                                                                                          |
      | total_amount 0         | /v1/bidder/deposit_evenly?total_amount=0&providers={provider 1}  | 400  | 3    | validating deposit evenly request: validation error:\n - total_amount: total_amount must be a valid integer. [total_amount]                 |
      | a provider that is bad | /v1/bidder/deposit_evenly?total_amount=10&providers=0x12         | 400  | 3    | validating deposit evenly request: validation error:\n - providers: providers must be a valid array of Ethereum addresses. [providers]      |

  @upstream
  Scenario: get_deposit without a provider is refused
    When the bidder is sent GET "/v1/bidder/get_deposit"
    Then the request fails with HTTP 400, code 3 and the message "validating get deposit request: validation error:\n - provider: provider must be a valid Ethereum address. [provider]"

  @upstream @http
  Scenario: the window calls of protocol v1.1 are gone
    When the bidder is sent GET "/v1/bidder/auto_deposit_status"
    Then the request fails with HTTP 404, code 5 and the message "Not Found"

  @upstream
  Scenario Outline: a <call> request listing no provider is refused
    When the bidder is called with POST "<path>" and the body '{"providers":[]}'
    Then the request fails with HTTP 400, code 3 and the message "at least one provider is required"

    Examples:
      | call                | path                            |
      | request_withdrawals | /v1/bidder/request_withdrawals  |
      | withdraw            | /v1/bidder/withdraw             |

  @upstream @withdrawal
  Scenario: a withdrawal request answers the available amount and is recorded on chain
    Given the bidder holds a deposit toward provider 3 and no withdrawal request
    When the bidder requests withdrawals from provider 3
    Then the answer lists provider 3 bare with BidderRegistry's deposit toward provider 3
    And BidderRegistry records a withdrawal request of the bidder toward provider 3

  @upstream @withdrawal
  Scenario: a withdraw before the withdrawal period has passed fails on chain and keeps the deposit
    Given the bidder holds a deposit toward provider 3 with a withdrawal request
    And the bidder's deposit toward provider 3 is noted
    When the bidder withdraws from provider 3
    Then the request fails with code 13 and a message starting with "waiting for receipt: transaction failed: WithdrawalPeriodNotElapsed("
    And BidderRegistry holds the noted deposit toward provider 3 plus 0 wei

  @upstream @withdrawal
  Scenario: a withdraw after the withdrawal period pays the available amount out, and deposits can follow
    Upstream deploys a period of 10 minutes; the scenario is skipped when the target's period is longer than a minute.
    Given the target's withdrawal period is at most 60000 ms
    And the bidder holds a deposit toward provider 3 with a withdrawal request
    And the bidder's deposit toward provider 3 is noted
    When the withdrawal period has passed on the settlement chain
    And the bidder withdraws from provider 3
    Then the answer lists provider 3 bare with the noted deposit toward provider 3
    And BidderRegistry holds nothing toward provider 3 and no withdrawal request
    When the bidder is sent POST "/v1/bidder/deposit/9?provider={provider 3}"
    Then the answer is exactly {"amount":"9","provider":"{provider 3}"}
