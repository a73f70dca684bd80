@bids @faults
Feature: A bid survives a network fault between the bidder and a provider
  The bidder node sends each bid to every connected provider and waits for each at most the bid timeout; the stream
  closes when every provider has answered, failed or hit the timeout (upstream: api-behaviour.md §1.1 step 3 and
  §2 step 5, "each goroutine is bounded by the bid timeout"). A provider cut off from the bidder on the network
  is such a provider: the bid ends in time with the others' commitments, and once the network heals the same nodes
  (no restart) commit to the next bid again. (The cut bid itself may still reach the provider once the network
  heals, as TCP sends it again: nothing here counts on it either way.) A lossy or narrow link is slower, not
  broken: TCP sends again what was lost, so a provider behind one, or one far away, still commits within the bid
  timeout.

  Needs a control API that cuts and heals the network between two of the target's nodes (or between a node and the
  clients of its APIs, or the settlement chain: the pseudo-hosts clients and settlement) and names each provider's
  outcome of a bid (capability sim-faults: POST and DELETE /sim/v1/network/faults, GET /sim/v1/bids/{digest},
  where the cut provider's is "bidder_timeout"; the reference devnet has it with --network netns, where each node runs on
  a network namespace of its own and a partition is a pair of nftables drop rules). Other targets skip it, and a
  target that cannot make a kind of fault (the control API answers FailedPrecondition) skips that scenario with
  its reason.

  Background:
    Given the target's nodes answer
    And the bidder has 1 ETH deposited for a fresh block range

  @upstream @sim-faults
  Scenario: a provider partitioned from the bidder during a bid: the bid ends in time, and after the heal the next bid gets both
    Given provider 1 runs a provider application that accepts every bid
    And provider 2 runs a provider application that accepts every bid
    When the network between the bidder and provider 2 is cut
    And the bidder sends a bid of 1000 wei
    Then the bid stream ends with HTTP 200 and 1 commitment
    And the commitment comes from provider 1
    And every commitment is signed by the provider it names
    And the stream ended no later than the bid timeout plus 2000 ms
    And provider 2's application received no bid
    And the control API names provider 2's outcome of the bid "bidder_timeout"
    When the network between the bidder and provider 2 is healed
    And the bidder sends a bid of 1001 wei
    Then the bid stream ends with HTTP 200 and 2 commitments
    And the commitments come from providers 1 and 2

  @upstream @sim-faults
  Scenario: a provider on a lossy link still commits to every bid within the bid timeout, and to none twice
    The bidder sends each bid once to each provider and each provider answers it once (api-behaviour §1.1 step 3):
    what TCP sends again arrives once, so no bid gets two commitments of one provider, in the stream or in either
    node's records (GetBidInfo, GetCommitmentInfo: interface.md §2.5, §2.6).
    Given provider 1 runs a provider application that accepts every bid
    And provider 2 runs a provider application that accepts every bid
    When provider 2's host drops 10 % of the packets it sends or receives
    And the bidder sends 3 bids of 2001 to 2003 wei, one after another
    Then every bid of the scenario ended with HTTP 200 and 2 commitments
    And every commitment is signed by the provider it names
    And nothing of the scenario was committed twice: each bid's stream, the bidder's records and each provider's records hold one commitment per bid and provider, and each commitment digest once

  @upstream @sim-faults
  Scenario: a provider behind a narrow link (128 kbit/s) still commits within the bid timeout
    Given provider 1 runs a provider application that accepts every bid
    And provider 2 runs a provider application that accepts every bid
    When provider 2's host sends at most 128 kbit/s
    And the bidder sends a bid of 3001 wei
    Then the bid stream ends with HTTP 200 and 2 commitments
    And the stream ended no later than the bid timeout plus 2000 ms

  @upstream @sim-faults
  Scenario: a provider 200 ms away (with 50 ms of jitter) still commits within the bid timeout, with the dispatch time it chose
    The dispatch time the oracle decays the bid by is the one the provider application answers when it decides
    (api-behaviour §1.4: "it becomes the commitment's dispatch time"), not when the bidder heard of
    the commitment, at least 150 ms later here; the bidder's record of the bid keeps it (GetBidInfo, interface.md
    §2.6).
    Given provider 1 runs a provider application that accepts every bid
    And provider 2 runs a provider application that accepts every bid
    When provider 2's host delays what it sends by 200 ms, give or take 50 ms
    And the bidder sends a bid of 4001 wei
    Then the bid stream ends with HTTP 200 and 2 commitments
    And the stream ended no later than the bid timeout plus 2000 ms
    And provider 2's commitment carries the dispatch time its application chose when it decided, and the bidder's record of the bid keeps that time

  @upstream @sim-faults @sim-nodes
  Scenario: a subscriber cut off from its node gets the events once the network heals, or sees its stream end: never a silent stream
    Upstream's notifications are a pub/sub with a buffer per subscriber (api-behaviour §5, 100 notifications): an
    event for a subscriber the network cut off waits in it and in TCP, and reaches the subscriber once the network
    heals, or the stream ends and the client knows to subscribe again. A stream that stays open and silent while
    events happen would look like health. Only the subscriber's connection is cut: the control API still reaches the
    node. (While the cut lasts, a client sees silence; the reference node's idle streams carry a blank line every
    15 s, docs/divergences.md "Idle streams", so a client can tell a cut from a quiet node.)
    Given a subscriber "B" to the bidder for topics peer_connected, peer_disconnected
    When the network between the bidder and its API clients is cut
    And provider 2's node leaves the network through the control API
    And the network between the bidder and its API clients is healed
    Then subscriber "B" receives peer_disconnected for provider 2 within 30 s, or sees its stream end
    When provider 2's node joins the network again through the control API
    Then subscriber "B" receives peer_connected for provider 2 within 30 s, or sees its stream end
