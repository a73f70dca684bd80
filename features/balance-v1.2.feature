@balance @v1.2 @sim @bids
Feature: A provider's running balance of a bidder in protocol v1.2, driven to its edge
  In protocol v1.2 a provider node keeps one balance per bidder, for itself only (upstream v1.2.5
  p2p/pkg/depositmanager/deposit.go and its store; upstream-head-delta §3.2):
  - it starts from BidderRegistry.getDepositConsideringWithdrawalRequest(bidder, this provider) at the bidder's first
    bid, or from a BidderDeposited event toward this provider (its newAvailableAmount);
  - a BidderDeposited event toward this provider adds its depositedAmount; one toward another provider is not this
    provider's money;
  - WithdrawalRequested or BidderWithdrawal toward this provider drops it, so while a request is pending the chain
    reads 0 and every bid of the bidder is refused;
  - each bid it passes to its application is taken off; a bid the application rejects is given back;
  - a commitment whose block another provider won is given back once, when the provider announces
    other_provider_won_block; a commitment of a block it won is opened, which takes the amount from the deposit on
    chain, and nothing is given back.
  A bid above the balance gets no commitment from that provider. A provider that counts too much commits money the
  bidder cannot pay; one that counts too little refuses bids with money on deposit. Each scenario drives the balance
  of provider 3 (the provider the other scenarios do not bid with) to exactly what the bidder can pay and checks the
  commitments it allows at the edge: the last wei is committed to, one more is refused.

  Each scenario starts from a known balance: it withdraws what the bidder holds toward provider 3 (a withdrawal
  request, the period, a withdraw), then deposits a known amount; it is skipped when the target's withdrawal period is
  longer than a minute. Every commitment a scenario gets is settled by the end of it (another provider wins its
  block, or provider 3 does and opens it), so that none of them is still reserved when the next one starts (the
  reference also counts its unsettled commitments when it starts a balance: divergences.md "A provider's balance of a
  bidder, when it starts one"). A provider follows the chain's events: after a deposit or a withdrawal request the
  suite gives the providers 3 s to see it before it bids. Every expectation rests on upstream's v1.2.5 behaviour.

  Background:
    Given the target's nodes answer
    And the next L1 blocks are B, B+1, B+2, … and the bidder holds exactly 1000 wei toward provider 3

  @upstream
  Scenario: a provider commits up to the last wei of the deposit toward it, counting neither deposits toward other providers nor a rejected bid
    Given provider 3's application rejects bids of 300 wei and accepts the rest, dispatching at D
    When the bidder has deposited 5000 wei toward provider 1
    And the bidder has deposited 5000 wei toward provider 2
    And the providers have had 3 s to see the deposits
    And the bidder bids 300 wei for L1 block B
    Then provider 3's application received the bid of 300 wei and the bid got no commitment from provider 3
    When the bidder bids 1001 wei for L1 block B
    Then the bid of 1001 wei gets no commitment from provider 3
    When the bidder bids 1000 wei for L1 block B
    Then the bid of 1000 wei gets a commitment from provider 3
    When the bidder bids 1 wei for L1 block B
    Then the bid of 1 wei gets no commitment from provider 3
    When the bidder has deposited 7 wei toward provider 3
    And the providers have had 3 s to see the deposits
    And the bidder bids 8 wei for L1 block B
    Then the bid of 8 wei gets no commitment from provider 3
    When the bidder bids 7 wei for L1 block B
    Then the bid of 7 wei gets a commitment from provider 3
    And the commitments of 1000 and 7 wei are soon stored on the settlement chain by provider 3
    When L1 block B is mined with provider 3 as the winner, then 1 more block
    Then BidderRegistry soon holds 0 wei of the bidder toward provider 3
    When the bidder is sent GET "/v1/bidder/get_all_deposits"
    Then the answer lists exactly the providers BidderRegistry holds a deposit of the bidder toward, each with it

  @upstream @notifications
  Scenario: a bid's amount comes back once when another provider won its block, and not when this provider won it
    Given provider 3's application rejects bids of 300 wei and accepts the rest, dispatching at D
    And a subscriber "P3" to provider 3 for topics other_provider_won_block
    When the bidder bids 600 wei for L1 block B
    And the bidder bids 400 wei for L1 block B
    And the bidder bids 1 wei for L1 block B
    Then the bid of 600 wei gets a commitment from provider 3
    And the bid of 400 wei gets a commitment from provider 3
    And the bid of 1 wei gets no commitment from provider 3
    And the commitments of 600 and 400 wei are soon stored on the settlement chain by provider 3
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then subscriber "P3" soon receives other_provider_won_block for the commitments of 600 and 400 wei
    When the bidder bids 1000 wei for L1 block B+2
    Then the bid of 1000 wei gets a commitment from provider 3
    When the bidder bids 2 wei for L1 block B+2
    Then the bid of 2 wei gets no commitment from provider 3
    And the commitment of 1000 wei is soon stored on the settlement chain by provider 3
    When L1 block B+2 is mined with provider 3 as the winner, then 1 more block
    Then BidderRegistry soon holds 0 wei of the bidder toward provider 3
    When the bidder bids 3 wei for L1 block B+4
    Then the bid of 3 wei gets no commitment from provider 3

  @upstream @deposits
  Scenario: a pending withdrawal request stops a provider's commitments, and get_all_deposits still lists the deposit
    The provider holds a balance of the bidder from the deposit's event; the request drops it, and the chain reads
    0 while the request is pending. (No commitment of provider 3 is open here: upstream v1.2.5 ends its provider's
    deposit bookkeeping when it is to give back a bid for which it holds no balance, upstream-head-delta §3.2, §6.)
    Given provider 3's application rejects bids of 300 wei and accepts the rest, dispatching at D
    When the bidder requests withdrawals from provider 3
    And the providers have had 3 s to see the withdrawal request
    And the bidder bids 200 wei for L1 block B
    Then the bid of 200 wei gets no commitment from provider 3
    When the bidder is sent GET "/v1/bidder/get_all_deposits"
    Then the answer lists exactly the providers BidderRegistry holds a deposit of the bidder toward, each with it
