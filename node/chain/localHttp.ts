import { type HttpTransport, type HttpTransportConfig, http } from "viem";
import { isHeadRace } from "./pastState.ts";

/** Pauses before each new attempt of a read that raced the chain's head (ms); its length bounds the attempts. */
const HEAD_RACE_BACKOFF_MS = [0, 5, 10, 20, 40, 80, 160];

/**
 * viem's HTTP transport for a chain this project reads while it advances: a read that raced the chain's head
 * (isHeadRace: a call at `latest` overtaken by a new block on a chain keeping no past states, as the devnet's
 * settlement chain with --settlement-history 0, or a block not made yet) is asked again, a few times with short
 * pauses, instead of failing its caller (an HTTP 500 of the control API, a node's failed read).
 */
export function localHttp(url: string, config: HttpTransportConfig = { retryCount: 2, batch: false }): HttpTransport {
  const base = http(url, config);
  return ((args: Parameters<HttpTransport>[0]) => {
    const t = base(args);
    const request = (async (req: { method?: unknown; params?: unknown }, opts: unknown) => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await (t.request as (r: unknown, o: unknown) => Promise<unknown>)(req, opts);
        } catch (e) {
          if (attempt >= HEAD_RACE_BACKOFF_MS.length || !isHeadRace(e, req)) throw e;
          if (HEAD_RACE_BACKOFF_MS[attempt]) await Bun.sleep(HEAD_RACE_BACKOFF_MS[attempt]!);
        }
      }
    }) as typeof t.request;
    return { ...t, request };
  }) as HttpTransport;
}
