/**
 * How many bids a bidder sends for each block (pure: a strategy, the block's position in the run and the bidder's
 * seeded PRNG). The bot's count depends on the validator schedule and is decided by the bot (validatorWatch.ts).
 */
import type { BidStrategy } from "../scenario/schema.ts";

/** A Poisson-distributed count (Knuth's method; fine for the small means of a block). */
export function poisson(mean: number, rnd: () => number): number {
  if (mean <= 0) return 0;
  const limit = Math.exp(-mean);
  let k = 0;
  let p = rnd();
  while (p > limit) {
    k++;
    p *= rnd();
  }
  return k;
}

/**
 * Bids for the `i`-th block of the run (0-based). `rnd` is drawn from in the same way whatever the outcome of
 * earlier bids, so a seed always gives the same counts.
 */
export function bidsForBlock(strategy: BidStrategy, i: number, rnd: () => number, optedIn: boolean): number {
  switch (strategy.type) {
    case "constant":
      // Spread evenly: 0.5 a block is one bid every other block; 2.5 alternates 2 and 3.
      return Math.floor((i + 1) * strategy.perBlock + 1e-9) - Math.floor(i * strategy.perBlock + 1e-9);
    case "poisson":
      return Math.min(strategy.maxPerBlock, poisson(strategy.meanPerBlock, rnd));
    case "slot-burst":
      return i % strategy.everyBlocks === 0 ? strategy.perBlock : 0;
    case "bot":
      return optedIn ? strategy.perSlot : 0;
  }
}

/** The most bids a strategy can send for one block (sizes the bidder's pool of L1 senders). */
export function maxBidsPerBlock(strategy: BidStrategy): number {
  switch (strategy.type) {
    case "constant":
      return Math.ceil(strategy.perBlock);
    case "poisson":
      return strategy.maxPerBlock;
    case "slot-burst":
      return strategy.perBlock;
    case "bot":
      return strategy.perSlot;
  }
}

/** An amount drawn uniformly from [min, max] (wei), at a resolution of 1e-9 of the range. */
export function drawAmount(min: bigint, max: bigint, rnd: () => number): bigint {
  const r = BigInt(Math.floor(rnd() * 1e9));
  return min + ((max - min) * r) / 1_000_000_000n;
}
