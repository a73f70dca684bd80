/**
 * WAL checkpoints on a thread of their own.
 *
 * SQLite checkpoints a WAL-mode database from the connection whose commit takes the WAL past 1,000 pages: that one
 * commit then copies the WAL into the database file and fsyncs it, 10 to 25 ms on the 2-core machine, on the event
 * loop every node of the process shares. With one bid in flight those commits were the whole p99 (the slowest 1 %
 * of bids spent ~8 ms in each of two records; docs/performance.md). So a node's connection never checkpoints in
 * normal operation (`wal_autocheckpoint` is raised to a safety net far above what a second of writes makes), and a
 * worker thread with connections of its own runs a passive checkpoint of every store of the process every
 * `CHECKPOINT_INTERVAL_MS`: it copies what no reader still needs and never blocks a writer. Durability is
 * unchanged: a commit is in the WAL file before it returns either way, and a WAL is replayed after a crash.
 */
export const CHECKPOINT_INTERVAL_MS = 500;

/** Pages after which a node's own connection still checkpoints (~200 MiB of WAL): only if the worker is gone. */
export const SAFETY_AUTOCHECKPOINT_PAGES = 50_000;

export type CheckpointRequest = { add: string } | { remove: string };

let worker: Worker | undefined;
const paths = new Map<string, number>();

function checkpointer(): Worker {
  if (!worker) {
    worker = new Worker(new URL("./walCheckpointWorker.ts", import.meta.url).href);
    worker.unref();
    worker.addEventListener("error", () => {
      // The safety net (SAFETY_AUTOCHECKPOINT_PAGES) bounds the WAL meanwhile; the next store starts a new worker.
      worker = undefined;
    });
    for (const path of paths.keys()) worker.postMessage({ add: path } satisfies CheckpointRequest);
  }
  return worker;
}

/** From now on the worker checkpoints the WAL of the database at `path` (counted: one remove per add). */
export function checkpointInBackground(path: string): void {
  const known = paths.has(path);
  paths.set(path, (paths.get(path) ?? 0) + 1);
  const w = checkpointer();
  if (!known) w.postMessage({ add: path } satisfies CheckpointRequest);
}

/** Stops checkpointing `path` once each store that asked has closed. */
export function stopCheckpointing(path: string): void {
  const n = (paths.get(path) ?? 0) - 1;
  if (n > 0) return void paths.set(path, n);
  paths.delete(path);
  worker?.postMessage({ remove: path } satisfies CheckpointRequest);
}
