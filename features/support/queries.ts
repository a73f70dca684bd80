/**
 * Support for features/queries.feature: per-scenario state (blocks bound to names, the bids sent and the
 * commitments they got, provider applications attached), fresh blocks far ahead of the L1 head, bids through
 * SendBid, and reads of the registries the stake and reward answers are checked against.
 *
 * Commitments of other scenarios share the nodes' stores, so every block a scenario bids for is fresh: far ahead of
 * the L1 head, chosen at random and checked empty on the bidder before use. Assertions look at those blocks only
 * (the block filter), except the order check, which holds for every block listed.
 */

import { type Address, getAddress, type Hex } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { bidderRegistryAbi, providerRegistryAbi } from "./abi.ts";
import { finished, receiversGone, type WireCommitment } from "./bids.ts";
import { chainOf } from "./chain.ts";
import { acceptAll, ProviderApplication } from "./clients/providerApp.ts";
import { perScenario } from "./perScenario.ts";
import { firstBlockOf, windowOfBlock } from "./protocol.ts";
import { depositToEveryProvider } from "./providerDeposits.ts";
import type { ConformanceWorld } from "./world.ts";

export { windowOfBlock };

export class QuerySuiteError extends MevCommitError {}

/** Wei deposited in each window a scenario bids in: its per-block allowance (1/10) covers every bid here. */
export const SCENARIO_DEPOSIT = 10n ** 16n;

/** A bid the scenario sent and the commitments it got back. */
export interface SentQueryBid {
  block: bigint;
  amount: bigint;
  txHashes: string[];
  revertingTxHashes: string[];
  decayStart: bigint;
  decayEnd: bigint;
  commitments: WireCommitment[];
  /** Bid digest (hex, no 0x), from the commitments. */
  digest: string;
}

const randomHash = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
const randomBelow = (n: bigint) => {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return BigInt(`0x${Buffer.from(bytes).toString("hex")}`) % n;
};

export class QueryScenario {
  readonly blocks = new Map<string, bigint>();
  readonly bids: SentQueryBid[] = [];
  readonly agents: ProviderApplication[] = [];
  readonly funded = new Set<bigint>();
  /** Values noted before an action (stake, reward, slashed amount, nonce). */
  readonly noted = new Map<string, bigint>();

  constructor(readonly world: ConformanceWorld) {}

  get target() {
    return this.world.target;
  }

  block(name: string): bigint {
    const b = this.blocks.get(name);
    if (b === undefined) throw new QuerySuiteError(`block ${name} is not bound in this scenario`);
    return b;
  }

  bind(name: string, block: bigint): void {
    if (this.blocks.has(name))
      throw new QuerySuiteError(`block ${name} is already bound (to ${this.blocks.get(name)})`);
    this.blocks.set(name, block);
    this.world.attach(`block ${name} = ${block}`);
  }

  /** Replaces `{X}` with block X's number. */
  substitute(text: string): string {
    return text.replace(/\{([A-Z])\}/g, (_, n: string) => this.block(n).toString());
  }

  /** True when the bidder lists no commitment for the block (so the scenario can own it). */
  async isFresh(block: bigint): Promise<boolean> {
    const r = await this.world.bidder.getBidInfo({ blockNumber: block });
    if (r.error) throw new QuerySuiteError(r.describe());
    return ((r.value as { blockBidInfo?: unknown[] }).blockBidInfo ?? []).length === 0;
  }

  /** A random window far ahead of the L1 head whose blocks are all fresh. */
  async freshWindow(): Promise<bigint> {
    const head = await chainOf(this.target).l1BlockNumber();
    for (let tries = 0; tries < 20; tries++) {
      const w = windowOfBlock(head + 1n) + 1_000n + randomBelow(10_000_000n);
      const blocks = Array.from({ length: 10 }, (_, i) => firstBlockOf(w) + BigInt(i));
      if ((await Promise.all(blocks.map((b) => this.isFresh(b)))).every(Boolean)) return w;
    }
    throw new QuerySuiteError("found no fresh window in 20 tries");
  }

  /** Deposits SCENARIO_DEPOSIT for bids on `block`: v1.1 into its window (once per window); v1.2 toward every provider (once). */
  async fund(block: bigint): Promise<void> {
    if (this.target.rules.deposits === "provider") {
      if (this.funded.has(0n)) return;
      await depositToEveryProvider(this.world, SCENARIO_DEPOSIT);
      this.funded.add(0n);
      return;
    }
    const w = windowOfBlock(block);
    if (this.funded.has(w)) return;
    const r = await this.world.bidder.deposit(SCENARIO_DEPOSIT, { windowNumber: w });
    if (r.error) throw new QuerySuiteError(`deposit into window ${w}: ${r.describe()}`);
    this.funded.add(w);
  }

  /** Attaches an accept-all application to each named provider (1-based). */
  async attachAcceptAll(providers: number[]): Promise<void> {
    for (const p of providers) {
      const agent = new ProviderApplication(`provider ${p}'s application`, this.world.provider(p), acceptAll());
      this.agents.push(agent); // before start: teardown stops it even if start fails
      await agent.start();
    }
  }

