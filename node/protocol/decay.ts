/**
 * Decay and settlement arithmetic, exactly as crypto-contracts §2: 1e18 = 100 %, integer math,
 * floor division in the contracts' order. All amounts in wei.
 */

/** 1 % in the registries' fixed-point scale. */
export const PRECISION = 10n ** 16n;
/** 100 % in the registries' and the oracle's fixed-point scale. */
export const ONE_HUNDRED_PERCENT = 100n * PRECISION;

/**
 * Share of the bid (1e18 = all of it) that survives decay when the provider dispatched its
 * commitment at `dispatch` (the oracle's `computeResidualAfterDecay`). Timestamps share one unit (ms).
 */
export function residualAfterDecay(decayStart: bigint, decayEnd: bigint, dispatch: bigint): bigint {
  if (decayStart >= decayEnd || dispatch >= decayEnd) return 0n;
  if (dispatch < decayStart) return ONE_HUNDRED_PERCENT;
  const residual = ((decayEnd - dispatch) * ONE_HUNDRED_PERCENT) / (decayEnd - decayStart);
  return residual > ONE_HUNDRED_PERCENT ? ONE_HUNDRED_PERCENT : residual;
}

/** `bidAmount * residual / 1e18`, floored: the part of a locked bid the provider earns (or is slashed on). */
export function decayedAmount(bidAmount: bigint, residual: bigint): bigint {
  return (bidAmount * residual) / ONE_HUNDRED_PERCENT;
}

export interface RewardSplit {
  /** bid * residual / 1e18 (emitted as `FundsRewarded.amount`). */
  readonly decayed: bigint;
  /** decayed - fee, credited to `providerAmount[provider]`. */
  readonly provider: bigint;
  /** decayed * feePercent / 1e18, protocol fee. */
  readonly fee: bigint;
  /** bid - decayed, pushed back to the bidder. */
  readonly bidderRefund: bigint;
}

/**
 * `BidderRegistry.retrieveFunds`: split of a locked bid of `bidAmount` on a reward.
 * `feePercent` is the registry's fee in the 1e18 scale (2 % = 2e16).
 */
export function rewardSplit(bidAmount: bigint, residual: bigint, feePercent: bigint): RewardSplit {
  const decayed = decayedAmount(bidAmount, residual);
  const fee = (decayed * feePercent) / ONE_HUNDRED_PERCENT;
  return { decayed, provider: decayed - fee, fee, bidderRefund: bidAmount - decayed };
}

export interface SlashSplit {
  /** bid * residual / 1e18. */
  readonly residualAmount: bigint;
  /** Taken from the stake for the bidder: residualAmount + slashAmount, capped at the stake. */
  readonly bidderPortion: bigint;
  /** residualAmount * penaltyPercent / 1e18, or what the stake has left after the bidder portion. */
  readonly penalty: bigint;
  /** bidderPortion + penalty: what leaves the provider's stake (`FundsSlashed.amount`). */
  readonly totalSlash: bigint;
  /** True when the stake could not cover the full slash (`InsufficientFundsToSlash` is emitted). */
  readonly insufficientStake: boolean;
}

/**
 * `ProviderRegistry.slash`: what a slash takes from a provider's stake. The bidder portion is paid
 * first; the penalty gets what is left. When `stake` is omitted the stake is assumed sufficient.
 * (Separately, the whole locked bid is unlocked back to the bidder by `BidderRegistry.unlockFunds`.)
 */
export function slashSplit(
  bidAmount: bigint,
  residual: bigint,
  slashAmount: bigint,
  penaltyPercent: bigint,
  stake?: bigint,
): SlashSplit {
  const residualAmount = decayedAmount(bidAmount, residual);
  let penalty = (residualAmount * penaltyPercent) / ONE_HUNDRED_PERCENT;
  let bidderPortion = residualAmount + slashAmount;
  const insufficientStake = stake !== undefined && stake < bidderPortion + penalty;
  if (insufficientStake) {
    if (stake < bidderPortion) bidderPortion = stake;
    penalty = stake - bidderPortion;
  }
  return { residualAmount, bidderPortion, penalty, totalSlash: bidderPortion + penalty, insufficientStake };
}
