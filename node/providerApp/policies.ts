import { prng } from "../../scenarios/util/prng.ts";

/** A bid as a provider application sees it on ReceiveBids. */
export interface ReceivedBid {
  txHashes: string[];
  bidAmount: string;
  blockNumber: string;
  bidDigest: string;
  decayStartTimestamp: string;
  decayEndTimestamp: string;
  revertingTxHashes: string[];
  rawTransactions: string[];
  slashAmount: string;
}

/** What a policy decides: accept with a dispatch time, reject, or never answer (undefined). */
export type PolicyDecision = { accept: true; dispatchTimestamp: bigint } | { accept: false } | undefined;

/** How a simulated provider decides on each bid. */
export interface ProviderPolicy {
  readonly name: string;
  decide(bid: ReceivedBid): Promise<PolicyDecision> | PolicyDecision;
}

const now = () => BigInt(Date.now());

export const acceptAll = (): ProviderPolicy => ({ name: "accept-all", decide: () => ({ accept: true, dispatchTimestamp: now() }) });

export const rejectAll = (): ProviderPolicy => ({ name: "reject-all", decide: () => ({ accept: false }) });

/** Never answers: the node's decision timeout runs out. */
export const neverAnswer = (): ProviderPolicy => ({ name: "never-answer", decide: () => undefined });


/** Rejects `percent` % of bids, chosen by a seeded PRNG. */
export function rejectPercent(percent: number, seed = 1): ProviderPolicy {
  const rnd = prng(seed); // seeded: a run rejects the same bids every time
  return {
    name: `reject-${percent}%`,
    decide: () => (rnd() * 100 < percent ? { accept: false } : { accept: true, dispatchTimestamp: now() }),
  };
}

/** Accepts after `ms` milliseconds. */
export function acceptAfterDelay(ms: number): ProviderPolicy {
  return {
    name: `accept-after-${ms}ms`,
    decide: async () => {
      await Bun.sleep(ms);
      return { accept: true, dispatchTimestamp: now() };
    },
  };
}

/** Accepts with a dispatch time chosen from the bid (e.g. a point inside its decay window). */
export function acceptWithDispatch(dispatch: (bid: ReceivedBid) => bigint): ProviderPolicy {
  return { name: "accept-with-dispatch", decide: (bid) => ({ accept: true, dispatchTimestamp: dispatch(bid) }) };
}

export function policyByName(name: string): ProviderPolicy {
  const m = /^reject-(\d+)%?$/.exec(name);
  if (m) return rejectPercent(Number(m[1]));
  const d = /^accept-after-(\d+)(ms)?$/.exec(name);
  if (d) return acceptAfterDelay(Number(d[1]));
  switch (name) {
    case "accept-all":
      return acceptAll();
    case "reject-all":
      return rejectAll();
    case "never-answer":
      return neverAnswer();
  }
  throw new Error(`unknown provider policy "${name}" (accept-all, reject-all, never-answer, reject-N%, accept-after-Nms)`);
}
