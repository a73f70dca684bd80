/**
 * SendBid from a client on its own thread (clientWorker.ts): the benchmark's default, so that the latency it
 * measures is the nodes' and not the time a client sharing their event loop waited for it.
 */
import type { BidResult } from "./common.ts";

export interface ThreadClient {
  send: (body: string) => Promise<BidResult>;
  close: () => Promise<void>;
}

export async function threadBidSender(transport: "http" | "grpc", url: string): Promise<ThreadClient> {
  const w = new Worker(new URL("./clientWorker.ts", import.meta.url).href);
  const waiting = new Map<number, (r: BidResult) => void>();
  let next = 0;
  let shift = 0;
  let onReady!: () => void;
  let onClosed: (() => void) | undefined;
  const ready = new Promise<void>((r) => (onReady = r));
  w.onmessage = (
    e: MessageEvent<{ id?: number; result?: BidResult; ready?: true; origin?: number; closed?: true }>,
  ) => {
    const m = e.data;
    if (m.ready) {
      // The worker's performance.now() counts from its own start: moved onto this thread's clock.
      shift = m.origin! - performance.timeOrigin;
      onReady();
    } else if (m.closed) onClosed?.();
    else {
      const r = m.result!;
      if (r.startedAt !== undefined) r.startedAt += shift;
      waiting.get(m.id!)?.(r);
      waiting.delete(m.id!);
    }
  };
  w.onerror = (e) => {
    for (const resolve of waiting.values())
      resolve({ status: 0, commitments: 0, endMs: 0, failure: `client thread: ${e.message}` });
    waiting.clear();
  };
  w.postMessage({ init: { transport, url } });
  await ready;
  return {
    send: (body) =>
      new Promise<BidResult>((resolve) => {
        const id = next++;
        waiting.set(id, resolve);
        w.postMessage({ id, body });
      }),
    close: async () => {
      await Promise.race([
        new Promise<void>((r) => {
          onClosed = r;
          w.postMessage({ close: true });
        }),
        Bun.sleep(2_000),
      ]);
      w.terminate();
    },
  };
}
