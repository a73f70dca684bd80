@bids @concurrency
Feature: Bids in flight at once each get their own commitments
  One bidder keeps several bids in flight at once (SendBid, POST /v1/bidder/bid): each bid goes to every provider,
  each accepting provider's commitment comes back on that bid's own stream (interface.md §1, §4.1), and each
  provider application reads each bid once and answers it by its digest (§4.4, §4.7). A node that routes a
  commitment or a decision by anything that two overlapping bids share loses or swaps them only when the bids
  overlap, which no one-bid-at-a-time scenario shows.

  The bids of a scenario are sent in rounds: a round's bids are all sent before any is answered, and each provider
  application holds its decisions until the whole round has reached it (or half the decision timeout has passed, at
  most 2 s), then answers them in shuffled order, each accepted bid with a dispatch time of its own. So the bids
  overlap at the provider nodes on every run, and a bid that got its commitments slowly still passes: the bid
  timeout of the target file bounds every wait, nothing else is timed. Every bid has its own transaction hash; all
  are for the same block with the same amount, so nothing but the digest tells them apart.

  Target-file settings: `bidsInFlight` (the in-flight levels, default [8, 128]: "the first" and "the second" level
  below) and `concurrentBids` (bids per level, default 64; a level sends at least one full round, so the 128 level
  sends 128 bids at once). Each bid's commitments are checked against the bid: the
  bid digest the provider's application was shown for that bid (found by the bid's own transaction hash; the digest
  covers the bid's one-off key, which no message shows), signed by the bidder, the amount, block, decay range and
  transaction hashes, the dispatch time the application chose for that bid, and the provider's signature; no
  commitment may come twice or on another bid's stream. A target that loses a tenth of its bids passes 64 of them with a chance below 0.12 % (0.9^64). Upstream's
  nodes (pinned and v1.2.5) lose no bid at 8 or 32 in flight in rounds of 64, but a provider of theirs takes at most
  75 of one bidder's streams at once: one round of 128 bids left 54-58 of them short on every run
  (docs/conformance.md §8, §10).

  Background:
    Given the target's nodes answer
    And the bidder has 1 ETH deposited for a fresh block range

  @spec
  Scenario Outline: bids in flight at once, the <level> in-flight level: each gets one commitment from each accepting provider
    Given provider 1 runs a provider application that answers each round of bids together, accepting every bid, one request per decision
    And provider 2 runs a provider application that answers each round of bids together, accepting every second bid, one request per decision
    When the bidder sends the target's concurrent bids of 1000 wei for $BLOCK, the <level> in-flight level at a time
    Then every bid got one commitment from each provider whose application accepted it, each answering its own bid
    And the applications of providers 1 and 2 received each bid exactly once

    Examples:
      | level  |
      | first  |
      | second |

  @spec
  Scenario: decisions sent for a whole round in one SendProcessedBids request commit the right bids
    The provider application streams its decisions to the node, one message per bid (§4.4): a round's decisions,
    shuffled, in one request.
    Given provider 1 runs a provider application that answers each round of bids together, accepting every bid, one request for the round
    And provider 2 runs a provider application that answers each round of bids together, accepting every second bid, one request for the round
    When the bidder sends the target's concurrent bids of 1000 wei for $BLOCK, the first in-flight level at a time
    Then every bid got one commitment from each provider whose application accepted it, each answering its own bid
    And the applications of providers 1 and 2 received each bid exactly once

  @spec @queries
  Scenario: overlapping bids for the same block with the same amount are listed apart by the queries
    GetBidInfo lists each bid with the commitments attached to it, GetCommitmentInfo each commitment of the provider
    (interface.md §1, §2.5, §2.6): bids that share the block and the amount are still separate bids.
    Given provider 1 runs a provider application that answers each round of bids together, accepting every bid, one request per decision
    And provider 2 runs a provider application that answers each round of bids together, accepting every second bid, one request per decision
    When the bidder sends the target's concurrent bids of 1000 wei for $BLOCK, the first in-flight level at a time
    Then GetBidInfo for the block lists every bid once, with exactly the commitments its stream carried
    And GetCommitmentInfo of providers 1 and 2 for the block lists each of its commitments once

  @upstream
  Scenario: two applications reading one provider's bids share them, each bid going to exactly one
    With several ReceiveBids streams open, upstream's provider node hands each bid to exactly one of them (an
    unbuffered channel that every stream reads: api-behaviour.md §1.7); the interface is silent. Both applications
    decide together, so each round is answered once all of it has reached either.
    Given provider 1 runs 2 provider applications that answer each round of bids together, accepting every bid, one request per decision
    When the bidder sends the target's concurrent bids of 1000 wei for $BLOCK, the first in-flight level at a time
    Then every bid got one commitment from each provider whose application accepted it, each answering its own bid
    And the applications of provider 1 received each bid exactly once
    And each of provider 1's applications received some of the bids

  @upstream
  Scenario: an application that closed its ReceiveBids takes no bids, and the one that came after it gets its share
    Given provider 1 runs 2 provider applications that answer each round of bids together, accepting every bid, one request per decision
    And provider 1's first application closes its ReceiveBids and a new one, deciding with the others, attaches
    When the bidder sends the target's concurrent bids of 1000 wei for $BLOCK, the first in-flight level at a time
    Then every bid got one commitment from each provider whose application accepted it, each answering its own bid
    And the applications of provider 1 received each bid exactly once
    And the closed application received none of the bids
    And each of provider 1's applications received some of the bids

  @upstream @v1.1
  Scenario: bids in flight at once whose sum passes the block's allowance get commitments for exactly the allowance
    A provider node checks a bid against the bidder's per-block allowance (the window's deposit / 10) and deducts it
    before its application sees the bid, giving it back when the bid ends without a commitment (api-behaviour.md
    §2.2 step 4, §4.6). As many bids as the first in-flight level, each a quarter of the allowance, are in flight at
    once: each provider commits to exactly four, never more. A first bid for another block of the window, 1 wei,
    puts the window's allowance in the providers' books before (the first check of a window is its own scenario in
    deposit-allowance.feature).
    Given provider 1 runs a provider application that answers each round of bids together, accepting every bid, one request per decision
    And provider 2 runs a provider application that answers each round of bids together, accepting every bid, one request per decision
    When the bidder sends a bid of 1 wei
    Then bid 1 ends with HTTP 200 and 2 commitments
    When the bidder sends as many bids as the first in-flight level, each of a quarter of $ALLOWANCE, for $BLOCK+1, all at once
    Then providers 1 and 2 each committed to exactly 4 of the bids, $ALLOWANCE in all, and every commitment answers its own bid

  @upstream @sim @v1.2
  Scenario: under load, the provider that lost the block announces each of its commitments exactly once
    Upstream's v1.2 provider node announces other_provider_won_block for each of its stored commitments whose block
    another provider won (upstream-head-delta §1.6; notifications-v1.2.feature has the one-commitment case). Protocol
    v1.1 has no topic that speaks of every commitment without a failure made on purpose. Provider 1 rejects every
    bid and wins the block, so no commitment is opened; provider 2 commits to every bid and announces each one.
    Given the bidder has 1 ETH deposited for the next L1 blocks, B and B+1
    And a subscriber "P2" to provider 2 for topics other_provider_won_block
    And provider 1 runs a provider application that answers each round of bids together, accepting no bid, one request per decision
    And provider 2 runs a provider application that answers each round of bids together, accepting every bid, one request per decision
    When the bidder sends the target's concurrent bids of 1000 wei for L1 block B, the first in-flight level at a time
    Then every bid got one commitment from each provider whose application accepted it, each answering its own bid
    And provider 2's commitments to the bids are soon all stored on the settlement chain
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then subscriber "P2" soon receives other_provider_won_block exactly once for each of provider 2's commitments, with the bidder and the bid's amount

  @upstream @v1.2
  Scenario: bids in flight at once whose sum passes the bidder's balance toward a provider get commitments within it
    Upstream's v1.2 provider node deducts each bid from its cached balance of the bidder toward it before its
    application sees the bid, and gives the amount back when the bid ends without a commitment (upstream-head-delta
    §3.2). What the node lets the bidder bid is found first with single bids its application rejects (to within a
    tenth); then as many bids as the first in-flight level, each two ninths of it, are in flight at once: the
    provider commits to exactly four, never more. Provider 2 runs no application here.
    Given provider 1 runs a provider application that answers each round of bids together, accepting no bid, one request per decision
    When the most provider 1 lets the bidder bid is found with single bids its application rejects
    And provider 1's application answers the next rounds accepting every bid
    And the bidder sends as many bids as the first in-flight level, each of two ninths of what provider 1 lets it bid, for $BLOCK, all at once
    Then provider 1 committed to exactly 4 of the bids, never more than it lets the bidder bid, and every commitment answers its own bid
