/**
 * The benchmark's accept-all provider applications on a thread of their own (appThread.ts starts it): like the
 * separate programs they stand for, they read ReceiveBids and answer SendProcessedBids over the provider API
 * without sharing the nodes' event loop. Their log lines go back to the devnet thread.
 */

import { acceptAll } from "../../node/providerApp/policies.ts";
import { ProviderAgent } from "../../node/providerApp/providerAgent.ts";

declare const self: Worker;

let agents: ProviderAgent[] = [];

self.onmessage = async (
  e: MessageEvent<
    { start: { urls: string[]; idleTimeoutMs?: number; decisions: "request" | "stream" } } | { stop: true }
  >,
) => {
  const m = e.data;
  if ("start" in m) {
    try {
      agents = m.start.urls.map(
        (url, i) =>
          new ProviderAgent(url, acceptAll(), {
            idleTimeoutMs: m.start.idleTimeoutMs,
            decisions: m.start.decisions,
            log: (level, message, fields) =>
              self.postMessage({ log: { level, message, fields: { ...fields, app: i } } }),
          }),
      );
      await Promise.all(agents.map((a) => a.start()));
      self.postMessage({ started: true });
    } catch (err) {
      self.postMessage({ failed: (err as Error).message });
    }
  } else {
    await Promise.allSettled(agents.map((a) => a.stop()));
    self.postMessage({ stopped: agents.flatMap((a) => a.errors) });
  }
};
