import { type Address, createPublicClient, type PublicClient } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { bidderRegistryAbi, bidderRegistryV12Abi, blockTrackerAbi } from "./abi.ts";
import { chainHttp } from "./clients/chainHttp.ts";
import { windowOfBlock } from "./protocol.ts";
import type { Target } from "./target.ts";

/** A read against a target's chain failed; carries what was asked so the failing step says it. */
export class ChainReadError extends MevCommitError {
  constructor(what: string, cause: unknown) {
    super(`${what}: ${(cause as Error)?.message?.split("\n")[0] ?? cause}`, { cause, context: { what } });
  }
}

/**
 * Read-only view of a target's chains, independent of the node under test: the suite checks what the node claims
 * against BidderRegistry and BlockTracker on the settlement chain, and reads the L1 head.
 */
export class ChainReader {
  readonly settlement: PublicClient;
  readonly l1: PublicClient;

  constructor(private readonly target: Target) {
    this.settlement = createPublicClient({ transport: chainHttp(target.settlementRpcUrl), cacheTime: 0 });
    this.l1 = createPublicClient({ transport: chainHttp(target.l1RpcUrl), cacheTime: 0 });
  }

  /** BidderRegistry.getDeposit(bidder, window), in wei; the bidder defaults to the target's bidder node. */
  async getDeposit(window: bigint, bidder: Address = this.target.bidderAddress as Address): Promise<bigint> {
    try {
      return await this.settlement.readContract({
        address: this.target.contracts.bidderRegistry as Address,
        abi: bidderRegistryAbi,
        functionName: "getDeposit",
        args: [bidder, window],
      });
    } catch (e) {
      throw new ChainReadError(`BidderRegistry.getDeposit(${bidder}, ${window})`, e);
    }
  }

  get rules(): Target["rules"] {
    return this.target.rules;
  }

  /** Protocol v1.2: BidderRegistry.getDeposit(bidder, provider), the available amount, in wei. */
  async providerDeposit(provider: Address, bidder: Address = this.target.bidderAddress as Address): Promise<bigint> {
    return this.readV12("getDeposit", [bidder, provider]) as Promise<bigint>;
  }

  /** Protocol v1.2: a read of BidderRegistry (bidderRegistryV12Abi). */
  async readV12(
    functionName:
      | "getDeposit"
      | "getEscrowedAmount"
      | "withdrawalRequestExists"
      | "bidderWithdrawalPeriodMs"
      | "depositManagerImpl",
    args: readonly unknown[] = [],
  ): Promise<unknown> {
    try {
      return await this.settlement.readContract({
        address: this.target.contracts.bidderRegistry as Address,
        abi: bidderRegistryV12Abi,
        functionName,
        args,
      } as never);
    } catch (e) {
      throw new ChainReadError(`BidderRegistry.${functionName}(${args.join(", ")})`, e);
    }
  }

  /** BlockTracker.getCurrentWindow(): the window of the highest L1 block the oracle has recorded. */
  async currentWindow(): Promise<bigint> {
    try {
      return await this.settlement.readContract({
        address: this.target.contracts.blockTracker as Address,
        abi: blockTrackerAbi,
        functionName: "getCurrentWindow",
      });
    } catch (e) {
      throw new ChainReadError("BlockTracker.getCurrentWindow()", e);
    }
  }

  /** The L1 head's number. */
  async l1BlockNumber(): Promise<bigint> {
    try {
      return await this.l1.getBlockNumber({ cacheTime: 0 });
    } catch (e) {
      throw new ChainReadError("L1 eth_blockNumber", e);
    }
  }

  /** The settlement chain head's number. */
  async settlementBlockNumber(): Promise<bigint> {
    try {
      return await this.settlement.getBlockNumber({ cacheTime: 0 });
    } catch (e) {
      throw new ChainReadError("settlement eth_blockNumber", e);
    }
  }
}

let cached: { target: Target; reader: ChainReader } | undefined;

/** The reader for a target (one per run). */
export function chainOf(target: Target): ChainReader {
  if (cached?.target !== target) cached = { target, reader: new ChainReader(target) };
  return cached.reader;
}

// ------------------------------------------------------------------------------------------------ fresh windows

/**
 * Windows for scenarios that must not see each other's deposits on a devnet they all share: each is handed out
 * once per run, and only while the bidder holds nothing in it on-chain (so a reused target works too).
 * Windows ahead start 500 windows after BlockTracker's current one: out of reach of auto-deposit (which funds
 * current+1 and current+2) and of the windows other features take a few windows ahead of L1, whose provider-side
 * allowance would otherwise start from a deposit left there.
 */
const AHEAD = 500n;
const handedOut = new Set<bigint>();
let aheadCursor = 0n;

/**
 * The first of `count` consecutive empty windows ahead; they are not handed out again in this run. Ahead of the L1
 * head too: an oracle that has not recorded a block yet leaves BlockTracker's window far behind an L1 that does not
 * count from 0 (a devnet started with `--no-nodes` has its genesis at block 1,000,000), and a window behind the head
 * would give a scenario blocks already mined.
 */
export async function freshWindowsAhead(chain: ChainReader, count: number): Promise<bigint> {
  // Without BlockTracker windows (v1.2) the suite still hands out ranges of 10 L1 blocks ahead, once each.
  if (!chain.rules.windows) {
    const from = windowOfBlock(await chain.l1BlockNumber()) + AHEAD;
    const w = from > aheadCursor ? from : aheadCursor;
    for (let i = 0n; i < BigInt(count); i++) handedOut.add(w + i);
    aheadCursor = w + BigInt(count);
    return w;
  }
  const [recorded, head] = await Promise.all([chain.currentWindow(), chain.l1BlockNumber()]);
  const current = recorded > windowOfBlock(head) ? recorded : windowOfBlock(head);
  const from = current + AHEAD;
  let w = from > aheadCursor ? from : aheadCursor;
  for (let tries = 0; tries < 500; tries++, w++) {
    let free = true;
    for (let i = 0n; i < BigInt(count) && free; i++) {
      if (handedOut.has(w + i) || (await chain.getDeposit(w + i)) !== 0n) free = false;
    }
    if (!free) continue;
    for (let i = 0n; i < BigInt(count); i++) handedOut.add(w + i);
    aheadCursor = w + BigInt(count);
    return w;
  }
  throw new Error(`no ${count} consecutive windows without a deposit of the bidder from window ${from} on`);
}

/** An empty window that has closed (below current − 1), not handed out before in this run. */
export async function freshClosedWindow(chain: ChainReader): Promise<bigint> {
  const current = await chain.currentWindow();
  for (let w = current - 2n; w >= 1n; w--) {
    if (handedOut.has(w) || (await chain.getDeposit(w)) !== 0n) continue;
    handedOut.add(w);
    return w;
  }
  throw new Error(
    `no closed window without a deposit of the bidder is left below window ${current - 1n} (current window ${current})`,
  );
}
