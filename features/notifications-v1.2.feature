@notifications @v1.2
Feature: Notifications of protocol v1.2: the losing provider's commitment, settlements and payments
  Upstream's v1.2 line adds three topics to the ten of the interface (p2p/pkg/notifications/notifications.go at
  v1.2.5; upstream-head-delta §1.6):
  - other_provider_won_block, from a provider node only: its commitment's block was won by another provider, so the
    commitment is not opened: {"commitmentDigest": bare hex, "bidder": bare hex, "bidAmount": wei as a decimal
    string} (the last two when known);
  - transaction_settled, from any node whose stored commitment the oracle processed:
    {"transaction_hashes": the bid's transaction hashes joined by ",", "is_slashed": bool, "provider": bare hex};
  - transaction_payment, from any node on a payment or refund of a commitment it stored:
    {"transaction_hashes": as above, "payment": wei or "", "refund": wei or ""}.
  A provider's commitment_store_failed also carries the commitment's "bidder" (bare hex) and "bidAmount" (wei as a
  decimal string) in the v1.2 line, beside the interface's commitmentDigest, txnHash and error.
  No interface document covers them: every expectation rests on upstream's v1.2.5 behaviour and is tagged @upstream.

  Background:
    Given the target's nodes answer

  @upstream
  Scenario: the added topics can be subscribed to on the bidder and on a provider
    Given a subscriber "B" to the bidder for topics transaction_settled, transaction_payment
    And a subscriber "P" to provider 2 for topics other_provider_won_block, transaction_settled, transaction_payment
    Then the stream of subscriber "B" was not refused and has no notification yet
    And the stream of subscriber "P" was not refused and has no notification yet

  @upstream @sim
  Scenario: the provider whose commitment's block another provider won announces it, with the bidder and the amount
    Given the bidder has 10 ETH deposited for the next L1 blocks, B and B+1
    And provider 1's application accepts every bid, dispatching at D
    And provider 2's application accepts every bid, dispatching at D
    And a subscriber "P2" to provider 2 for topics other_provider_won_block
    When the bidder bids 1 ETH for L1 block B on a transfer, decaying from D-250 ms to D+750 ms
    And L1 block B is mined with provider 1 as the winner, then 1 more block
    Then subscriber "P2" soon receives other_provider_won_block for provider 2's commitment, with the bidder and 1000000000000000000 wei

  @upstream @sim
  Scenario: an honest winner's commitment is announced settled, not slashed, and its payment announced
    Given the bidder has 10 ETH deposited for the next L1 blocks, B and B+1
    And provider 1's application accepts every bid, dispatching at D
    And a subscriber "B" to the bidder for topics transaction_settled, transaction_payment
    When the bidder bids 1 ETH for L1 block B on a transfer, decaying from D-250 ms to D+750 ms
    Then the bid gets one commitment, from provider 1
    And the commitment is soon stored on the settlement chain by provider 1
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then subscriber "B" soon receives transaction_settled for the commitment, slashed false, provider 1
    And subscriber "B" soon receives transaction_payment for the commitment, with a payment

  @upstream @sim-nodes
  Scenario: a provider whose store transaction fails announces it with the bidder and the amount
    Given a subscriber "P1" to provider 1 for topics commitment_store_failed
    And the bidder has 10 ETH deposited for the next L1 blocks, B and B+1
    And provider 1's application accepts every bid, dispatching at D
    And provider 1's next store transaction is made to fail on chain through the control API
    When the bidder bids 0.5 ETH for L1 block B on two transfers, decaying from D ms to D+1000 ms
    Then the bid gets one commitment, from provider 1
    And subscriber "P1" soon receives commitment_store_failed for the commitment, with the bid's transaction hashes, an error starting with "transaction failed: ", the bidder and 500000000000000000 wei
