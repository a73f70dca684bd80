/**
 * A second `npm run node` while a devnet runs: on the same data dir (with --fresh too) it says the devnet is running
 * and exits 2; on another data dir with the same ports it names the busy port and --port-base and exits 2. Either
 * way before it touches anything: the running devnet keeps its chains, its target file and its control API, and
 * still gets commitments for a bid. A devnet killed with SIGKILL leaves a stale lock that does not stop the next
 * start.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawn } from "bun";
import { call } from "../clients/http.ts";
import { alive, anvilPids, runDevnetOnce, startDevnetChild, stopDevnetChildren } from "../testing/devnetChild.ts";
import { freePortBase } from "../testing/freePortBase.ts";
import { portsFromBase } from "./config.ts";

const ROOT = resolve(import.meta.dir, "../..");
const dataDir = mkdtempSync(join(tmpdir(), "mev-commit-second-start-"));
const otherDir = join(tmpdir(), `mev-commit-second-start-other-${process.pid}`);
// Beside the data dir, not in it: --fresh empties the data dir.
const logDir = mkdtempSync(join(tmpdir(), "mev-commit-second-start-logs-"));

afterAll(async () => {
  await stopDevnetChildren();
  for (const d of [dataDir, otherDir, logDir]) rmSync(d, { recursive: true, force: true });
});

/** WARN and ERROR lines of a devnet's log. */
function alarms(log: string): string[] {
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => /^\S+ (WARN|ERROR) /.test(l));
}

/** `npm run bid` against the devnet of `dir`: both providers commit. */
async function bidCommits(dir: string): Promise<void> {
  const bid = spawn(["bun", "scenarios/cli/sendBid.ts", "--target", join(dir, "target.json")], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const printed = await new Response(bid.stdout).text();
  expect(await bid.exited, printed + (await new Response(bid.stderr).text())).toBe(0);
  expect(printed).toContain("2 commitment(s)");
}

test("a second start on the same data dir, then one on another data dir with the same ports: each exits 2 with one line and the running devnet is untouched; after a kill -9 the next start comes up", async () => {
  const base = await freePortBase(2);
  const ports = portsFromBase(base, 2);
  const control = `http://127.0.0.1:${ports.controlPort}`;
  const args = ["--port-base", String(base), "--l1-block-time", "0"];
  const first = await startDevnetChild(dataDir, [...args, "--fresh"], { log: join(logDir, "first.log") });
  const anvils = anvilPids(dataDir);
  expect(anvils).toHaveLength(3);

  const again = await runDevnetOnce(["--data-dir", dataDir, ...args]);
  expect({ code: again.code, stdout: again.stdout, stderr: again.stderr }).toEqual({
    code: 2,
    stdout: "",
    stderr: `error: a devnet is already running on ${dataDir} (pid ${first.proc.pid}, bidder on :${ports.bidderPort})\n`,
  });

  // --fresh would wipe the data dir: refused the same way, before it deletes a file.
  const files = readdirSync(dataDir).sort();
  const fresh = await runDevnetOnce(["--data-dir", dataDir, ...args, "--fresh"]);
  expect([fresh.code, fresh.stderr]).toEqual([2, again.stderr]);
  expect(readdirSync(dataDir).sort()).toEqual(files);

  const elsewhere = await runDevnetOnce(["--data-dir", otherDir, ...args]);
  expect(elsewhere.code).toBe(2);
  expect(elsewhere.stdout).toBe("");
  expect(elsewhere.stderr.trim().split("\n")).toHaveLength(1);
  expect(elsewhere.stderr).toMatch(
    new RegExp(`^error: port ${ports.controlPort} \\(--control-port\\) on 127\\.0\\.0\\.1 is in use.*--port-base`),
  );
  expect(existsSync(otherDir)).toBe(false);

  // The running devnet: its chains, its target file, its control API, and a bid gets both commitments.
  expect(anvils.filter(alive)).toEqual(anvils);
  expect(existsSync(join(dataDir, "target.json"))).toBe(true);
  expect((await call("GET", `${control}/sim/v1/status`)).status).toBe(200);
  await bidCommits(dataDir);
  expect(first.proc.exitCode).toBeNull();
  expect(alarms(first.log)).toEqual([]);

  // kill -9: its lock stays behind, naming a process that is gone; the next start takes it over.
  first.proc.kill("SIGKILL");
  await first.proc.exited;
  const until = Date.now() + 15_000;
  while (anvils.some(alive) && Date.now() < until) await Bun.sleep(100);
  expect(existsSync(join(dataDir, "devnet.lock"))).toBe(true);
  const next = await startDevnetChild(dataDir, args, { log: join(logDir, "next.log") });
  expect((await call("GET", `${control}/sim/v1/status`)).status).toBe(200);
  expect(await next.ctrlC()).toBe(0);
  expect(existsSync(join(dataDir, "devnet.lock"))).toBe(false);
}, 300_000);
