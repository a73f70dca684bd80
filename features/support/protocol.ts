/**
 * Protocol arithmetic the suite checks against, written here from the spec sheets (never imported from a node):
 * windows of 10 L1 blocks (api-behaviour §4.1) and the decay and settlement amounts of crypto-contracts §2, integer
 * maths with floor division in the contracts' order, 1e18 = 100 %.
 */
export const BLOCKS_PER_WINDOW = 10n;
export const windowOfBlock = (block: bigint): bigint => (block - 1n) / BLOCKS_PER_WINDOW + 1n;
export const firstBlockOf = (window: bigint): bigint => (window - 1n) * BLOCKS_PER_WINDOW + 1n;
export const lastBlockOf = (window: bigint): bigint => window * BLOCKS_PER_WINDOW;

export const ONE_HUNDRED_PERCENT = 10n ** 18n;

/** The oracle's residual share of a bid dispatched at `dispatch` (times in one unit, ms). */
export function residualAfterDecay(start: bigint, end: bigint, dispatch: bigint): bigint {
  if (start >= end || dispatch >= end) return 0n;
  if (dispatch < start) return ONE_HUNDRED_PERCENT;
  return ((end - dispatch) * ONE_HUNDRED_PERCENT) / (end - start);
}

/** A reward: decayed bid, the provider's credit after the fee, the fee, and what goes back to the bidder. */
export function rewardSplit(bid: bigint, residual: bigint, feePercent: bigint) {
  const decayed = (bid * residual) / ONE_HUNDRED_PERCENT;
  const fee = (decayed * feePercent) / ONE_HUNDRED_PERCENT;
  return { decayed, provider: decayed - fee, fee, bidderRefund: bid - decayed };
}

/** A slash: the bidder's portion (decayed + slash amount) first, then the penalty, both capped by the stake. */
export function slashSplit(bid: bigint, residual: bigint, slashAmount: bigint, penaltyPercent: bigint, stake: bigint) {
  const decayed = (bid * residual) / ONE_HUNDRED_PERCENT;
  let penalty = (decayed * penaltyPercent) / ONE_HUNDRED_PERCENT;
  let bidderPortion = decayed + slashAmount;
  if (stake < bidderPortion + penalty) {
    if (stake < bidderPortion) bidderPortion = stake;
    penalty = stake - bidderPortion;
  }
  return { bidderPortion, penalty, totalSlash: bidderPortion + penalty };
}

/**
 * Error texts are compared on their stable part: protobuf-go puts a space or a non-breaking space (U+00A0) after
 * "proto:" at random so that nobody matches its texts byte for byte (api-behaviour §8.3); both read as one space.
 */
export function stableText(text: string): string {
  return text
    .replace(/\u00a0/g, " ")
    .replace(/^(proto:) +/, "$1 ")
    .replace(/ (proto:) +/g, " $1 ");
}
