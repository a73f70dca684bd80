/**
 * The simulated providers' decision policies. Each decision depends only on the bid and the seed (never on the
 * order in which bids arrive), and the dispatch time is a point of the bid's own decay window, so the amounts a
 * commitment settles for do not depend on the wall clock.
 */
import { type Hex, parseTransaction } from "viem";
import type { ProviderPolicy, ReceivedBid } from "../../../node/providerApp/policies.ts";
import { randomFor } from "../../util/prng.ts";
import type { ProviderSpec } from "../scenario/schema.ts";

/** Gas of a bid: the gas limits of its raw transactions, or 21000 per transaction named by hash. */
export function gasOfBid(bid: ReceivedBid): bigint {
  if (!bid.rawTransactions?.length) return 21_000n * BigInt(bid.txHashes.length);
  return bid.rawTransactions.reduce(
    (sum, raw) => sum + (parseTransaction(`0x${raw.replace(/^0x/, "")}` as Hex).gas ?? 21_000n),
    0n,
  );
}

/** Dispatch time `at` (0…1) of the way through the bid's decay window. */
export function dispatchWithin(bid: ReceivedBid, at: number): bigint {
  const start = BigInt(bid.decayStartTimestamp);
  const end = BigInt(bid.decayEndTimestamp);
  return start + ((end - start) * BigInt(Math.round(at * 1_000_000))) / 1_000_000n;
}

/** Why a policy refused a bid (for the event log), or undefined when it accepts. */
export function refusal(spec: ProviderSpec, bid: ReceivedBid, seed: number, provider: number): string | undefined {
  const p = spec.policy;
  switch (p.type) {
    case "accept-all":
    case "accept-after-delay":
      return undefined;
    case "reject-all":
      return "rejects every bid";
    case "reject-percent":
      return randomFor(seed, "provider", provider, bid.blockNumber, ...bid.txHashes) * 100 < p.percent
        ? `rejected (${p.percent} % of bids)`
        : undefined;
    case "price-floor": {
      // Upstream streams `amount`; some implementations name it `bidAmount`.
      const amount = BigInt((bid as { amount?: string }).amount ?? bid.bidAmount);
      const txs = BigInt(Math.max(1, bid.txHashes.length));
      if (p.perTx !== undefined && amount / txs < p.perTx) return `below the floor of ${p.perTx} wei per transaction`;
      if (p.perGas !== undefined && amount / gasOfBid(bid) < p.perGas)
        return `below the floor of ${p.perGas} wei per gas`;
      return undefined;
    }
  }
}

/** The ProviderAgent policy of a scenario's provider; `onDecision` sees every decision with its reason. */
export function simPolicy(
  spec: ProviderSpec,
  seed: number,
  provider: number,
  onDecision: (bid: ReceivedBid, accepted: boolean, reason: string | undefined) => void,
): ProviderPolicy {
  const delayMs = spec.policy.type === "accept-after-delay" ? spec.policy.delayMs : 0;
  return {
    name: spec.policy.type,
    async decide(bid) {
      if (delayMs) await Bun.sleep(delayMs);
      const reason = refusal(spec, bid, seed, provider);
      onDecision(bid, reason === undefined, reason);
      return reason === undefined
        ? { accept: true, dispatchTimestamp: dispatchWithin(bid, spec.dispatchAt) }
        : { accept: false };
    },
  };
}
