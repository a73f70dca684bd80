import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NodeStore } from "./db.ts";
import { SAFETY_AUTOCHECKPOINT_PAGES } from "./walCheckpointer.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

// idleMs 60 s: after the first commit every write of a test waits for the group commit, however slow the machine.
function freshStore(idleMs = 60_000): NodeStore {
  const dir = mkdtempSync(join(tmpdir(), "nodestore-"));
  dirs.push(dir);
  const store = new NodeStore(join(dir, "node.db"), { idleMs });
  store.db.exec("CREATE TABLE t (v INTEGER PRIMARY KEY)");
  return store;
}

test("writes queued in one turn share one transaction, and each resolves once it is committed", async () => {
  const store = freshStore();
  // A second connection sees only committed data: what a restarted process would read after a kill -9.
  const other = new Database(store.path, { readonly: true });
  const count = () => other.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM t").get()!.n;
  await store.write(() => store.db.query("INSERT INTO t (v) VALUES (-1)").run()); // idle: committed at once
  const writes = Array.from({ length: 50 }, (_, i) =>
    store.write(() => store.db.query("INSERT INTO t (v) VALUES (?)").run(i)),
  );
  expect(count()).toBe(1); // queued behind a commit less than idleMs ago, not yet committed
  let seenAtResolve = -1;
  writes[0]!.then(() => (seenAtResolve = count()));
  await Promise.all(writes);
  expect(seenAtResolve).toBe(51); // the first write resolved after the whole batch was committed
  other.close();
  store.close();
});

test("an idle store commits a write at once; one written to inside an open transaction waits for the group commit", async () => {
  const store = freshStore(1);
  const other = new Database(store.path, { readonly: true });
  const count = () => other.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM t").get()!.n;
  const first = store.write(() => store.db.query("INSERT INTO t (v) VALUES (1)").run());
  expect(count()).toBe(1); // committed before write() returned: no turn of the loop
  await first;
  await Bun.sleep(5); // more than idleMs since that commit
  store.db.exec("BEGIN"); // e.g. the event poller's transaction for one poll
  const inside = store.write(() => store.db.query("INSERT INTO t (v) VALUES (2)").run());
  store.db.exec("COMMIT");
  expect(count()).toBe(1); // not folded into the caller's transaction
  await inside;
  expect(count()).toBe(2);
  other.close();
  store.close();
});

test("a write that throws rejects alone; the others of its batch commit", async () => {
  const store = freshStore();
  await store.write(() => store.db.query("INSERT INTO t (v) VALUES (0)").run());
  const ok1 = store.write(() => store.db.query("INSERT INTO t (v) VALUES (1)").run());
  const bad = store.write(() => store.db.query("INSERT INTO t (v) VALUES (1)").run()); // duplicate key
  const ok2 = store.write(() => store.db.query("INSERT INTO t (v) VALUES (2)").run());
  await expect(bad).rejects.toThrow(/UNIQUE/);
  await ok1;
  await ok2;
  expect(store.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM t").get()!.n).toBe(3);
  store.close();
});

test("a write that throws half-way leaves none of its statements; the rest of its batch commits", async () => {
  const store = freshStore();
  await store.write(() => store.db.query("INSERT INTO t (v) VALUES (0)").run());
  const ok = store.write(() => store.db.query("INSERT INTO t (v) VALUES (1)").run());
  const half = store.write(() => {
    store.db.query("INSERT INTO t (v) VALUES (10)").run(); // runs, then the write fails
    throw new Error("failed after its first statement");
  });
  await expect(half).rejects.toThrow(/first statement/);
  await ok;
  expect(
    store.db
      .query<{ v: number }, []>("SELECT v FROM t ORDER BY v")
      .all()
      .map((r) => r.v),
  ).toEqual([0, 1]);
  store.close();
});

test("a lone write that throws half-way leaves none of its statements", async () => {
  const store = freshStore();
  await Bun.sleep(5); // idle: the next write commits at once, alone in its transaction
  const half = store.write(() => {
    store.db.query("INSERT INTO t (v) VALUES (20)").run();
    throw new Error("failed after its first statement");
  });
  await expect(half).rejects.toThrow(/first statement/);
  expect(store.db.inTransaction).toBe(false);
  await store.write(() => store.db.query("INSERT INTO t (v) VALUES (21)").run());
  expect(
    store.db
      .query<{ v: number }, []>("SELECT v FROM t ORDER BY v")
      .all()
      .map((r) => r.v),
  ).toEqual([21]);
  store.close();
});

test("close commits what is queued; a write after close rejects", async () => {
  const store = freshStore();
  await store.write(() => store.db.query("INSERT INTO t (v) VALUES (6)").run());
  const queued = store.write(() => store.db.query("INSERT INTO t (v) VALUES (7)").run());
  store.close();
  await queued;
  const again = new NodeStore(store.path);
  expect(again.db.query<{ v: number }, []>("SELECT v FROM t").all()).toEqual([{ v: 6 }, { v: 7 }]);
  again.close();
  const late = store.write(() => store.db.query("INSERT INTO t (v) VALUES (8)").run());
  await expect(late).rejects.toThrow();
});

test("WAL checkpoints run on the checkpointer's thread, not in a node's commits", async () => {
  const store = freshStore(0);
  // A node's own connection checkpoints only past the safety net, far beyond SQLite's default of 1,000 pages.
  expect(
    store.db.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()!.wal_autocheckpoint,
  ).toBe(SAFETY_AUTOCHECKPOINT_PAGES);
  const fileBytes = () => Bun.file(store.path).size;
  const blob = "x".repeat(3_000);
  // ~1,500 pages of WAL: past where the committing connection would checkpoint itself by default.
  for (let i = 0; i < 2_000; i++) {
    store.db.query("INSERT INTO t (v) VALUES (?)").run(i);
    store.setKv(`k${i}`, blob);
  }
  const deadline = Date.now() + 4_000;
  while (fileBytes() < 2_000 * 3_000 && Date.now() < deadline) await Bun.sleep(50);
  expect(fileBytes()).toBeGreaterThan(2_000 * 3_000); // the checkpointer copied the WAL into the database file
  expect(store.getKv("k1999")).toBe(blob);
  store.close();
});
