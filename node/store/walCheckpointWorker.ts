/**
 * The thread that checkpoints the process's stores (walCheckpointer.ts): a connection per database, a passive
 * checkpoint of each every CHECKPOINT_INTERVAL_MS. A database that cannot be checkpointed now (busy, gone) is tried
 * again next time; its node's own connection still checkpoints past SAFETY_AUTOCHECKPOINT_PAGES.
 */
import { Database } from "bun:sqlite";
import { CHECKPOINT_INTERVAL_MS, type CheckpointRequest } from "./walCheckpointer.ts";

declare const self: Worker;

const dbs = new Map<string, Database>();

self.onmessage = (e: MessageEvent<CheckpointRequest>) => {
  const r = e.data;
  if ("add" in r) {
    try {
      if (!dbs.has(r.add)) dbs.set(r.add, new Database(r.add, { strict: true }));
    } catch {
      // The store was closed and removed before this thread got to it.
    }
  } else {
    dbs.get(r.remove)?.close();
    dbs.delete(r.remove);
  }
};

setInterval(() => {
  for (const db of dbs.values())
    try {
      db.exec("PRAGMA wal_checkpoint(PASSIVE)");
    } catch {
      // Busy or closed under us: next time.
    }
}, CHECKPOINT_INTERVAL_MS);
