/**
 * Reads at a past block on chains that may no longer hold its state: the devnet's settlement chain keeps none by
 * default (`--settlement-history 0`: each kept state is a copy of the whole state, docs/performance.md), a geth
 * node without an archive keeps the last 128. Blocks, receipts and logs stay readable; calls and balances at an
 * older block fail.
 */

/** What chains answer for a call at a block whose state they no longer hold (Anvil, then geth's wordings). */
const STATE_GONE = /BlockOutOfRangeError|block height is \d+ but requested was|missing trie node|historical state|state (is )?not available/i;

/** True when `e` (a viem error, or anything with a message and causes) says the chain no longer holds that state. */
export function isPastStateGone(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x && depth < 8; x = (x as { cause?: unknown }).cause, depth++) {
    const { message, details } = x as { message?: unknown; details?: unknown };
    if (STATE_GONE.test(`${String(message ?? x)} ${String(details ?? "")}`)) return true;
  }
  return false;
}

/**
 * `read(blockNumber)`, or `read(undefined)` (at `latest`) when the chain no longer holds that block's state. The
 * caller says in a comment why the value at `latest` is still right for it.
 */
export async function atBlockOrLatest<T>(blockNumber: bigint, read: (blockNumber: bigint | undefined) => Promise<T>): Promise<T> {
  try {
    return await read(blockNumber);
  } catch (e) {
    if (!isPastStateGone(e)) throw e;
    return read(undefined);
  }
}
