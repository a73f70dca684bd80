import { createPublicClient, http, type Address, type PublicClient } from "viem";
import { bidderRegistryAbi, blockTrackerAbi } from "../../node/chain/contracts.ts";
import type { Target } from "./target.ts";

/** A read against a target's chain failed; carries what was asked so the failing step says it. */
export class ChainReadError extends Error {
  override name = "ChainReadError";
  constructor(what: string, cause: unknown) {
    super(`${what}: ${(cause as Error)?.message?.split("\n")[0] ?? cause}`, { cause });
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
    this.settlement = createPublicClient({ transport: http(target.settlementRpcUrl, { batch: false }), cacheTime: 0 });
    this.l1 = createPublicClient({ transport: http(target.l1RpcUrl, { batch: false }), cacheTime: 0 });
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
