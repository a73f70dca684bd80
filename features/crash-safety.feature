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
