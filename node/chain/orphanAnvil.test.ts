/**
 * killOrphan (startAnvil's and a devnet's guard against an Anvil a SIGKILLed run left behind) kills only the Anvil its
 * pid file names: not a process that merely mentions anvil in its command line (a benchmark), not an Anvil that
 * started after the file was written (the pid went to another process since), and, as a control, the Anvil itself.
 * Real processes, real signals.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Subprocess, spawn } from "bun";
import { alive } from "../testing/devnetChild.ts";
import { freePort } from "../util/ports.ts";
import { anvilBinaryPath, killOrphan } from "./anvil.ts";

const dir = mkdtempSync(join(tmpdir(), "mev-commit-orphan-anvil-"));
const started: Subprocess[] = [];

afterAll(async () => {
  for (const p of started) p.kill("SIGKILL");
  await Promise.all(started.map((p) => p.exited));
  rmSync(dir, { recursive: true, force: true });
});

function run(argv: string[]): Subprocess {
  const p = spawn(argv, { stdout: "ignore", stderr: "ignore" });
  started.push(p);
  return p;
}

/** A real Anvil, once it listens. */
async function anvil(): Promise<Subprocess> {
  const port = await freePort();
  const p = run([anvilBinaryPath(), "--host", "127.0.0.1", "--port", String(port), "--accounts", "1"]);
  const listens = () =>
    fetch(`http://127.0.0.1:${port}`, { method: "POST" }).then(
      () => true,
      () => false,
    );
  for (const until = Date.now() + 30_000; Date.now() < until; await Bun.sleep(100)) if (await listens()) return p;
  throw new Error("anvil did not start");
}

/** Writes a pid file naming `pid` (at `writtenMs`, or now), runs killOrphan on it; whether `pid` survived. */
async function survives(pid: number, writtenMs?: number): Promise<boolean> {
  const file = join(dir, "anvil-test.pid");
  writeFileSync(file, String(pid));
  if (writtenMs !== undefined) utimesSync(file, writtenMs / 1000, writtenMs / 1000);
  killOrphan(file);
  expect(existsSync(file)).toBe(false);
  await Bun.sleep(300);
  return alive(pid);
}

test("a process whose command line only mentions anvil is left alone", async () => {
  const bench = run(["bun", "-e", "setInterval(() => {}, 1000)", "scenarios/bench/anvilMemory.bench.ts"]);
  await Bun.sleep(200);
  expect(await survives(bench.pid)).toBe(true);
});

test("an Anvil that started after its pid file was written (the pid was reused) is left alone", async () => {
  const before = Date.now() - 60_000;
  const other = await anvil();
  expect(await survives(other.pid, before)).toBe(true);
}, 60_000);

test("the Anvil the pid file names, started before the file was written, is killed", async () => {
  const orphan = await anvil();
  expect(await survives(orphan.pid)).toBe(false);
}, 60_000);
