import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NodeStore } from "../store/db.ts";
import { JOURNAL_APPLY_MS, recordFromLine, recordToLine } from "./commitmentJournal.ts";
import { CommitmentStore } from "./commitmentStore.ts";
import type { CommitmentRecord } from "./record.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "journal-"));
  dirs.push(dir);
  return join(dir, "node.db");
}

const hex32 = (n: number, salt: number) => (n * 7919 + salt).toString(16).padStart(64, "0");

function record(i: number): CommitmentRecord {
  return {
    digest: hex32(i, 1),
    commitmentIndex: hex32(i, 2),
    commitmentSignature: "ab".repeat(65),
    bidDigest: hex32(i, 3),
    bidSignature: "cd".repeat(65),
    bidder: "bb".repeat(20),
    provider: "aa".repeat(20),
    txnHash: hex32(i, 4),
    revertingTxHashes: "",
    rawTransactions: ["0x02f8"],
    bidAmount: 10n ** 18n + BigInt(i),
    blockNumber: 7n,
    decayStart: 1_764_000_000_000n,
    decayEnd: 1_764_000_012_000n,
    dispatchTimestamp: 1_764_000_000_500n,
    slashAmount: 0n,
    bidderPkX: 2n ** 250n + 1n,
    bidderPkY: 3n,
    sharedX: 4n,
    sharedY: 2n ** 253n,
    status: "pending",
    details: "",
    payment: "",
    refund: "",
  };
}

/** A node on the store at `path` records `records`, then dies as SIGKILL would end it (CommitmentStore.crash). */
async function crashAfterRecording(path: string, ...records: CommitmentRecord[]): Promise<void> {
  const store = new NodeStore(path);
  const commitments = new CommitmentStore(store);
  for (const r of records) await commitments.record(r);
  commitments.crash();
  store.close();
}

/** Rows in the SQLite file itself, read past the CommitmentStore (which would apply its journal first). */
const rowsInSqlite = (store: NodeStore) =>
  store.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM commitments").get()!.n;

