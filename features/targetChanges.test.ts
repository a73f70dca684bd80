/**
 * The record of what a run changed on a target (features/support/targetChanges.ts): where it lives, its round trip
 * through the file, its words, and whether its writer still runs. Putting back is tested end to end in
 * features/cli/interrupt.test.ts.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "bun";
import { type ChangeRecord, describeRecord, readRecord, recordPathFor, writerRuns } from "./support/targetChanges.ts";

const dir = mkdtempSync(join(tmpdir(), "target-changes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const record = (pid: number): ChangeRecord => ({
  pid,
  startedAt: "2026-01-01T00:00:00.000Z",
  target: { name: "t", bidderUrl: "http://127.0.0.1:1" },
  arranged: [
    { kind: "l1-block-time", blockTime: 2 },
    { kind: "built-in-applications", count: 2 },
  ],
  settings: { autoDeposit: { enabled: true, amountPerWindow: 10n ** 19n } },
});

test("the record lives next to the target file and keeps the auto-deposit amount exact", () => {
  expect(recordPathFor(join(dir, "target.json"))).toBe(join(dir, "target.suite-changes.json"));
  const path = recordPathFor(join(dir, "target.json"));
  writeFileSync(
    path,
    JSON.stringify(record(1), (_k, v) => (typeof v === "bigint" ? v.toString() : v)),
  );
  expect(readRecord(path)?.settings?.autoDeposit?.amountPerWindow).toBe(10n ** 19n);
  expect(readRecord(join(dir, "none.json"))).toBeUndefined();
  expect(describeRecord(record(1))).toEqual([
    "L1 blocks paused",
    "the built-in provider applications detached",
    "auto-deposit off",
  ]);
});

test("a record's writer runs only while its process is alive and is a run of the suite", async () => {
  expect(writerRuns(record(process.pid))).toBe(false);
  const other = spawn(["sleep", "30"]);
  const suiteLike = spawn(["bash", "-c", "exec -a conformance-suite sleep 30"]);
  await Bun.sleep(200);
  try {
    expect(writerRuns(record(other.pid))).toBe(false);
    expect(writerRuns(record(suiteLike.pid))).toBe(true);
  } finally {
    other.kill();
    suiteLike.kill();
  }
  await Promise.all([other.exited, suiteLike.exited]);
  expect(writerRuns(record(suiteLike.pid))).toBe(false);
});
