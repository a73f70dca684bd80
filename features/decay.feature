@sim @decay @v1.1
Feature: Decay: a provider earns the part of the bid that is left at its dispatch time
  The oracle computes the residual share of a bid from the bid's decay window [start, end) and the dispatch time
  that the provider chose (crypto-contracts §2, all times in Unix ms, integer maths with floor division, 1e18 = 100 %):
    start >= end or dispatch >= end  ->  0
    dispatch < start                 ->  1e18
    otherwise                        ->  floor((end − dispatch) · 1e18 / (end − start))
  On a reward, the decayed bid floor(bid · residual / 1e18) is emitted by FundsRewarded and recorded as the
  commitment's payment. The provider is credited decayed − floor(decayed · 2 % ), and bid − decayed goes back to the
  bidder's account.

  D is the dispatch time that the provider application answers: about now, because the store transaction needs
  dispatch > its block time − 500 ms. Each decay window is placed around D, so each row below is exact. The amounts
  are written out in wei. The steps also recompute them from §2 with the fee percent read from BidderRegistry, so a
  shared bug cannot make the check pass.

  Background:
    Given the target's nodes answer
    And the bidder has 10 ETH deposited for the next L1 blocks, B and B+1
    And provider 1's application accepts every bid, dispatching at D

  @upstream
  Scenario Outline: dispatched <when>, the provider earns <share> of the bid
    When the bidder bids <bid> for L1 block B on a transfer, decaying from D<start> ms to D<end> ms
    Then the bid gets one commitment, from provider 1
    And the commitment is soon stored on the settlement chain by provider 1
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then the commitment is soon rewarded on chain
    And the settlement moved exactly these amounts, in wei:
      | decayed bid (FundsRewarded)           | <decayed> |
      | provider reward (providerAmount)      | <reward>  |
      | protocol fee                          | <fee>     |
      | bidder refund (pushed to its account) | <refund>  |

    Examples: a 1 ETH bid decaying over 1000 ms
      | when                       | share | bid                      | start | end   | decayed             | reward             | fee               | refund              |
      | before the decay starts    | all   | 1 ETH                    | +100  | +1100 | 1000000000000000000 | 980000000000000000 | 20000000000000000 | 0                   |
      | as the decay starts        | all   | 1 ETH                    | +0    | +1000 | 1000000000000000000 | 980000000000000000 | 20000000000000000 | 0                   |
      | 25 % into the decay        | 75 %  | 1 ETH                    | -250  | +750  | 750000000000000000  | 735000000000000000 | 15000000000000000 | 250000000000000000  |
      | 50 % into the decay        | 50 %  | 1 ETH                    | -500  | +500  | 500000000000000000  | 490000000000000000 | 10000000000000000 | 500000000000000000  |
      | 75 % into the decay        | 25 %  | 1 ETH                    | -750  | +250  | 250000000000000000  | 245000000000000000 | 5000000000000000  | 750000000000000000  |
      | as the decay ends          | none  | 1 ETH                    | -1000 | +0    | 0                   | 0                  | 0                 | 1000000000000000000 |
      | after the decay ended      | none  | 1 ETH                    | -1500 | -500  | 0                   | 0                  | 0                 | 1000000000000000000 |

    Examples: floor division at every step (residual 666666666666666666)
      | when                       | share | bid                      | start | end   | decayed             | reward             | fee               | refund              |
      | a third into the decay     | 2/3   | 999999999999999999 wei   | -1000 | +2000 | 666666666666666665  | 653333333333333332 | 13333333333333333 | 333333333333333334  |

  @upstream
  Scenario Outline: a decay window that does not end after it starts (<case>) cannot be opened, so nothing is paid
    When the bidder bids 1 ETH for L1 block B on a transfer, decaying from D<start> ms to D<end> ms
    Then the bid gets one commitment, from provider 1
    And the commitment is soon stored on the settlement chain by provider 1
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then provider 1 soon reports the commitment with status "failed" and details starting with "failed to open commitment: "
    # The bidder opens as a fallback once two more winners are recorded; the contract refuses it too.
    When 2 more L1 blocks are mined
    Then the bidder soon reports the commitment with status "failed" and details starting with "failed to open commitment: "
    And the commitment was never opened on chain
    And no funds moved for the commitment

    Examples:
      | case                | start | end  |
      | start after the end | +500  | -500 |
      | start equal to end  | +0    | +0   |
