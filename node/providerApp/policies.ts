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

export const acceptAll = (): ProviderPolicy => ({
  name: "accept-all",
  decide: () => ({ accept: true, dispatchTimestamp: now() }),
});

export const rejectAll = (): ProviderPolicy => ({ name: "reject-all", decide: () => ({ accept: false }) });

/** Never answers: the node's decision timeout runs out. */
export const neverAnswer = (): ProviderPolicy => ({ name: "never-answer", decide: () => undefined });
