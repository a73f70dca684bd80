/**
 * A second `npm run node -- --role …` on the data dir of a running role node says that node is running and exits 2;
 * one on another data dir with a port the running node listens on names the busy port and exits 2. Either way before
 * it touches anything: the running node keeps serving and its data dir is as it was. A node killed with SIGKILL
 * leaves a stale lock that does not stop the next start; a node stopped with SIGTERM leaves no lock. Real processes.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawn } from "bun";
import { devAccount } from "../chain/accounts.ts";
import { call } from "../clients/http.ts";
import { type LocalDevnet, startLocalDevnet } from "../devnet/localDevnet.ts";
import { alive } from "../testing/devnetChild.ts";
import { type RoleChild, runRoleOnce, startRoleProcess } from "../testing/roleProcess.ts";
import { stopProcesses } from "../testing/stopProcesses.ts";
import { freePort } from "../util/ports.ts";

const ROOT = resolve(import.meta.dir, "../..");
const BIDDER = devAccount(12);
let dev: LocalDevnet;
let dir: string;
const children: RoleChild[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "second-role-node-"));
  dev = await startLocalDevnet({ providers: 1 }, join(ROOT, "reports", "second-role-node.log"));
}, 120_000);

afterAll(async () => {
  try {
    await stopProcesses(children);
  } finally {
    await dev?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);

/** stderr as lines, less the log lines a node prints (there must be none before a refusal). */
const lines = (stderr: string) => stderr.trimEnd().split("\n");

test("a second bidder on the same data dir, then one on another data dir with the same HTTP port: each exits 2 with one line and the running bidder is untouched; after a kill -9 the next one comes up", async () => {
  const dataDir = join(dir, "bidder");
  const bidder = await startRoleProcess(dev.devnet, { role: "bidder", key: BIDDER.privateKey, dataDir, children });
  const port = new URL(bidder.url).port;
  const lock = readFileSync(join(dataDir, "node.lock"), "utf8");
  const files = readdirSync(dataDir).sort();
  const args = ["--role", "bidder", "--key", BIDDER.privateKey, "--contracts", dev.devnet.dir.targetFile];
  const free = async () => String(await freePort());

  const again = await runRoleOnce([...args, "--data-dir", dataDir, "--http-port", await free(), "--p2p-port", "0"]);
  expect(again).toEqual({
    code: 2,
    stdout: "",
    stderr: `error: a bidder node is already running on ${dataDir} (pid ${bidder.proc.pid}, API on :${port})\n`,
  });

  const otherDir = join(dir, "other");
  const busy = await runRoleOnce([...args, "--data-dir", otherDir, "--http-port", port, "--rpc-port", await free()]);
  expect(busy.code).toBe(2);
  expect(busy.stdout).toBe("");
  expect(lines(busy.stderr)).toHaveLength(1);
  expect(busy.stderr).toMatch(new RegExp(`^error: port ${port} \\(--http-port\\) on 127\\.0\\.0\\.1 is in use`));
  expect(existsSync(otherDir)).toBe(false);

  // The running bidder: serving, its lock and its data dir as they were.
  expect(bidder.proc.exitCode).toBeNull();
  expect((await call("GET", `${bidder.url}/health`)).status).toBe(200);
  expect(readFileSync(join(dataDir, "node.lock"), "utf8")).toBe(lock);
  expect(readdirSync(dataDir).sort()).toEqual(files);

  // kill -9: the lock stays behind, naming a process that is gone; the next start takes it over.
  bidder.proc.kill("SIGKILL");
  await bidder.proc.exited;
  expect(existsSync(join(dataDir, "node.lock"))).toBe(true);
  const next = await startRoleProcess(dev.devnet, { role: "bidder", key: BIDDER.privateKey, dataDir, children });
  expect((await call("GET", `${next.url}/health`)).status).toBe(200);
  expect(JSON.parse(readFileSync(join(dataDir, "node.lock"), "utf8")).pid).toBe(next.proc.pid);
  await stopProcesses(children.filter((c) => c.proc === next.proc));
  expect(existsSync(join(dataDir, "node.lock"))).toBe(false);
}, 300_000);

test("a second bootnode on the same data dir exits 2 with one line; the running one keeps its lock", async () => {
  const dataDir = join(dir, "bootnode");
  const args = ["--role", "bootnode", "--key", devAccount(14).privateKey, "--contracts", dev.devnet.dir.targetFile];
  args.push("--data-dir", dataDir, "--p2p-addr", "127.0.0.1");
  const proc = spawn(["bun", "node/main.ts", ...args, "--p2p-port", "0", "--parent-pid", String(process.pid)], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  children.push({ proc, name: "bootnode" });
  let text = "";
  void (async () => {
    for await (const c of proc.stdout) text += new TextDecoder().decode(c);
  })();
  for (const until = Date.now() + 60_000; !/libp2p\s+\//.test(text) && proc.exitCode === null; await Bun.sleep(100))
    if (Date.now() > until) throw new Error(`bootnode did not start:\n${text}`);
  const again = await runRoleOnce([...args, "--p2p-port", "0"]);
  expect([again.code, again.stdout, lines(again.stderr)]).toEqual([
    2,
    "",
    [expect.stringMatching(new RegExp(`^error: a bootnode is already running on ${dataDir} \\(pid ${proc.pid}\\b`))],
  ]);
  expect(alive(proc.pid)).toBe(true);
  expect(JSON.parse(readFileSync(join(dataDir, "node.lock"), "utf8")).pid).toBe(proc.pid);
}, 120_000);
