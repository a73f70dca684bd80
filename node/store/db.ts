import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { checkpointInBackground, SAFETY_AUTOCHECKPOINT_PAGES, stopCheckpointing } from "./walCheckpointer.ts";

/**
 * A node's durable store: one SQLite file in WAL mode with synchronous=NORMAL. A statement returns once its
 * transaction is written to the WAL file, so whatever a node acknowledged survives a SIGKILL of the node (the
 * write is in the operating system's hands); only a crash of the operating system or a power cut can lose the
 * last transactions, which were not yet fsynced (synchronous=FULL fsyncs every commit: ~5 ms each on the 2-core
 * machine, more than all the rest of a bid; docs/performance.md). WAL checkpoints run on a thread of their own
 * (walCheckpointer.ts). Each concern (deposits, commitments, …) creates
 * its own tables through `migrate`. New commitments reach it through a journal of their own first
 * (node/tracker/commitmentJournal.ts): as durable, one write(2) on the bid path instead of a commit.
 */
export class NodeStore {
  readonly db: Database;
  /** Writes waiting for the next group commit (`write`). */
  private queued: { fn: () => void; resolve: () => void; reject: (e: unknown) => void }[] = [];
  /** When the last group commit ran (performance.now()); `write` commits at once when it is older than `idleMs`. */
  private lastCommitAt = -Infinity;
  private readonly idleMs: number;
  /** Runs one write of a group commit in a savepoint of its own (bun:sqlite nests a transaction as a savepoint). */
  private readonly inSavepoint: (fn: () => void) => void;
  private closed = false;
  private readonly closeHooks: (() => void)[] = [];

  /** `idleMs`: how long after a commit a new write still waits for the next group commit (default 1 ms; `write`). */
  constructor(
    readonly path: string,
    opts: { idleMs?: number } = {},
  ) {
    this.idleMs = opts.idleMs ?? 1;
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path, { create: true, strict: true });
    // The busy timeout first: the checkpointer thread (walCheckpointer.ts) may hold the database for a moment.
    this.db.exec("PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    if (path !== ":memory:") {
      // Checkpoints run on a thread of their own (walCheckpointer.ts), not in the commit that crosses 1,000 pages.
      this.db.exec(`PRAGMA wal_autocheckpoint = ${SAFETY_AUTOCHECKPOINT_PAGES}`);
      checkpointInBackground(path);
    }
    this.db.exec("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY)");
    this.db.exec("CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    this.inSavepoint = this.db.transaction((fn: () => void) => fn());
  }

  /** Runs `sql` once per store file, identified by `name`. */
  migrate(name: string, sql: string): void {
    const done = this.db.query("SELECT 1 FROM migrations WHERE name = ?").get(name);
    if (done) return;
    this.db.transaction(() => {
      this.db.exec(sql);
      this.db.query("INSERT INTO migrations (name) VALUES (?)").run(name);
    })();
  }

  getKv(key: string): string | undefined {
    const row = this.db.query<{ value: string }, [string]>("SELECT value FROM kv WHERE key = ?").get(key);
    return row?.value;
  }

  setKv(key: string, value: string): void {
    this.db
      .query("INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
      .run(key, value);
  }

  deleteKv(key: string): void {
    this.db.query("DELETE FROM kv WHERE key = ?").run(key);
  }

  /**
   * Group commit: `fn`'s statements run in one transaction with every other write queued in the same turn of the
   * event loop, and the promise resolves once that transaction is committed (in the WAL file, like a single
   * statement). Under load this turns hundreds of commits per second (each a WAL append with its locking) into a
   * few. When the store is idle (nothing queued, the last commit more than `idleMs` ago, no transaction open on
   * the connection) `fn` is committed at once in a transaction of its own: a lone write (one bid in flight) then
   * does not wait a turn of the loop behind whatever else the loop holds. A write that throws rejects alone and
   * leaves none of its statements (each write runs in a savepoint); the others commit.
   */
  write(fn: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!this.queued.length && !this.db.inTransaction && performance.now() - this.lastCommitAt > this.idleMs) {
        this.queued.push({ fn, resolve, reject });
        this.flush();
        return;
      }
      if (!this.queued.length) setImmediate(() => this.flush());
      this.queued.push({ fn, resolve, reject });
    });
  }

  /** Commits the queued writes now (`write` schedules it; `close` runs it first). */
  flush(): void {
    const batch = this.queued;
    if (!batch.length) return;
    this.queued = [];
    const failed = new Map<(typeof batch)[number], unknown>();
    try {
      this.db.transaction(() => {
        // Alone in its transaction, a write needs no savepoint: its throw rolls the transaction back, and it is
        // rejected below with every write of the batch (itself).
        if (batch.length === 1) return batch[0]!.fn();
        for (const w of batch)
          try {
            this.inSavepoint(w.fn);
          } catch (e) {
            failed.set(w, e);
          }
      })();
    } catch (e) {
      for (const w of batch) w.reject(e);
      return;
    } finally {
      this.lastCommitAt = performance.now();
    }
    for (const w of batch) failed.has(w) ? w.reject(failed.get(w)) : w.resolve();
  }

  /** Runs `fn` when the store closes, after the queued writes and before the database closes: a concern's last writes. */
  onClose(fn: () => void): void {
    this.closeHooks.push(fn);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    try {
      this.flush();
      for (const hook of this.closeHooks.splice(0)) hook();
    } finally {
      this.db.close();
      if (!this.closed && this.path !== ":memory:") stopCheckpointing(this.path);
      this.closed = true;
    }
  }
}
