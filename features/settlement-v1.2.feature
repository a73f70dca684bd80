@sim @settlement @v1.2
Feature: Settlement in protocol v1.2: a slash pays the slash amount, and the whole bid goes back to the bidder
  In protocol v1.2 (upstream cef4fb66, 3b59d35d; upstream-head-delta §2.4, §2.5, §2.7) the winner opens its
  commitment, which escrows the bid from the bidder's deposit toward that provider. When the oracle slashes it,
  ProviderRegistry.slash takes the slash amount plus its penalty fee (slash amount × feePercent / 1e18) from the
  provider's stake (FundsSlashed: the total) and pays the slash amount to the bidder; BidderRegistry.unlockFunds then
  sends the whole escrowed bid to the bidder's account (FundsUnlocked: the bid amount). A bid that names no slash
  amount has the bid's amount as its slash amount. Pinned v1.1 paid the bidder the decayed bid plus the slash amount
  instead (settlement.feature). No interface document covers v1.2: the amounts rest on upstream's v1.2.5 contracts
  (ProviderRegistryV2.sol, BidderRegistry.sol) and are tagged @upstream.

  Background:
    Given the target's nodes answer
    And the bidder has 10 ETH deposited for the next L1 blocks, B and B+1
    And provider 1's application accepts every bid, dispatching at D
    And provider 1's builder omits the bundles it committed to

  @upstream
  Scenario: a broken commitment costs the provider the slash amount and its fee; the bidder gets both back
    When the bidder bids 1 ETH with slash amount 0.1 ETH for L1 block B on a transfer, decaying from D-250 ms to D+750 ms
    Then the bid gets one commitment, from provider 1
    And the commitment is soon stored on the settlement chain by provider 1
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then the oracle soon slashes the commitment
    And ProviderRegistry slashed provider 1 by 100000000000000000 wei plus the penalty fee on it
    And BidderRegistry unlocked 1000000000000000000 wei of the commitment to the bidder

  @upstream
  Scenario: a bid without a slash amount is slashed by its whole amount
    When the bidder bids 0.5 ETH for L1 block B on a transfer, decaying from D-250 ms to D+750 ms
    Then the bid gets one commitment, from provider 1
    And the commitment's slashAmount is "500000000000000000"
    And the commitment is soon stored on the settlement chain by provider 1
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then the oracle soon slashes the commitment
    And ProviderRegistry slashed provider 1 by 500000000000000000 wei plus the penalty fee on it
    And BidderRegistry unlocked 500000000000000000 wei of the commitment to the bidder