describe("commitment journal", () => {
  test("a line keeps every field, big integers included", () => {
    const r = record(5);
    expect(recordFromLine(recordToLine(r))).toEqual(r);
  });

  test("a recorded commitment is read back at once, and reaches SQLite on its own within JOURNAL_APPLY_MS", async () => {
    const store = new NodeStore(dbPath());
    const commitments = new CommitmentStore(store);
    await commitments.record(record(1));
    expect(rowsInSqlite(store)).toBe(0);
    expect(commitments.get(record(1).digest)).toEqual(record(1));

    await commitments.record(record(2));
    await Bun.sleep(JOURNAL_APPLY_MS * 5);
    expect(rowsInSqlite(store)).toBe(2);
    store.close();
  });

  test("a status set in a group commit right after the record finds the commitment", async () => {
    const store = new NodeStore(dbPath());
    const commitments = new CommitmentStore(store);
    await commitments.record(record(3));
    await commitments.setStatusSoon(record(3).digest, "stored");
    expect(commitments.get(record(3).digest)?.status).toBe("stored");
    await Bun.sleep(JOURNAL_APPLY_MS * 5);
    expect(commitments.get(record(3).digest)?.status).toBe("stored");
    store.close();
  });

  test("read inside a transaction that then rolls back, a commitment is back in SQLite at the next read outside one", async () => {
    const store = new NodeStore(dbPath());
    const commitments = new CommitmentStore(store);
    await commitments.record(record(8));
    store.db.exec("BEGIN");
    expect(commitments.get(record(8).digest)).toBeDefined();
    await commitments.record(record(9));
    expect(commitments.count()).toBe(2);
    store.db.exec("ROLLBACK");
    expect(rowsInSqlite(store)).toBe(0);
    expect(commitments.count()).toBe(2);
    expect(rowsInSqlite(store)).toBe(2);
    store.close();
  });

  test("a status update of another commitment inside a transaction leaves the journaled ones to the journal's own", async () => {
    const store = new NodeStore(dbPath());
    const commitments = new CommitmentStore(store);
    store.db.transaction(() => commitments.insert({ ...record(20), status: "pending" }))();
    await commitments.record(record(21));
    store.db.exec("BEGIN");
    expect(commitments.setStatus(record(20).digest, "stored")).toBe(true);
    expect(rowsInSqlite(store)).toBe(1);
    // The journaled one is applied when it is the one read, by digest or by commitment index.
    expect(commitments.byIndex(record(21).commitmentIndex)?.digest).toBe(record(21).digest);
    expect(rowsInSqlite(store)).toBe(2);
    store.db.exec("COMMIT");
    await Bun.sleep(JOURNAL_APPLY_MS * 2);
    expect(rowsInSqlite(store)).toBe(2);
    store.close();
  });

  test("a status moves only forward, and never for a commitment not recorded", async () => {
    const store = new NodeStore(dbPath());
    const commitments = new CommitmentStore(store);
    await commitments.record(record(22));
    expect(commitments.setStatus(record(22).digest, "opened")).toBe(true);
    expect(commitments.setStatus(record(22).digest, "stored")).toBe(false);
    expect(commitments.setStatus(record(22).digest, "failed")).toBe(false);
    expect(commitments.setStatus(record(22).digest, "pending")).toBe(false);
    expect(commitments.setStatus(record(22).digest, "settled", "paid")).toBe(true);
    expect(commitments.setStatus(record(22).digest, "slashed")).toBe(false);
    expect(commitments.get(record(22).digest)).toMatchObject({ status: "settled", details: "paid" });
    expect(commitments.setStatus(record(23).digest, "stored")).toBe(false);
    await commitments.record(record(24));
    expect(commitments.setStatus(record(24).digest, "failed", "refused")).toBe(true);
    expect(commitments.setStatus(record(24).digest, "stored")).toBe(true);
    expect(commitments.setStatus(record(24).digest, "failed")).toBe(true);
    store.close();
  });

  test("a node that crashes leaves its journal, and the next one on the store replays it", async () => {
    const path = dbPath();
    await crashAfterRecording(path, record(0), record(1), record(2));
    const reopened = new NodeStore(path);
    expect(rowsInSqlite(reopened)).toBe(0);
    const after = new CommitmentStore(reopened);
    expect(after.count()).toBe(3);
    expect(after.get(record(2).digest)).toEqual(record(2));
    expect(statSync(`${path}.commitments.log`).size).toBe(0);
    reopened.close();
  });

  test("a clean close puts everything into SQLite and empties the journal", async () => {
    const path = dbPath();
    const store = new NodeStore(path);
    const commitments = new CommitmentStore(store);
    await commitments.record(record(4));
    store.close();
    expect(readFileSync(`${path}.commitments.log`, "utf8")).toBe("");
    const reopened = new NodeStore(path);
    expect(rowsInSqlite(reopened)).toBe(1);
    reopened.close();
  });

  test("a last line cut short by a crash is not replayed; the complete lines are", async () => {
    const path = dbPath();
    await crashAfterRecording(path, record(6));
    appendFileSync(`${path}.commitments.log`, recordToLine(record(7)).slice(0, 100));
    const reopened = new NodeStore(path);
    const after = new CommitmentStore(reopened);
    expect(after.count()).toBe(1);
    expect(after.get(record(6).digest)).toBeDefined();
    reopened.close();
  });

  test("after a SIGKILL right after the last record, every recorded commitment is in the store", async () => {
    const path = dbPath();
    const n = 50;
    // The child records n commitments and kills itself at once, before its journal reaches SQLite.
    const child = Bun.spawn(
      [
        process.execPath,
        "-e",
        `const { NodeStore } = await import(${JSON.stringify(join(import.meta.dir, "../store/db.ts"))});
         const { CommitmentStore } = await import(${JSON.stringify(join(import.meta.dir, "commitmentStore.ts"))});
         const { recordFromLine } = await import(${JSON.stringify(join(import.meta.dir, "commitmentJournal.ts"))});
         const lines = ${JSON.stringify(Array.from({ length: n }, (_, i) => recordToLine(record(100 + i))))};
         const commitments = new CommitmentStore(new NodeStore(${JSON.stringify(path)}));
         for (const line of lines) await commitments.record(recordFromLine(line));
         process.kill(process.pid, "SIGKILL");`,
      ],
      { stdout: "pipe", stderr: "pipe" },
    );
    expect(await child.exited).not.toBe(0);
    expect(child.signalCode).toBe("SIGKILL");
    const store = new NodeStore(path);
    expect(rowsInSqlite(store)).toBeLessThan(n);
    const commitments = new CommitmentStore(store);
    expect(commitments.count()).toBe(n);
    for (let i = 0; i < n; i++) expect(commitments.get(record(100 + i).digest)).toEqual(record(100 + i));
    store.close();
  });
});
