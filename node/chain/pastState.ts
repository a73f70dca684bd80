/**
 * Reads at a past block on chains that may no longer hold its state: the devnet's settlement chain keeps none by
 * default (`--settlement-history 0`: each kept state is a copy of the whole state, docs/performance.md), a geth
 * node without an archive keeps the last 128. Blocks, receipts and logs stay readable; calls and balances at an
 * older block fail.
 */

/** What chains answer for a call at a block whose state they no longer hold (Anvil, then geth's wordings). */
const STATE_GONE =
  /BlockOutOfRangeError|block height is \d+ but requested was|missing trie node|historical state|state (is )?not available/i;

/** True when `e` (a viem error, or anything with a message and causes) says the chain no longer holds that state. */
export function isPastStateGone(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x && depth < 8; x = (x as { cause?: unknown }).cause, depth++) {
    const { message, details } = x as { message?: unknown; details?: unknown };
    if (STATE_GONE.test(`${String(message ?? x)} ${String(details ?? "")}`)) return true;
  }
  return false;
}

/** Anvil's "block height is H but requested was R" as numbers (undefined for any other error). */
function outOfRange(e: unknown): { height: bigint; requested: bigint } | undefined {
  for (let x: unknown = e, depth = 0; x && depth < 8; x = (x as { cause?: unknown }).cause, depth++) {
    const { message, details } = x as { message?: unknown; details?: unknown };
    const m = /block height is (\d+) but requested was (\d+)/i.exec(`${String(message ?? x)} ${String(details ?? "")}`);
    if (m) return { height: BigInt(m[1]!), requested: BigInt(m[2]!) };
  }
  return undefined;
}

/** Where each state-reading JSON-RPC method takes its block (a tag, a number or an EIP-1898 object). */
const BLOCK_PARAM: Readonly<Record<string, number>> = {
  eth_call: 1,
  eth_estimateGas: 1,
  eth_createAccessList: 1,
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getTransactionCount: 1,
  eth_getStorageAt: 2,
  eth_getProof: 2,
};

/** Does this request name its block by number or hash (not a tag such as `latest`, nor left out)? */
function namesBlock(request: { method?: unknown; params?: unknown }): boolean {
  const index = BLOCK_PARAM[String(request.method)];
  if (index === undefined || !Array.isArray(request.params)) return false;
  const block = request.params[index];
  if (typeof block === "string") return /^0x[0-9a-f]+$/i.test(block);
  return typeof block === "object" && block !== null;
}

/**
 * True when `request` failed only because the chain's head moved while it was answered, so the same request asked
 * again succeeds: a read at `latest` that a new block overtook on a chain keeping no past state (Anvil resolves
 * `latest` to block N, mines N+1 and drops N's state: "block height is N+1 but requested was N"), or a read at a
 * block the chain has not made yet (another client saw it first). A read that names a past block whose state is
 * gone fails the same way every time: atBlockOrLatest is for that.
 */
export function isHeadRace(e: unknown, request: { method?: unknown; params?: unknown }): boolean {
  if (!isPastStateGone(e)) return false;
  const range = outOfRange(e);
  if (range && range.requested > range.height) return true;
  return !namesBlock(request);
}

/**
 * `read(blockNumber)`, or `read(undefined)` (at `latest`) when the chain no longer holds that block's state. The
 * caller says in a comment why the value at `latest` is still right for it.
 */
export async function atBlockOrLatest<T>(
  blockNumber: bigint,
  read: (blockNumber: bigint | undefined) => Promise<T>,
): Promise<T> {
  try {
    return await read(blockNumber);
  } catch (e) {
    if (!isPastStateGone(e)) throw e;
    return read(undefined);
  }
}
