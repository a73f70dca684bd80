@sim @settlement @v1.1
Feature: Settlement: the winner of a block is paid for the commitments it honoured and slashed for those it broke
  A provider commits to a bid for L1 block B (the next block) and stores the commitment on the settlement chain.
  Once the oracle has recorded B's winner, the winning provider opens its commitments for B. The oracle then checks B:
  the committed transactions must all be there, contiguous, in the committed order, and each one must succeed or be
  allowed to revert. If so, the provider is rewarded; otherwise it is slashed (crypto-contracts §3, §4).
  A commitment whose provider lost the block is never opened.

  Amounts follow crypto-contracts §2, with the fee percents read from the contracts (2 % protocol fee on rewards,
  5 % penalty on slashes):
  - reward: the provider is credited decayed − fee in BidderRegistry.providerAmount, and bid − decayed is pushed back
    to the bidder's account;
  - slash: decayed + slashAmount is taken from the provider's stake for the bidder, plus a penalty of 5 % of decayed,
    and the whole locked bid is unlocked back to the bidder.
  Every amount is given in wei, is checked against the chain, and is recomputed from the §2 formulas. The chain
  amounts are read around the one settlement-chain block that holds the oracle's settlement transaction.

  Levels: the settlement rules are upstream's contracts (crypto-contracts §2–§4) and the nodes' records upstream's
  tracker (api-behaviour §3); that a record never moves back is the intended behaviour (upstream's updates are
  unordered), checked in its own scenario.

  The nodes' records (api-behaviour §3) go from pending to stored to opened to settled or slashed, and never back.
  Details read "opened by provider" on both nodes. The payment is the decayed bid (FundsRewarded). On the bidder, the
  refund is the unlocked bid (FundsRetrieved).

  D is the dispatch time that the provider application answers: about now. The decay window of each bid is set
  around D, so that the residual is exact.

  Background:
    Given the target's nodes answer
    And the bidder has 10 ETH deposited for the next L1 blocks, B and B+1
    And provider 1's application accepts every bid, dispatching at D

  @upstream
  Scenario: an honest winner's commitment is stored, opened, settled and paid (the worked example of §2)
    When the bidder bids 1 ETH with slash amount 0.1 ETH for L1 block B on a transfer, decaying from D-250 ms to D+750 ms
    Then the bid gets one commitment, from provider 1
    And the commitment is soon stored on the settlement chain by provider 1
    And the bidder soon reports the commitment with status "stored", details "", payment "" and refund ""
    And provider 1 soon reports the commitment with status "stored", details "", payment "" and refund ""
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then BlockTracker records provider 1 as the winner of L1 block B
    And L1 block B holds the committed transactions in order and contiguous
    And the committed transaction succeeded in L1 block B
    And the commitment is soon rewarded on chain
    And the commitment was opened on chain for provider 1 with the terms of the bid
    And the settlement moved exactly these amounts, in wei:
      | decayed bid (FundsRewarded)           | 750000000000000000 |
      | provider reward (providerAmount)      | 735000000000000000 |
      | protocol fee                          | 15000000000000000  |
      | bidder refund (pushed to its account) | 250000000000000000 |
    And provider 1's reward answer includes what the commitment paid it, and withdrawing it pays it out

  @intended
  Scenario Outline: the winner's record of a commitment ends <status>, with the payment of the settlement
    Divergence: Status updates
    Upstream's updates are unordered: the result of the winner's own open transaction can arrive after the oracle's
    settlement and overwrite it with "opened". That is a race inside the node: a record left "opened" with the
    settlement's payment is reported as an observation (reports/conformance-result.json, "observations").
    Given provider 1's builder mode is "<mode>"
    When the bidder bids 1 ETH with slash amount 0.1 ETH for L1 block B on a transfer, decaying from D-250 ms to D+750 ms
    Then the bid gets one commitment, from provider 1
    And the commitment is soon stored on the settlement chain by provider 1
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then the commitment is soon <outcome> on chain
    And provider 1 soon reports the commitment with status "<status>", details "opened by provider", payment "<payment>" and refund "", or leaves it "opened" with them (a race, reported)

    Examples:
      | mode   | outcome  | status  | payment            |
      | honest | rewarded | settled | 750000000000000000 |
      | omit   | slashed  | slashed |                    |

  @intended
  Scenario Outline: the bidder's record of a commitment its provider opened ends <status>, with the payment or refund
    Divergence: A failed open by the bidder because the provider opened first
    Upstream's bidder may try to open a commitment the provider already opened; the chain refuses it, and upstream
    records that refusal as a failed commitment. Its unordered updates can also leave the record "opened" after the
    settlement (Status updates), a race inside the node reported as an observation.
    Given provider 1's builder mode is "<mode>"
    When the bidder bids 1 ETH with slash amount 0.1 ETH for L1 block B on a transfer, decaying from D-250 ms to D+750 ms
    Then the bid gets one commitment, from provider 1
    And the commitment is soon stored on the settlement chain by provider 1
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then the commitment is soon <outcome> on chain
    And the bidder soon reports the commitment with status "<status>", details "opened by provider", payment "<payment>" and refund "<refund>", or leaves it "opened" with them (a race, reported)

    Examples:
      | mode   | outcome  | status  | payment            | refund              |
      | honest | rewarded | settled | 750000000000000000 |                     |
      | omit   | slashed  | slashed |                    | 1000000000000000000 |

  @intended
  Scenario: the statuses the nodes report for a commitment only move forward
    Divergence: Status updates
    Upstream's unordered updates can move a settled record back to "opened", a race inside the node: that one move
    back is reported as an observation; any other fails the scenario.
    When the bidder bids 0.5 ETH for L1 block B on a transfer, decaying from D-250 ms to D+750 ms
    Then the bid gets one commitment, from provider 1
    And the commitment is soon stored on the settlement chain by provider 1
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then the commitment is soon rewarded on chain
    And provider 1 soon reports the commitment with status "settled", details "opened by provider", payment "375000000000000000" and refund "", or leaves it "opened" with them (a race, reported)
    And the statuses the bidder and provider 1 reported for the commitment never went backwards but to "opened" after the settlement (a race, reported)

  @intended @sim-kill
  Scenario: a settled commitment stays settled when its nodes restart and replay the chain's events
    Divergence: Status updates
    When the bidder bids 0.3 ETH for L1 block B on a transfer, decaying from D-250 ms to D+750 ms
    Then the bid gets one commitment, from provider 1
    And the commitment is soon stored on the settlement chain by provider 1
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then the commitment is soon rewarded on chain
    And the bidder soon reports the commitment with status "settled", details "opened by provider", payment "225000000000000000" and refund ""
    And provider 1 soon reports the commitment with status "settled", details "opened by provider", payment "225000000000000000" and refund ""
    When the bidder's node is killed with SIGKILL and restarted through the control API, handling the settlement chain's last 2000 blocks' events again
    And provider 1's node is killed with SIGKILL and restarted through the control API, handling the settlement chain's last 2000 blocks' events again
    And 2 more L1 blocks are mined
    Then the bidder reports the commitment with status "settled", details "opened by provider", payment "225000000000000000" and refund ""
    And provider 1 reports the commitment with status "settled", details "opened by provider", payment "225000000000000000" and refund ""
    And the statuses the bidder and provider 1 reported for the commitment never went backwards

  @upstream
  Scenario: a winner that commits but does not include is slashed (the worked example of §2)
    Given provider 1's builder omits the bundles it committed to
    When the bidder bids 1 ETH with slash amount 0.1 ETH for L1 block B on a transfer, decaying from D-250 ms to D+750 ms
    Then the bid gets one commitment, from provider 1
    And the commitment is soon stored on the settlement chain by provider 1
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then BlockTracker records provider 1 as the winner of L1 block B
    And L1 block B holds the committed transactions nowhere
    And the commitment is soon slashed on chain
    And the commitment was opened on chain for provider 1 with the terms of the bid
    And the settlement moved exactly these amounts, in wei:
      | bidder portion (decayed bid + slash amount) | 850000000000000000  |
      | penalty                                     | 37500000000000000   |
      | taken from the provider's stake             | 887500000000000000  |
      | bid unlocked to the bidder (FundsRetrieved) | 1000000000000000000 |
      | bidder's account received                   | 1850000000000000000 |

  @upstream
  Scenario: a commitment for a block another provider won is never opened, and stays stored
    When the bidder bids 0.01 ETH for L1 block B on a transfer, decaying from D+1000 ms to D+2000 ms
    And the bidder bids 0.02 ETH for L1 block B+1 on a transfer, decaying from D+1000 ms to D+2000 ms
    Then the bid for L1 block B gets one commitment, from provider 1
    And the bid for L1 block B+1 gets one commitment, from provider 1
    And the commitment for L1 block B is soon stored on the settlement chain by provider 1
    And the commitment for L1 block B+1 is soon stored on the settlement chain by provider 1
    When L1 block B is mined with provider 2 as the winner and B+1 with provider 1, then 1 more block
    Then BlockTracker records provider 2 as the winner of L1 block B
    And BlockTracker records provider 1 as the winner of L1 block B+1
    # Provider 1 opens its commitment for B+1, which shows it has handled the winners of B and B+1.
    And the commitment for L1 block B+1 is soon rewarded on chain
    And the commitment for L1 block B was never opened on chain
    And provider 1 reports the commitment for L1 block B with status "stored", details "", payment "" and refund ""
    And the bidder reports the commitment for L1 block B with status "stored", details "", payment "" and refund ""

  @upstream
  Scenario Outline: a committed transaction that reverts on L1 is <outcome> when it is <listed>
    When the bidder bids 0.1 ETH for L1 block B on a failing contract creation<allowed>, decaying from D+1000 ms to D+2000 ms
    Then the bid gets one commitment, from provider 1
    And the commitment is soon stored on the settlement chain by provider 1
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then L1 block B holds the committed transactions in order and contiguous
    And the committed transaction failed in L1 block B
    And the commitment is soon <outcome> on chain
    And the settlement moved exactly these amounts, in wei:
      | <row 1> | <wei 1> |
      | <row 2> | <wei 2> |
      | <row 3> | <wei 3> |

    Examples:
      | listed                          | allowed           | outcome  | status  | payment           | refund            | row 1                            | wei 1             | row 2                                       | wei 2             | row 3                           | wei 3             |
      | in revertingTxHashes            | , allowed to revert | rewarded | settled | 100000000000000000 |                   | provider reward (providerAmount) | 98000000000000000 | bidder refund (pushed to its account)       | 0                 | protocol fee                    | 2000000000000000  |
      | not in revertingTxHashes        |                   | slashed  | slashed |                   | 100000000000000000 | penalty                          | 5000000000000000  | bid unlocked to the bidder (FundsRetrieved) | 100000000000000000 | taken from the provider's stake | 105000000000000000 |

  @upstream
  Scenario Outline: a two-transaction bundle included <layout> is <outcome>
    Given provider 1's builder mode is "<mode>"
    When the bidder bids 0.1 ETH for L1 block B on two transfers, decaying from D+1000 ms to D+2000 ms
    Then the bid gets one commitment, from provider 1
    And the commitment is soon stored on the settlement chain by provider 1
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then L1 block B holds the committed transactions <layout>
    And the committed transactions succeeded in L1 block B
    And the commitment is soon <outcome> on chain
    And the settlement moved exactly these amounts, in wei:
      | <row 1> | <wei 1> |
      | <row 2> | <wei 2> |

    Examples:
      | mode    | layout                                 | outcome  | status  | payment            | refund             | row 1                            | wei 1             | row 2                           | wei 2              |
      | honest  | in order and contiguous                | rewarded | settled | 100000000000000000 |                    | provider reward (providerAmount) | 98000000000000000 | protocol fee                    | 2000000000000000   |
      | reverse | in reverse order                       | slashed  | slashed |                    | 100000000000000000 | bidder's account received        | 200000000000000000 | taken from the provider's stake | 105000000000000000 |
      | gap     | with another transaction between them  | slashed  | slashed |                    | 100000000000000000 | bidder's account received        | 200000000000000000 | taken from the provider's stake | 105000000000000000 |
