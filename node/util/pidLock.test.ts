/** The data dir's lock: held while its process runs, taken over once that process is gone or its pid reused. */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "bun";
import { acquireLock, LockHeldError, liveHolder, readLock } from "./pidLock.ts";

const dir = mkdtempSync(join(tmpdir(), "mev-commit-pid-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a lock held by a running process is refused, naming it; released, it is gone", async () => {
  const file = join(dir, "live.lock");
  const holder = spawn([
    "bun",
    "-e",
    `require("${import.meta.dir}/pidLock.ts").acquireLock("${file}", { n: 1 }); setInterval(() => {}, 1000)`,
  ]);
  try {
    while (!existsSync(file)) await Bun.sleep(20);
    expect(() => acquireLock(file, { n: 2 })).toThrow(LockHeldError);
    expect(liveHolder<{ n: number }>(file)).toMatchObject({ pid: holder.pid, info: { n: 1 } });
  } finally {
    holder.kill("SIGKILL");
    await holder.exited;
  }
  // Its holder died by SIGKILL: the file stays, stale, and the next process takes it over.
  expect(readLock(file)?.pid).toBe(holder.pid);
  expect(liveHolder(file)).toBeUndefined();
  const lock = acquireLock(file, { n: 3 });
  expect(readLock<{ n: number }>(file)).toMatchObject({ pid: process.pid, info: { n: 3 } });
  expect(() => acquireLock(file, { n: 4 })).toThrow(LockHeldError);
  lock.update({ n: 5 });
  expect(readLock<{ n: number }>(file)?.info).toEqual({ n: 5 });
  lock.release();
  expect(existsSync(file)).toBe(false);
});

test.if(process.platform === "linux")(
  "a lock naming a running pid with another start time (the pid was reused) is stale",
  () => {
    const file = join(dir, "reused.lock");
    writeFileSync(file, JSON.stringify({ pid: process.pid, started: "1", info: {} }));
    expect(liveHolder(file)).toBeUndefined();
    acquireLock(file, {}).release();
  },
);

test("a torn lock file is taken over", () => {
  const file = join(dir, "torn.lock");
  writeFileSync(file, '{"pid": 12');
  const lock = acquireLock(file, { ok: true });
  expect(JSON.parse(readFileSync(file, "utf8")).info).toEqual({ ok: true });
  lock.release();
});
