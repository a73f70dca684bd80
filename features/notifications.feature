@notifications
Feature: Notifications: Subscribe streams the events of the topics asked for, with exact value shapes
  POST /v1/subscribe with {"topics": [...]} opens a stream that emits one line {"result":{"topic","value"}} for each
  event of those topics, until the client leaves (interface.md §2.8, §4.2, §6; api-behaviour §1.2, §5). Streams are
  judged by their messages; that the headers come when the stream opens, before any event, is checked in its own
  scenario (docs/divergences.md, "Stream start").

  Levels: the topics and the peer_connected shape are the interface's (§6); the other shapes and the refusals are
  upstream's; provider_slashed and provider_deposit are never delivered upstream (a documented defect).

  Value shapes (api-behaviour §5, docs/validators.md, docs/divergences.md):
  - peer_connected, peer_disconnected: {"ethAddress": EIP-55 address, "type": "provider", "bidder" or "bootnode"}
  - validator_opted_in: {"epoch": number, "slot": number, "bls_key": "0x" + 48 bytes of lower-case hex}
  - epoch_validators_opted_in: {"epoch": number, "epoch_start_time": Unix seconds, "slots": [{"slot", "bls_key", "opted_in"}]}
  - provider_registered, provider_deregistered: {"provider": EIP-55 address}
  - provider_slashed: {"provider": EIP-55 address, "amount": wei as a decimal string, "hasEnoughStake": bool}
  - provider_deposit: {"provider": EIP-55 address, "amount": wei as a decimal string}
  - commitment_store_failed, commitment_open_failed: {"commitmentDigest": hex without 0x, "txnHash": the bid's
    transaction hashes (hex without 0x) joined by ",", "error": the watcher's error text}
  Every value below is compared exactly: the same fields, no others, and the same JSON types (an amount in wei is a
  string, an epoch or slot is a number). Provider N is the target's Nth provider node; <provider N> is its address.

  The L1 of the devnet mines only when a scenario asks it to (control API). Slot s is L1 block s and an epoch has 32
  slots: epoch_validators_opted_in for epoch E fires when block 32E-1 is mined, validator_opted_in for slot s when
  block s-1 is mined and the proposer of s is opted in.

  Background:
    Given the target's nodes answer

  @spec @sim-nodes
  Scenario: a provider that leaves and rejoins the network is announced to the bidder and to the other provider
    Given a subscriber "B" to the bidder for topics peer_connected, peer_disconnected
    And a subscriber "P1" to provider 1 for topics peer_connected, peer_disconnected
    When provider 2's node leaves the network through the control API
    Then subscriber "B" soon receives peer_disconnected {"ethAddress":"<provider 2>","type":"provider"}
    And subscriber "P1" soon receives peer_disconnected {"ethAddress":"<provider 2>","type":"provider"}
    When provider 2's node joins the network again through the control API
    Then subscriber "B" soon receives peer_connected {"ethAddress":"<provider 2>","type":"provider"}
    And subscriber "P1" soon receives peer_connected {"ethAddress":"<provider 2>","type":"provider"}
    And subscriber "B" received exactly these notifications, in order:
      | peer_disconnected | {"ethAddress":"<provider 2>","type":"provider"} |
      | peer_connected    | {"ethAddress":"<provider 2>","type":"provider"} |
    And subscriber "P1" received exactly these notifications, in order:
      | peer_disconnected | {"ethAddress":"<provider 2>","type":"provider"} |
      | peer_connected    | {"ethAddress":"<provider 2>","type":"provider"} |

  @intended @sim
  Scenario: an opted-in proposer is listed in the epoch announcement and announced before its slot
    Divergence: Validators
    Given a subscriber "V" to the bidder for topics validator_opted_in, epoch_validators_opted_in
    And a subscriber "W" to provider 1 for topics epoch_validators_opted_in
    And K is the proposer key of the first slot S of the next epoch E whose proposer is not opted in, per get_validators
    When K is opted in on the L1 registry by dev account 17 and the next L1 block is mined
    Then get_validators for epoch E soon shows K opted in at slot S
    When L1 blocks are mined up to the last block before epoch E
    Then subscriber "V" soon receives epoch_validators_opted_in for epoch E: its 32 slots in ascending order, as get_validators lists them, with K opted in
    And subscriber "W" soon receives the same epoch_validators_opted_in for epoch E
    When L1 blocks are mined up to the last block before slot S
    Then subscriber "V" soon receives validator_opted_in {"epoch":<E>,"slot":<S>,"bls_key":"<K>"}
    And subscriber "V" received one validator_opted_in for each opted-in slot of epoch E up to S, in slot order, after the epoch announcement

  @intended @sim @v1.1
  Scenario: a provider slashed for a commitment it broke is announced with the amount taken from its stake
    Divergence: `provider_slashed`, `provider_deposit`
    Given a subscriber "B" to the bidder for topics provider_slashed
    And a subscriber "P1" to provider 1 for topics provider_slashed
    And the bidder has 10 ETH deposited for the next L1 blocks, B and B+1
    And provider 1's application accepts every bid, dispatching at D
    And provider 1's builder omits the bundles it committed to
    When the bidder bids 1 ETH with slash amount 0.1 ETH for L1 block B on a transfer, decaying from D-250 ms to D+750 ms
    Then the bid gets one commitment, from provider 1
    And the commitment is soon stored on the settlement chain by provider 1
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    # 0.75 ETH decayed bid + 0.1 ETH slash amount + 5 % penalty on 0.75 ETH (crypto-contracts §2)
    Then subscriber "B" soon receives provider_slashed {"provider":"<provider 1>","amount":"887500000000000000","hasEnoughStake":true}
    And subscriber "P1" soon receives provider_slashed {"provider":"<provider 1>","amount":"887500000000000000","hasEnoughStake":true}
    And that provider_slashed agrees with ProviderRegistry: the FundsSlashed amount, and hasEnoughStake is stake after the slash >= minStake

  @intended @sim @v1.1
  Scenario: a slash that takes a provider's stake below the minimum is announced with hasEnoughStake false
    Divergence: `provider_slashed`, `provider_deposit`
    Given a subscriber "B" to the bidder for topics provider_slashed
    And the bidder has 10 ETH deposited for the next L1 blocks, B and B+1
    And provider 1's application accepts every bid, dispatching at D
    And provider 1's builder omits the bundles it committed to
    And provider 1's stake is put back after the scenario
    When the bidder bids 1 ETH for L1 block B on a transfer, with a slash amount that leaves provider 1 1 ETH below the minimum stake, decaying from D+1000 ms to D+2000 ms
    Then the bid gets one commitment, from provider 1
    And the commitment is soon stored on the settlement chain by provider 1
    When L1 block B is mined with provider 1 as the winner, then 1 more block
    Then subscriber "B" soon receives provider_slashed for provider 1 with hasEnoughStake false
    And that provider_slashed agrees with ProviderRegistry: the FundsSlashed amount, and hasEnoughStake is stake after the slash >= minStake

  @intended
  Scenario: stake added to a provider is announced as a deposit, the amount in wei as a decimal string
    Divergence: `provider_slashed`, `provider_deposit`
    Given a subscriber "B" to the bidder for topics provider_deposit
    And a subscriber "P1" to provider 1 for topics provider_deposit
    When provider 1 adds 1234567890123456789 wei to its stake
    Then subscriber "B" soon receives provider_deposit {"provider":"<provider 1>","amount":"1234567890123456789"}
    And subscriber "P1" soon receives provider_deposit {"provider":"<provider 1>","amount":"1234567890123456789"}
    And ProviderRegistry emitted FundsDeposited for provider 1 with 1234567890123456789 wei

  @upstream
  Scenario: a provider that registers and then unstakes is announced once each way
    Given a subscriber "B" to the bidder for topics provider_registered, provider_deregistered
    And a subscriber "P1" to provider 1 for topics provider_registered, provider_deregistered
    And a fresh account N holding 11 ETH on the settlement chain, funded by dev account 16
    When N registers as a provider with ProviderRegistry.registerAndStake and the minimum stake
    Then subscriber "B" soon receives provider_registered {"provider":"<N>"}
    And subscriber "P1" soon receives provider_registered {"provider":"<N>"}
    When N unstakes with ProviderRegistry.unstake
    Then subscriber "B" soon receives provider_deregistered {"provider":"<N>"}
    And subscriber "P1" soon receives provider_deregistered {"provider":"<N>"}
    And subscriber "B" received exactly these notifications, in order:
      | provider_registered   | {"provider":"<N>"} |
      | provider_deregistered | {"provider":"<N>"} |
    And the stream of subscriber "B" had the content type "application/json"

  @intended
  Scenario: a Subscribe stream sends its headers when it opens, before any event
    Divergence: Stream start
    Given a subscriber "S" to the bidder for topics provider_registered
    Then the stream of subscriber "S" opened with HTTP 200, content type "application/json" and no notification yet

  @upstream @sim-nodes @v1.1
  Scenario: a commitment whose store transaction fails on chain is announced by its provider
    Given a subscriber "P1" to provider 1 for topics commitment_store_failed
    And the bidder has 10 ETH deposited for the next L1 blocks, B and B+1
    And provider 1's application accepts every bid, dispatching at D
    And provider 1's next store transaction is made to fail on chain through the control API
    When the bidder bids 0.5 ETH for L1 block B on two transfers, decaying from D ms to D+1000 ms
    Then the bid gets one commitment, from provider 1
    And subscriber "P1" soon receives commitment_store_failed for the commitment, with the bid's transaction hashes and an error starting with "transaction failed: "
    And provider 1 soon reports the commitment with status "failed" and details "failed to store commitment: " followed by that error

  @upstream @sim-nodes @v1.1
  Scenario: failed open transactions are announced by the winner and by the bidder that opens in its place
    Given a subscriber "P1" to provider 1 for topics commitment_open_failed
    And a subscriber "B" to the bidder for topics commitment_open_failed
    And the bidder has 10 ETH deposited for the next L1 blocks, B and B+1
    And provider 1's application accepts every bid, dispatching at D
    When the bidder bids 0.5 ETH for L1 block B on two transfers, decaying from D ms to D+1000 ms
    Then the bid gets one commitment, from provider 1
    And the commitment is soon stored on the settlement chain by provider 1
    Given provider 1's next open transaction is made to fail on chain through the control API
    And the bidder's next open transaction is made to fail on chain through the control API
    When L1 block B is mined with provider 1 as the winner, then 3 more blocks
    Then subscriber "P1" soon receives commitment_open_failed for the commitment, with the bid's transaction hashes and an error starting with "transaction failed: "
    And provider 1 soon reports the commitment with status "failed" and details "failed to open commitment: " followed by that error
    And subscriber "B" soon receives commitment_open_failed for the commitment, with the bid's transaction hashes and an error starting with "transaction failed: "
    And the bidder soon reports the commitment with status "failed" and details "failed to open commitment: " followed by that error

  @upstream @sim-nodes
  Scenario: every subscriber receives every event of its topics, in the same order
    Given subscribers "S1", "S2" and "S3" to the bidder for every topic
    And a subscriber "S4" to the bidder for topics peer_disconnected
    When provider 2's node leaves the network through the control API
    And provider 2's node joins the network again through the control API
    Then subscribers "S1", "S2" and "S3" soon receive peer_disconnected then peer_connected {"ethAddress":"<provider 2>","type":"provider"}, and the same notifications in the same order up to then
    And subscriber "S4" soon receives peer_disconnected {"ethAddress":"<provider 2>","type":"provider"}
    And subscriber "S4" received only notifications of its topics

  @upstream
  Scenario Outline: an unknown topic anywhere in the list fails the whole call with InvalidArgument
    When a client subscribes to the bidder with the body '<body>'
    Then the call is refused at once with HTTP 400 and exactly the body {"error":{"code":3,"message":"invalid topic: <bad>","details":[]}}

    Examples:
      | body                                                         | bad            |
      | {"topics":["nope"]}                                          | nope           |
      | {"topics":["peer_connected","nope"]}                         | nope           |
      | {"topics":["provider_slashed","peer_connected","PEER_CONNECTED"]} | PEER_CONNECTED |
      | {"topics":["peer_connected",""]}                             |                |

  @upstream @sim-nodes
  Scenario: a refused call adds no subscriber, and a subscriber that leaves is removed from the node
    Given the bidder's subscriber count is noted
    When a client subscribes to the bidder with the body '{"topics":["peer_connected","nope"]}'
    Then the call is refused at once with HTTP 400 and exactly the body {"error":{"code":3,"message":"invalid topic: nope","details":[]}}
    And the bidder's subscriber count is the noted one
    Given a subscriber "S" to the bidder for topics peer_connected
    And a subscriber "T" to the bidder for every topic
    Then the bidder soon counts 2 subscribers more than the noted count
    When subscriber "S" disconnects
    Then the bidder soon counts 1 subscriber more than the noted count
    When subscriber "T" disconnects
    Then the bidder's subscriber count soon returns to the noted one
