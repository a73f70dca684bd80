/**
 * Accept-all provider applications (one per provider URL) on a thread of their own (appWorker.ts): the
 * benchmark's default, so that a bid's round trip through the application over the provider API is not measured
 * behind the nodes' own work on one event loop.
 */

import { MevCommitError } from "../../lib/errors.ts";
import { logger } from "../../node/util/log.ts";

export class AppThreadError extends MevCommitError {}

export interface AppThread {
  /** Stops the applications; answers the errors they recorded. */
  stop: () => Promise<string[]>;
}

/** `decisions`: how the applications send SendProcessedBids (see ProviderAgentOptions.decisions). */
export async function startAppThread(
  urls: string[],
  decisions: "request" | "stream",
  idleTimeoutMs?: number,
): Promise<AppThread> {
  const log = logger("bench-apps");
  const w = new Worker(new URL("./appWorker.ts", import.meta.url).href);
  let settle: ((m: { started?: true; failed?: string; stopped?: string[] }) => void) | undefined;
  w.onmessage = (
    e: MessageEvent<{
      log?: { level: "info" | "warn"; message: string; fields: Record<string, unknown> };
      started?: true;
      failed?: string;
      stopped?: string[];
    }>,
  ) => {
    const m = e.data;
    if (m.log) log[m.log.level](m.log.message, m.log.fields);
    else settle?.(m);
  };
  w.onerror = (e) => settle?.({ failed: e.message });
  const next = () => new Promise<{ started?: true; failed?: string; stopped?: string[] }>((r) => (settle = r));
  let answer = next();
  w.postMessage({ start: { urls, idleTimeoutMs, decisions } });
  const started = await answer;
  if (!started.started) {
    w.terminate();
    throw new AppThreadError(`the provider applications did not start: ${started.failed}`);
  }
  return {
    stop: async () => {
      answer = next();
      w.postMessage({ stop: true });
      const r = await Promise.race([
        answer,
        Bun.sleep(10_000).then(() => ({ stopped: ["the provider applications did not stop within 10 s"] })),
      ]);
      w.terminate();
      return r.stopped ?? [];
    },
  };
}
