import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

/**
 * A node's durable store: one SQLite file in WAL mode with synchronous=NORMAL. A statement returns once its
 * transaction is written to the WAL file, so whatever a node acknowledged survives a SIGKILL of the node (the
 * write is in the operating system's hands); only a crash of the operating system or a power cut can lose the
 * last transactions, which were not yet fsynced (synchronous=FULL fsyncs every commit: ~5 ms each on the 2-core
 * machine, more than all the rest of a bid; docs/performance.md). Each concern (deposits, commitments, …) creates
 * its own tables through `migrate`.
 */
export class NodeStore {
  readonly db: Database;

  constructor(readonly path: string) {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path, { create: true, strict: true });
    this.db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;");
    this.db.exec("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY)");
    this.db.exec("CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
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
    this.db.query("INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
  }

  deleteKv(key: string): void {
    this.db.query("DELETE FROM kv WHERE key = ?").run(key);
  }

  close(): void {
    this.db.close();
  }
}
