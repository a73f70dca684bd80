/**
 * The loop of an IntervalMiner (intervalMiner.ts) on a thread of its own: evm_mine every `intervalMs`, start to
 * start, one request at a time; with `idleIntervalMs`, a tick that finds no pending transaction mines only when the
 * last block is that old. It tells the miner when mining fails and when it works again (the miner logs it).
 */
import { jsonRpc } from "./jsonRpc.ts";

declare const self: Worker;

export type MinerCommand = { start: { rpcUrl: string; intervalMs: number; idleIntervalMs?: number } } | { stop: true };
export type MinerReport = { failed: string } | { recovered: number };

let running = false;
let timer: ReturnType<typeof setTimeout> | undefined;

const call = <T>(rpcUrl: string, method: string) => jsonRpc<T>(rpcUrl, method, [], 10_000);

async function loop(rpcUrl: string, intervalMs: number, idleIntervalMs: number | undefined): Promise<void> {
  let failures = 0;
  let lastMined = performance.now();
  while (running) {
    const started = performance.now();
    try {
      const idle =
        idleIntervalMs !== undefined &&
        started - lastMined < idleIntervalMs &&
        Number((await call<{ pending: string }>(rpcUrl, "txpool_status")).pending) === 0;
      if (!idle) {
        await call(rpcUrl, "evm_mine");
        lastMined = started;
      }
      if (failures) self.postMessage({ recovered: failures } satisfies MinerReport);
      failures = 0;
    } catch (e) {
      // The chain is stopping, or stalled for a moment: try again at the next tick; say so once.
      if (running && failures++ === 0) self.postMessage({ failed: (e as Error).message } satisfies MinerReport);
    }
    await new Promise<void>((r) => (timer = setTimeout(r, Math.max(0, intervalMs - (performance.now() - started)))));
  }
}

self.onmessage = (e: MessageEvent<MinerCommand>) => {
  if ("start" in e.data) {
    if (running) return;
    running = true;
    void loop(e.data.start.rpcUrl, e.data.start.intervalMs, e.data.start.idleIntervalMs);
  } else {
    running = false;
    clearTimeout(timer);
  }
};
