import { http, type HttpTransport, type HttpTransportConfig } from "viem";
import { isPastStateGone } from "./pastState.ts";

/**
 * viem's HTTP transport for a local chain, which also retries a call that raced a new block on a chain keeping no
 * past states (the devnet's settlement chain with --settlement-history 0): the same call at `latest` succeeds.
 */
export function localHttp(url: string, config: HttpTransportConfig = { retryCount: 2, batch: false }): HttpTransport {
  const base = http(url, config);
  return ((args: Parameters<HttpTransport>[0]) => {
    const t = base(args);
    const request = (async (req: unknown, opts: unknown) => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await (t.request as (r: unknown, o: unknown) => Promise<unknown>)(req, opts);
        } catch (e) {
          if (attempt >= 3 || !isPastStateGone(e)) throw e;
        }
      }
    }) as typeof t.request;
    return { ...t, request };
  }) as HttpTransport;
}
