@faults @settlement
Feature: A provider cut off from the settlement chain keeps its commitments, and its records end as the chain says
  A provider node answers the bidder first and stores the commitment on the settlement chain afterwards
  (api-behaviour §2). When the chain cannot be reached for a while, the reference node keeps the commitment pending
  and sends the transaction again until the chain answers: it is stored once the network heals, never "failed" for a
  transient cut (upstream drops it instead: docs/divergences.md, "Store transaction, settlement chain unreachable").
  The cut lasts 12 s, longer than a node's RPC client waits for an answer (10 s here), so that the node sees the
  chain fail and not only slow TCP. Once the provider is back, what it reports follows the chain: cut off again while the block it won is mined and
  settled, it opens the commitment and records the oracle's verdict (the reward) once it can read the chain again
  (api-behaviour §3.3: the open loop, then CommitmentProcessed and FundsRewarded).

  A provider checks a bid against the bidder's deposit, which it reads from the chain when no deposit event told it
  yet (api-behaviour §4.6): cut off before it knows the deposit, it cannot answer. So before the cut provider 1 sees
  a bid of 7 wei for block B, which its application rejects.

  Needs sim-faults with the pseudo-host settlement (the settlement chain's RPC, as the provider's node reaches it:
  POST /sim/v1/network/faults {"hosts":["provider-0","settlement"],"partition":true}) and sim-control for the L1
  blocks. The amounts follow crypto-contracts §2 as in settlement.feature: a 1 ETH bid 25 % into its decay pays
  0.75 ETH. In protocol v1.2 the verdict checked is a slash (settlement-v1.2.feature: the builder omits the
  bundle; upstream-head-delta §2.4, §2.5).

  Background:
    Given the target's nodes answer
    And the bidder has 10 ETH deposited for the next L1 blocks, B and B+1
    And provider 1's application rejects bids of 7 wei and accepts the rest, dispatching at D
    And provider 1 has checked a bid of 7 wei for L1 block B against the bidder's deposit, which its application rejects

  @intended @sim @sim-faults @v1.1
  Scenario: a provider cut off from the settlement chain while it holds a commitment stores it once back, and records the oracle's verdict
    Divergence: Store transaction, settlement chain unreachable
    When the network between provider 1 and the settlement chain is cut
    And the bidder bids 1 ETH with slash amount 0.1 ETH for L1 block B on a transfer, decaying from D-250 ms to D+750 ms
    Then the bid gets one commitment, from provider 1
    When provider 1's record of the commitment is watched from now on
    Then provider 1 reports the commitment with status "pending", details "", payment "" and refund ""
    When the network stays cut for 12 s
    And the network between provider 1 and the settlement chain is healed
    Then the commitment is soon stored on the settlement chain by provider 1
    And provider 1 soon reports the commitment with status "stored", details "", payment "" and refund ""
    When the network between provider 1 and the settlement chain is cut
    And L1 block B is mined with provider 1 as the winner, then 1 more block
    And the network between provider 1 and the settlement chain is healed
    Then the commitment is soon rewarded on chain
    And provider 1 soon reports the commitment with status "settled", details "opened by provider", payment "750000000000000000" and refund ""
    And provider 1 never reported the commitment "failed" on the way

  @intended @sim @sim-faults @v1.2
  Scenario: v1.2: a provider cut off from the settlement chain while it holds a commitment stores it once back, and records the oracle's slash
    Divergence: Store transaction, settlement chain unreachable
    Given provider 1's builder omits the bundles it committed to
    When the network between provider 1 and the settlement chain is cut
    And the bidder bids 1 ETH with slash amount 0.1 ETH for L1 block B on a transfer, decaying from D-250 ms to D+750 ms
    Then the bid gets one commitment, from provider 1
    When provider 1's record of the commitment is watched from now on
    Then provider 1 reports the commitment with status "pending", details "", payment "" and refund ""
    When the network stays cut for 12 s
    And the network between provider 1 and the settlement chain is healed
    Then the commitment is soon stored on the settlement chain by provider 1
    And provider 1 soon reports the commitment with status "stored", details "", payment "" and refund ""
    When the network between provider 1 and the settlement chain is cut
    And L1 block B is mined with provider 1 as the winner, then 1 more block
    And the network between provider 1 and the settlement chain is healed
    Then the oracle soon slashes the commitment
    And provider 1 soon reports the commitment with status "slashed" and details starting with "opened by provider"
    And provider 1 never reported the commitment "failed" on the way
