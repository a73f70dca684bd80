/**
 * One raw JSON-RPC call to a chain (eth_blockNumber, txpool_status, evm_mine, …) where a viem client is more than
 * needed: the interval miner's thread, and the benchmarks and the soak that watch an Anvil.
 */

import { MevCommitError } from "../../lib/errors.ts";

/** The chain answered with an error, or not with JSON-RPC. */
export class JsonRpcError extends MevCommitError {
  constructor(
    readonly method: string,
    detail: string,
  ) {
    super(`${method}: ${detail}`, { context: { method } });
  }
}

/** `timeoutMs`: abort the request after that long (default: no limit). */
export async function jsonRpc<T>(url: string, method: string, params: unknown[] = [], timeoutMs?: number): Promise<T> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs),
  });
  const body = (await r.json().catch(() => ({ error: { message: `HTTP ${r.status}, not JSON` } }))) as {
    result?: T;
    error?: { message: string };
  };
  if (body.error) throw new JsonRpcError(method, body.error.message);
  return body.result as T;
}