  /** Sends one bid and reads its stream to the end; expects exactly `expected` commitments. */
  async bid(
    block: bigint,
    amount: bigint,
    expected: number,
    opts: { revertingTxHashes?: string[] } = {},
  ): Promise<SentQueryBid> {
    const now = BigInt(Date.now());
    const bid = {
      block,
      amount,
      txHashes: [randomHash()],
      revertingTxHashes: opts.revertingTxHashes ?? [],
      decayStart: now,
      decayEnd: now + 60_000n,
    };
    const body = {
      txHashes: bid.txHashes,
      revertingTxHashes: bid.revertingTxHashes,
      amount: amount.toString(),
      blockNumber: block.toString(),
      decayStartTimestamp: bid.decayStart.toString(),
      decayEndTimestamp: bid.decayEnd.toString(),
    };
    const stream = await finished(this.world.bidder.sendBid(JSON.stringify(body)), this.target.bidTimeoutMs);
    const lines = stream.lines as { result?: WireCommitment }[];
    const commitments = lines.flatMap((l) => (l && typeof l === "object" && l.result ? [l.result] : []));
    if (commitments.length !== expected || commitments.length !== lines.length) {
      throw new QuerySuiteError(
        `bid of ${amount} wei for block ${block}: expected ${expected} commitments, got ${stream.describe(1500)}`,
      );
    }
    const digests = new Set(commitments.map((c) => c.receivedBidDigest));
    if (digests.size !== 1)
      throw new QuerySuiteError(`the commitments of one bid name different bid digests: ${[...digests].join(", ")}`);
    const sent = { ...bid, commitments, digest: [...digests][0]! };
    this.bids.push(sent);
    return sent;
  }

  bidsFor(block: bigint): SentQueryBid[] {
    return this.bids.filter((b) => b.block === block);
  }

  async teardown(): Promise<string[]> {
    await Promise.allSettled(this.agents.map((a) => a.stop()));
    const errors = this.agents.flatMap((a) => a.errors.map((e) => `${a.label}: ${e}`));
    if (this.agents.length) errors.push(...(await receiversGone(this.world)));
    return errors;
  }
}

export const queriesOf = perScenario("query scenario", (world) => new QueryScenario(world));

// ------------------------------------------------------------------------------------------- pages

/** Fetches every page of a Get*Info listing (limit 1000) until an empty one; returns each page's block numbers. */
export async function allPages(
  world: ConformanceWorld,
  node: string,
  path: string,
  groupsKey: "blockBidInfo" | "commitments",
): Promise<string[][]> {
  const pages: string[][] = [];
  for (let page = 0; page < 1000; page++) {
    const q = { limit: 1000, page };
    const r =
      node === "bidder"
        ? await world.bidder.getBidInfo(q)
        : await world.provider(Number(/\d+/.exec(node)?.[0] ?? 1)).getCommitmentInfo(q);
    if (r.error) throw new QuerySuiteError(`${path} page ${page}: ${r.describe()}`);
    const groups = (r.value as Record<string, { blockNumber: string }[]>)[groupsKey] ?? [];
    if (groups.length === 0) return pages;
    pages.push(groups.map((g) => g.blockNumber));
  }
  throw new QuerySuiteError(`${path} did not end within 1000 pages`);
}

// ------------------------------------------------------------------------------------------- registries

/** Reads of ProviderRegistry and BidderRegistry on the target's settlement chain. */
export function registries(world: ConformanceWorld) {
  const t = world.target;
  const client = chainOf(t).settlement;
  const pr = t.contracts.providerRegistry as Address;
  const br = t.contracts.bidderRegistry as Address;
  return {
    minStake: () => client.readContract({ address: pr, abi: providerRegistryAbi, functionName: "minStake" }),
    stakeOf: (p: Address) =>
      client.readContract({ address: pr, abi: providerRegistryAbi, functionName: "getProviderStake", args: [p] }),
    blsKeysOf: async (p: Address): Promise<Hex[]> => [
      ...(await client.readContract({ address: pr, abi: providerRegistryAbi, functionName: "getBLSKeys", args: [p] })),
    ],
    rewardOf: (p: Address) =>
      client.readContract({ address: br, abi: bidderRegistryAbi, functionName: "providerAmount", args: [p] }),
    slashedOwedTo: (b: Address) =>
      client.readContract({ address: pr, abi: providerRegistryAbi, functionName: "bidderSlashedAmount", args: [b] }),
    nonceOf: (a: Address) => client.getTransactionCount({ address: a, blockTag: "latest" }),
    withdrawalRequestOf: (p: Address) =>
      client.readContract({ address: pr, abi: providerRegistryAbi, functionName: "withdrawalRequests", args: [p] }),
  };
}

/** The address of provider n (1-based) of the target, checksummed. */
export function providerAddress(world: ConformanceWorld, n: number): Address {
  const a = world.target.providerAddresses[n - 1];
  if (!a) throw new QuerySuiteError(`the target has ${world.target.providerAddresses.length} providers, not ${n}`);
  return getAddress(a);
}
