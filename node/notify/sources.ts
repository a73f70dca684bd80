import { type Address, getAddress, type PublicClient } from "viem";
import { providerRegistryAbi } from "../chain/contracts.ts";
import type { EventPoller } from "../chain/eventPoller.ts";
import { atBlockOrLatest } from "../chain/pastState.ts";
import type { Network } from "../network/network.ts";
import type { ProtocolRules } from "../protocol/rules.ts";
import { BoundedMap } from "../util/boundedMap.ts";
import type { Notifier } from "./notifier.ts";

/** peer_connected / peer_disconnected: `{ethAddress (EIP-55), type}` for every peer other than the node itself. */
export function publishPeerEvents(notifier: Notifier, network: Network, self: Address): () => void {
  return network.onPeer((event, peer) => {
    if (peer.address.toLowerCase() === self.toLowerCase()) return;
    notifier.publish(event === "connected" ? "peer_connected" : "peer_disconnected", {
      ethAddress: getAddress(peer.address),
      type: peer.type,
    });
  });
}

/**
 * Provider registry events (api-behaviour §5): provider_registered (first ProviderRegistered of a provider),
 * provider_deregistered (first Unstake of a provider), provider_slashed and provider_deposit. Amounts are decimal
 * strings (upstream never delivers the last two; docs/divergences.md).
 */
export function publishRegistryEvents(
  notifier: Notifier,
  events: EventPoller,
  client: PublicClient,
  providerRegistry: Address,
): () => void {
  // A provider's stake and the minimum at a block, read once for all its slashes in that block: the event follower
  // awaits each read, and a block can hold hundreds of slashes (every commitment of a missed block).
  const stakes = new BoundedMap<string, Promise<{ stake: bigint; minStake: bigint }>>(64);
  const stakeAt = (p: Address, block: bigint) => {
    const key = `${p}:${block}`;
    let read = stakes.get(key);
    if (!read) {
      // At the slash's block; on a chain that no longer holds that state (the devnet's settlement chain keeps none),
      // at `latest`, which is what upstream reads (stakemanager.go: GetProviderStake with no block): the same
      // answer unless the provider's stake or minStake changed since the slash, and then the newer one.
      read = Promise.all([
        atBlockOrLatest(block, (blockNumber) =>
          client.readContract({
            address: providerRegistry,
            abi: providerRegistryAbi,
            functionName: "getProviderStake",
            args: [p],
            blockNumber,
          }),
        ),
        atBlockOrLatest(block, (blockNumber) =>
          client.readContract({
            address: providerRegistry,
            abi: providerRegistryAbi,
            functionName: "minStake",
            blockNumber,
          }),
        ),
      ]).then(([stake, minStake]) => ({ stake, minStake }));
      // A failed read is forgotten, unless a newer one has taken its place meanwhile.
      read.catch(() => {
        if (stakes.get(key) === read) stakes.delete(key);
      });
      stakes.set(key, read);
    }
    return read;
  };
  const registered = new Set<string>();
  const deregistered = new Set<string>();
  const off = [
    events.on("ProviderRegistered", (e) => {
      const p = getAddress(e.args.provider as string);
      if (registered.has(p)) return;
      registered.add(p);
      deregistered.delete(p);
      notifier.publish("provider_registered", { provider: p });
    }),
    events.on("Unstake", (e) => {
      const p = getAddress(e.args.provider as string);
      if (deregistered.has(p)) return;
      deregistered.add(p);
      notifier.publish("provider_deregistered", { provider: p });
    }),
    events.on("FundsSlashed", async (e) => {
      const p = getAddress(e.args.provider as string);
      const { stake, minStake } = await stakeAt(p, e.blockNumber);
      notifier.publish("provider_slashed", {
        provider: p,
        amount: (e.args.amount as bigint).toString(),
        hasEnoughStake: stake >= minStake,
      });
    }),
    events.on("FundsDeposited", (e) => {
      notifier.publish("provider_deposit", {
        provider: getAddress(e.args.provider as string),
        amount: (e.args.amount as bigint).toString(),
      });
    }),
  ];
  return () => {
    for (const f of off) f();
  };
}

const bareHex = (a: string) => (a.startsWith("0x") ? a.slice(2) : a).toLowerCase();

/** The commitment's bidder (hex, with or without 0x) and bid amount, as a provider records them. */
export interface CommitmentParties {
  bidder: string;
  bidAmount: bigint;
}

/**
 * commitment_store_failed / commitment_open_failed: `{commitmentDigest (hex, no 0x), txnHash, error}`. A provider
 * node of v1.2 (`providerRules`) adds the commitment's `bidder` (bare lower-case hex) and `bidAmount` (decimal), as
 * upstream v1.2.5 does from its provider's records; its bidder's records keep neither, so a bidder passes no rules.
 */
export function commitmentFailure(
  notifier: Notifier,
  topic: "commitment_store_failed" | "commitment_open_failed",
  providerRules?: ProtocolRules,
) {
  const withParties = providerRules !== undefined && providerRules.addedTopics.length > 0;
  return (commitmentDigest: string, txnHash: string, error: string, parties?: CommitmentParties) =>
    notifier.publish(topic, {
      commitmentDigest,
      txnHash,
      error,
      ...(withParties && parties ? { bidder: bareHex(parties.bidder), bidAmount: parties.bidAmount.toString() } : {}),
    });
}

/**
 * The v1.2 topics (upstream v1.2.5), each published where upstream does; on a v1.1 node every call does nothing, so
 * callers need not know the version:
 * - other_provider_won_block: the provider node's tracker, for each of its commitments to a block that another
 *   provider won (it is not opened). `bidder` (bare hex) and `bidAmount` only when known.
 * - transaction_settled: any node, when the oracle's CommitmentProcessed marks a stored commitment settled or
 *   slashed (`transaction_hashes` is the bid's comma-joined hashes, `provider` bare hex).
 * - transaction_payment: any node, when FundsRewarded (payment) or FundsUnlocked (refund) is recorded against a
 *   stored commitment; the other amount is "".
 */
export interface V12Notices {
  otherProviderWonBlock(commitmentDigest: string, bidder?: Address, bidAmount?: bigint): void;
  transactionSettled(txnHash: string, isSlashed: boolean, provider: Address): void;
  transactionPayment(txnHash: string, payment: bigint | undefined, refund: bigint | undefined): void;
}

export function v12Notices(notifier: Notifier, rules: ProtocolRules): V12Notices {
  const on = rules.addedTopics.length > 0;
  return {
    otherProviderWonBlock(commitmentDigest, bidder, bidAmount) {
      if (!on) return;
      notifier.publish("other_provider_won_block", {
        commitmentDigest: bareHex(commitmentDigest),
        ...(bidder !== undefined ? { bidder: bareHex(bidder) } : {}),
        ...(bidAmount !== undefined ? { bidAmount: bidAmount.toString() } : {}),
      });
    },
    transactionSettled(txnHash, isSlashed, provider) {
      if (!on) return;
      notifier.publish("transaction_settled", {
        transaction_hashes: txnHash,
        is_slashed: isSlashed,
        provider: bareHex(provider),
      });
    },
    transactionPayment(txnHash, payment, refund) {
      if (!on) return;
      notifier.publish("transaction_payment", {
        transaction_hashes: txnHash,
        payment: payment?.toString() ?? "",
        refund: refund?.toString() ?? "",
      });
    },
  };
}
