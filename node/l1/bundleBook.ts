import { type Address, type Hex, parseTransaction } from "viem";
import { FailedPreconditionError, GrpcCode, InvalidArgumentError, RpcError } from "../protocol/grpcCodes.ts";
import type { BundleSource } from "./builder.ts";

/** The book is full: more bundles are waiting for future blocks than the devnet keeps. */
export class BundleBookFullError extends RpcError {
  constructor(message: string) {
    super(GrpcCode.ResourceExhausted, message);
  }
}

export interface PostedBundle {
  provider: Address;
  blockNumber: bigint;
  /** Signed raw transactions, 0x-hex or bare hex, in the order the builder must include them. */
  rawTransactions: string[];
  /** Orders bundles of one block, highest first (as the devnet's own providers order theirs); default 0. */
  bidAmount?: bigint;
}

/** Limits of the book: transactions per bundle, bundles held in all. */
export const MAX_BUNDLE_TXS = 256;
export const MAX_BOOK_BUNDLES = 10_000;

/**
 * Bundles that provider applications posted for future L1 blocks (control API: `POST /sim/v1/bundles`). A real
 * provider's application is its block builder; a foreign provider node's commitments are not in the devnet's store,
 * so its application tells the devnet's builder what it committed to for a block. When the provider wins that block,
 * the builder includes them as it includes the devnet's own providers' bundles (honest, omit, reverse, gap).
 * Bundles of a block are dropped once the block is mined.
 */
export class BundleBook {
  private readonly byBlock = new Map<bigint, (PostedBundle & { seq: number })[]>();
  private count = 0;
  private seq = 0;

  /** Checks and keeps a bundle; `head` is the latest mined L1 block (a bundle for it or earlier is refused). */
  post(b: PostedBundle, head: bigint): void {
    if (b.blockNumber <= head)
      throw new FailedPreconditionError(
        `block ${b.blockNumber} is already mined (the L1 is at ${head}); post bundles for a future block`,
      );
    if (b.rawTransactions.length === 0) throw new InvalidArgumentError("rawTransactions is empty");
    if (b.rawTransactions.length > MAX_BUNDLE_TXS)
      throw new InvalidArgumentError(
        `a bundle holds at most ${MAX_BUNDLE_TXS} transactions, got ${b.rawTransactions.length}`,
      );
    for (const [i, raw] of b.rawTransactions.entries()) {
      const hex = (raw.startsWith("0x") ? raw : `0x${raw}`) as Hex;
      try {
        parseTransaction(hex);
      } catch {
        throw new InvalidArgumentError(`rawTransactions[${i}] is not an RLP-encoded signed transaction`);
      }
    }
    if (this.count >= MAX_BOOK_BUNDLES)
      throw new BundleBookFullError(
        `the devnet holds ${MAX_BOOK_BUNDLES} bundles for future blocks already; mine blocks first`,
      );
    const list = this.byBlock.get(b.blockNumber) ?? [];
    list.push({ ...b, seq: this.seq++ });
    this.byBlock.set(b.blockNumber, list);
    this.count++;
  }

  /** One source per provider with bundles posted (what the builder reads for the block's winner). */
  sources(): BundleSource[] {
    const providers = new Set<string>();
    for (const list of this.byBlock.values()) for (const b of list) providers.add(b.provider.toLowerCase());
    return [...providers].map((p) => ({
      address: p as Address,
      bundlesFor: (block: bigint) => this.bundlesFor(p as Address, block),
    }));
  }

  /** A provider's bundles for a block: highest bid first, then in the order posted. */
  bundlesFor(provider: Address, block: bigint): string[][] {
    return (this.byBlock.get(block) ?? [])
      .filter((b) => b.provider.toLowerCase() === provider.toLowerCase())
      .sort((a, b) =>
        (b.bidAmount ?? 0n) > (a.bidAmount ?? 0n) ? 1 : (b.bidAmount ?? 0n) < (a.bidAmount ?? 0n) ? -1 : a.seq - b.seq,
      )
      .map((b) => b.rawTransactions);
  }

  /** Drops the bundles of every block up to `block` (it is mined). */
  forget(block: bigint): void {
    for (const [n, list] of this.byBlock) {
      if (n > block) continue;
      this.count -= list.length;
      this.byBlock.delete(n);
    }
  }

  get size(): number {
    return this.count;
  }
}
