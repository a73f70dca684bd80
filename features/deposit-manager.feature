@deposits @deposit-manager @v1.2
Feature: The deposit manager keeps the bidder's deposits toward providers at their targets
  In protocol v1.2 the bidder's account can delegate to the DepositManager contract with an EIP-7702 transaction
  (EnableDepositManager; DisableDepositManager clears the delegation). SetTargetDeposits records a target per
  provider in the account's own storage and tops each deposit up to its target at once from the account's ETH above
  its minimum balance; after that, BidderRegistry tops the deposit toward a provider up again each time a commitment
  of the bidder is opened against that provider. The node has no timer of its own. There is no interface document
  for v1.2: every expectation rests on upstream's v1.2.5 behaviour (p2p/pkg/rpc/bidder/service.go,
  contracts/contracts/core/DepositManager.sol, BidderRegistry.openBid; upstream-head-delta §1.3, §2.2, §2.3, §3.1)
  and is tagged @upstream.

  grpc-gateway answers code 9 (FailedPrecondition) with HTTP 400.

  The suite switches the manager off again at the end of every scenario that switched it on, after setting the
  targets it set back to 0, so that other scenarios find the bidder's deposits as they left them.

  Placeholders: {provider N} is provider N's EIP-55 address, {provider N bare} the same in lower case without 0x.

  Background:
    Given the target's nodes answer

  @upstream
  Scenario: switching the deposit manager on answers success, and the status says it is on
    Given the deposit manager is off
    When the bidder is sent POST "/v1/bidder/enable_deposit_manager"
    Then the answer is exactly {"success":true}
    And the deposit manager status is enabled
    When the bidder is sent POST "/v1/bidder/enable_deposit_manager"
    Then the request fails with HTTP 400, code 9 and the message "EnableDepositManager failed: deposit manager is already enabled"

  @upstream
  Scenario: switching off a deposit manager that is off is refused
    Given the deposit manager is off
    When the bidder is sent POST "/v1/bidder/disable_deposit_manager"
    Then the request fails with HTTP 400, code 9 and the message "DisableDepositManager failed: deposit manager is already disabled"
    And the deposit manager status is disabled

  @upstream
  Scenario: target deposits are refused while the deposit manager is off
    Given the deposit manager is off
    When the bidder is sent POST "/v1/bidder/set_target_deposits" with the body '{"targetDeposits":[{"provider":"{provider 2}","targetDeposit":"1000"}]}'
    Then the request fails with HTTP 400, code 9 and the message "SetTargetDeposits failed: deposit manager is not enabled"

  @upstream
  Scenario: an empty list of target deposits is refused
    Given the deposit manager is on
    When the bidder is sent POST "/v1/bidder/set_target_deposits" with the body '{"targetDeposits":[]}'
    Then the request fails with HTTP 400, code 3 and the message "SetTargetDeposits failed: no target deposits provided"

  @upstream
  Scenario: a target above the deposit is set and the deposit is topped up to it at once
    Given the deposit manager is on
    And the bidder's deposit toward provider 2 is noted
    When the bidder sets a target deposit of the noted deposit plus 1000 wei toward provider 2
    Then the answer sets the target toward provider 2 bare and names provider 2 as topped up, EIP-55
    And BidderRegistry holds the noted deposit toward provider 2 plus 1000 wei
    And the deposit manager status lists the target of the noted deposit plus 1000 wei toward provider 2

  @upstream
  Scenario: a target at or below the deposit is set and tops nothing up
    Given the deposit manager is on
    And the bidder has deposited 1000 wei toward provider 2
    And the bidder's deposit toward provider 2 is noted
    When the bidder sets a target deposit of the noted deposit plus 0 wei toward provider 2
    Then the answer sets the target toward provider 2 bare and names no provider as topped up
    And BidderRegistry holds the noted deposit toward provider 2 plus 0 wei

  @upstream @sim @settlement
  Scenario: a commitment opened against the winner tops the deposit toward it back up to the target
    Given the bidder has 10 ETH deposited for the next L1 blocks, B and B+1
    And the deposit manager is on
    And the bidder's deposit toward provider 1 is noted
    And the bidder has set a target deposit of the noted deposit plus 0 wei toward provider 1
    And provider 1's application accepts every bid, dispatching at D
    When the bidder bids 1 ETH for L1 block B on a transfer, decaying from D-250 ms to D+750 ms
    Then the bid gets one commitment, from provider 1
    And the commitment is soon stored on the settlement chain by provider 1
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then BidderRegistry soon records the commitment's bid as opened
    And BidderRegistry holds the noted deposit toward provider 1 plus 0 wei
