@bids @crash-safety
Feature: Nothing a node acknowledged is lost when it is killed
  A commitment a bidder node streamed to its client, or a provider node gave, is in that node's store: killed with
  SIGKILL right after and started again on its data, the node still lists it (GetBidInfo, GetCommitmentInfo).
  Needs the control API's kill route (capability sim-kill: POST /sim/v1/nodes/{name}/kill kills the node's process
  and starts it again).

  Background:
    Given the target's nodes answer
    And the bidder has 1 ETH deposited for a fresh block range

  @upstream @sim-kill
  Scenario: commitments streamed just before a SIGKILL are all listed after the restart
    Given provider 1 runs a provider application that accepts every bid
    And provider 2 runs a provider application that accepts every bid
    When the bidder sends 3 bids of 5101 to 5103 wei, one after another
    Then every bid of the scenario ended with HTTP 200 and 2 commitments
    When the bidder's node is killed with SIGKILL and restarted through the control API
    Then the bidder lists every commitment the scenario's bids got
    When provider 1's node is killed with SIGKILL and restarted through the control API
    Then provider 1 lists every commitment it gave in this scenario

  @upstream @sim-kill
  Scenario: a commitment the bidder streamed survives a SIGKILL right after the write
    The bidder records a commitment when it receives it, before it streams it on (api-behaviour §2.1 step 4): a kill
    that lands right after the write loses nothing the client saw, however soon after the node meant to store it.
    Given provider 1 runs a provider application that accepts every bid
    And provider 2 runs a provider application that accepts every bid
    When the bidder's node is set through the control API to be killed with SIGKILL right after it streams its next commitment
    And the bidder sends a bid of 5201 wei
    Then the bidder's client received a commitment before the stream broke
    When the bidder's node is soon restarted on its data
    Then the bidder lists every commitment the scenario's bids got

  @intended @sim-kill
  Scenario: a commitment a provider gave survives a SIGKILL right after its answer
    Divergence: A provider's answer before its record
    Upstream's provider writes the commitment to the bidder first and tracks it after sending the store transaction
    (api-behaviour §2.2): a kill in between leaves the bidder with a commitment the provider never lists or stores.
    Given provider 1 runs a provider application that accepts every bid
    And provider 2 runs a provider application that accepts every bid
    When provider 1's node is set through the control API to be killed with SIGKILL right after it next answers a bid with a commitment
    And the bidder sends a bid of 5202 wei
    Then the bidder's client received a commitment before the stream broke
    When provider 1's node is soon restarted on its data
    Then provider 1 lists every commitment it gave in this scenario

  @upstream @sim-kill @v1.1
  Scenario: a provider killed with SIGKILL still counts the allowance it committed for a block
    A provider node keeps what is left of each block's allowance in its store (api-behaviour §4.6: the remaining
    allowance of a bidder's block, bbs/<window>/<bidder>/<block>): started again on its data, it does not commit the
    same allowance twice.
    Given provider 1 runs a provider application that accepts every bid
    When the bidder sends the bid:
      """
      {"txHashes": ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"], "amount": "$ALLOWANCE",
       "blockNumber": "$BLOCK+2", "decayStartTimestamp": "$DECAY_START", "decayEndTimestamp": "$DECAY_END"}
      """
    Then the bid stream ends with HTTP 200 and 1 commitment
    When provider 1's node is killed with SIGKILL and restarted through the control API
    And provider 1 runs a provider application that accepts every bid
    And the bidder sends bids of 1 wei for block $BLOCK+3, a new one every 500 ms, until provider 1 commits to one (at most 30 s)
    And the bidder sends the bid:
      """
      {"txHashes": ["71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"], "amount": "1",
       "blockNumber": "$BLOCK+2", "decayStartTimestamp": "$DECAY_START", "decayEndTimestamp": "$DECAY_END"}
      """
    Then the bid stream ends with HTTP 200 and no commitments
