/**
 * The suite's HTTP transport to a target's chains. A read at `latest` that the chain answers with "block height is
 * N but requested was N−1" raced the head: the chain took `latest` to be N−1, mined N meanwhile and, keeping no past
 * states (the reference devnet's settlement chain by default), no longer had N−1. Nothing about the target is
 * judged by that race, so the read is asked again a few times; a read that names its block is never retried.
 */
import { type HttpTransport, http } from "viem";

const PAUSES_MS = [0, 10, 30, 80, 200];
const NAMES_BLOCK: Record<string, number> = {
  eth_call: 1,
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getStorageAt: 2,
  eth_getTransactionCount: 1,
  eth_estimateGas: 1,
};

/** Whether `e` (or a cause) says the head moved under a read at `latest`. */
export function raced(e: unknown, req: { method?: unknown; params?: unknown }): boolean {
  const at = NAMES_BLOCK[String(req.method)];
  if (at === undefined) return false;
  const block = (req.params as unknown[] | undefined)?.[at];
  if (block !== undefined && block !== "latest") return false;
  for (let x: unknown = e, depth = 0; x && depth < 8; x = (x as { cause?: unknown }).cause, depth++) {
    const { message, details } = x as { message?: unknown; details?: unknown };
    if (/block height is \d+ but requested was \d+/.test(`${String(message ?? "")} ${String(details ?? "")}`))
      return true;
  }
  return false;
}

export function chainHttp(url: string): HttpTransport {
  const base = http(url, { batch: false });
  return ((args: Parameters<HttpTransport>[0]) => {
    const t = base(args);
    const request = (async (req: { method?: unknown; params?: unknown }, opts: unknown) => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await (t.request as (r: unknown, o: unknown) => Promise<unknown>)(req, opts);
        } catch (e) {
          if (attempt >= PAUSES_MS.length || !raced(e, req)) throw e;
          await Bun.sleep(PAUSES_MS[attempt]!);
        }
      }
    }) as typeof t.request;
    return { ...t, request };
  }) as HttpTransport;
}
