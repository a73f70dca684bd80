@deposits @bids @deposit-allowance @v1.1
Feature: A bidder's deposit caps what it may bid for one block
  A window's deposit is spread over its 10 blocks: a provider node takes a bid for block b only while the bids it
  holds for b stay within the bidder's per-block allowance, the deposit of b's window divided by 10
  (BidderRegistry.maxBidPerBlock; api-behaviour.md §2.2 step 4, §4.6). A bid beyond it is refused by the provider
  node itself: the provider application never sees it and the bidder gets no commitment.

  The provider applications here are the scenario itself, reading ReceiveBids on both provider nodes and
  rejecting every bid it receives (SendProcessedBids), so the allowance is never used up. The bids are for the
  first block of a fresh window far ahead (provider nodes do not check the block number): the deposit there is
  exactly D, and the scenario leaves nothing in the windows just ahead of L1 that other features bid in.

  Background:
    Given auto-deposit is not running
    And provider 1 and provider 2 are receiving bids

  @upstream
  Scenario: a bid above a tenth of the window's deposit for one block is refused by the provider nodes
    The first bid the provider nodes check in the window is for another of its blocks, C: a first bid sent before a
    provider node has handled the deposit's event is the race of the next scenario.
    Given block B is the first block of a fresh window
    And block C is the block after B
    And the bidder has deposited 1 ETH into the window of block B, its total there noted as D
    And a bid of D/10 for block C reaches provider 1 and provider 2, which reject it
    Then a bid of D/10 for block B reaches provider 1 and provider 2, which reject it
    When the bidder bids D/10 + 1 wei for block B
    Then the stream of that bid ends with HTTP 200 and no commitment line
    And no provider received that bid, as the next bid each provider receives is a following bid of D/10 for block B

  @intended
  Scenario: the first bid after a deposit into a fresh window is held to a tenth of it too (a race, reported)
    Divergence: Provider's first allowance check of a block
    Upstream checks the first bid of a window against the whole deposit when its provider node has not yet handled
    the deposit's event (it polls the settlement chain every 500 ms), and keeps what is left of it as the block's
    allowance. Whether the bid arrives first is timing the suite cannot set from outside, so the verdict rests on
    what holds either way (the bid gets no commitment) and each provider application that received the bid is
    reported as an observation of the race (reports/conformance-result.json, "observations").
    Then 3 times, a bid of a tenth of a fresh window's deposit + 1 wei for its first block, sent right after the deposit, ends with HTTP 200 and no commitment, any provider that received it reported
