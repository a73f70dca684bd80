import type { BidOption, PositionConstraint } from "../protocol/bidOptions.ts";

/**
 * The oracle's v1.2 bid-option rule (upstream-head-delta §3.5): each position constraint of an opened commitment's
 * bid options must be met by some transaction of its bundle, or the commitment is slashed. Upstream applies it only
 * with `--bid-options-slash-enabled`. All arithmetic is integer arithmetic with upstream's truncating division and
 * its int32/uint64 conversions, so a value outside 0..100 behaves as it does there.
 */

/** Enum numbers of `PositionConstraint` (bidOptions.ts ANCHORS / BASES). */
const ANCHOR_TOP = 1;
const ANCHOR_BOTTOM = 2;
const BASIS_PERCENTILE = 1;
const BASIS_ABSOLUTE = 2;
const BASIS_GAS_PERCENTILE = 3;

/** What the rule needs of the block: its transaction count, its gasUsed and each transaction's gas by position. */
export interface BlockLayout {
  /** Gas used by each transaction, by position. */
  readonly gasByPosition: readonly bigint[];
  /** The block header's gasUsed. */
  readonly gasUsed: bigint;
}

/** int32 → uint64 as Go converts it (a negative value wraps). */
const goUint64 = (v: bigint): bigint => BigInt.asUintN(64, v);

/** Whether one constraint is met by the transaction at `position` (0-based) of the block. */
export function isPositionConstraintMet(c: PositionConstraint, position: number, block: BlockLayout): boolean {
  const pos = BigInt(position);
  const n = BigInt(block.gasByPosition.length);
  const value = BigInt(c.value);
  switch (c.basis) {
    case BASIS_ABSOLUTE:
      if (c.anchor === ANCHOR_TOP) return pos <= value;
      if (c.anchor === ANCHOR_BOTTOM) return pos >= n - value;
      return false;
    case BASIS_PERCENTILE:
      // BigInt division truncates toward zero, as Go's integer division does.
      if (c.anchor === ANCHOR_TOP) return pos <= (n * value) / 100n;
      if (c.anchor === ANCHOR_BOTTOM) return pos >= (n * (100n - value)) / 100n;
      return false;
    case BASIS_GAS_PERCENTILE: {
      // The bundle's transaction is in the block, so the block's gasUsed is at least 21000: never a division by zero.
      if (block.gasUsed === 0n) return false;
      const before = block.gasByPosition.slice(0, position).reduce((a, g) => a + g, 0n);
      const gasPercentile = (before * 100n) / block.gasUsed;
      const ownPercentile = ((block.gasByPosition[position] ?? 0n) * 100n) / block.gasUsed;
      if (c.anchor === ANCHOR_TOP) return gasPercentile <= goUint64(value);
      // 100 − value is computed in int32 (it wraps) before the conversion.
      if (c.anchor === ANCHOR_BOTTOM) return gasPercentile + ownPercentile >= goUint64(BigInt.asIntN(32, 100n - value));
      return false;
    }
    default:
      return false;
  }
}

/**
 * The options left unmet after the bundle's transactions (their block positions) are matched, in bundle order: each transaction meets at
 * most one constraint, the first in the list it satisfies, which is then struck out (upstream's matching). An option
 * that is not a position constraint is never met. The commitment is slashed when anything is left.
 */
export function unmetBidOptions(
  options: readonly BidOption[],
  bundlePositions: readonly number[],
  block: BlockLayout,
): BidOption[] {
  const left = [...options];
  for (const position of bundlePositions) {
    const i = left.findIndex(
      (o) => o.positionConstraint && isPositionConstraintMet(o.positionConstraint, position, block),
    );
    if (i >= 0) left.splice(i, 1);
  }
  return left;
}
