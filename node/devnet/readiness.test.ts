/**
 * Readiness: no node of a devnet answers /health with 200 before the devnet has written its target file, so a
 * script that waits for health and then reads the file finds it (a stale file of the last run is removed at start).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Subprocess, spawn } from "bun";
import { freePortBase } from "../testing/freePortBase.ts";
import { portsFromBase } from "./config.ts";

const ROOT = resolve(import.meta.dir, "../..");
let proc: Subprocess | undefined;
const dirs: string[] = [];
afterEach(async () => {
  if (proc) {
    proc.kill("SIGINT");
    await proc.exited;
    proc = undefined;
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Starts a devnet and polls the bidder's /health until it first answers 200: whether target.json existed then. */
async function targetFileAtFirstHealth(args: string[]): Promise<boolean> {
  const dataDir = mkdtempSync(join(tmpdir(), "mev-commit-readiness-"));
  dirs.push(dataDir);
  const target = join(dataDir, "target.json");
  // A target file left by an earlier run: it must not count.
  writeFileSync(target, "{}\n");
  const base = await freePortBase(2);
  const bidder = `http://127.0.0.1:${portsFromBase(base, 2).bidderPort}/health`;
  proc = spawn(
    [
      "bun",
      "node/main.ts",
      "--data-dir",
      dataDir,
      "--port-base",
      String(base),
      "--l1-block-time",
      "0",
      "--log-level",
      "warn",
      "--parent-pid",
      String(process.pid),
      ...args,
    ],
    {
      cwd: ROOT,
      stdout: "ignore",
      stderr: "inherit",
    },
  );
  // The stale file is gone before the bidder listens.
  for (const until = Date.now() + 170_000; Date.now() < until && proc.exitCode === null; ) {
    const answered = await fetch(bidder).then(
      (r) => r.status,
      () => 0,
    );
    if (answered === 200) return existsSync(target) && Bun.file(target).size > 3;
    await Bun.sleep(20);
  }
  throw new Error(`the bidder's /health never answered 200 (devnet exit code ${proc.exitCode})`);
}

describe("the target file exists when the bidder's /health first answers 200", () => {
  test("nodes in the devnet's process (libp2p)", async () => {
    expect(await targetFileAtFirstHealth([])).toBe(true);
  }, 180_000);

  test("nodes as processes of their own (--network processes)", async () => {
    expect(await targetFileAtFirstHealth(["--network", "processes"])).toBe(true);
  }, 180_000);
});
