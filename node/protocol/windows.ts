/**
 * Deposit windows (BlockTracker / WindowFromBlockNumber at 5f1068d1, api-behaviour §4.1):
 * 10 L1 blocks per window, window(b) = (b-1)/10 + 1, window w spans (w-1)*10+1 … w*10.
 */

import { MevCommitError } from "../../lib/errors.ts";

export const BLOCKS_PER_WINDOW = 10n;

/** Block 0 (or a negative block) has no window: the contract's `b - 1` underflows and reverts. */
export class InvalidBlockNumberError extends MevCommitError {
  constructor(readonly blockNumber: bigint) {
    super(`block number ${blockNumber} has no window (blocks start at 1)`, { context: { blockNumber } });
  }
}

export class InvalidWindowError extends MevCommitError {
  constructor(readonly window: bigint) {
    super(`window ${window} does not exist (windows start at 1)`, { context: { window } });
  }
}

export function windowOfBlock(blockNumber: bigint): bigint {
  if (blockNumber < 1n) throw new InvalidBlockNumberError(blockNumber);
  return (blockNumber - 1n) / BLOCKS_PER_WINDOW + 1n;
}

export interface BlockRange {
  /** First block of the window, inclusive. */
  readonly start: bigint;
  /** Last block of the window, inclusive. */
  readonly end: bigint;
}

export function windowBlockRange(window: bigint): BlockRange {
  if (window < 1n) throw new InvalidWindowError(window);
  return { start: (window - 1n) * BLOCKS_PER_WINDOW + 1n, end: window * BLOCKS_PER_WINDOW };
}
