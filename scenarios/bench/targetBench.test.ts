// `npm run bench:bids -- --target FILE` against a real devnet (the default libp2p network, accept-all providers):
// the command reads the devnet's target file, sends its bids through the bidder's HTTP API and prints the table.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { parseEther } from "viem";
import { stopAllAnvils } from "../../node/chain/anvil.ts";
import { DEFAULTS, type DevnetConfig } from "../../node/devnet/config.ts";
import { type Devnet, startDevnet } from "../../node/devnet/startDevnet.ts";
import { setLogSink } from "../../node/util/log.ts";
import { freePort } from "../../node/util/ports.ts";
import { targetTableLines } from "./targetBench.ts";

const ROOT = resolve(import.meta.dir, "../..");
const dataDir = mkdtempSync(join(os.tmpdir(), "mev-commit-target-bench-"));
let devnet: Devnet;
setLogSink(() => {});

beforeAll(async () => {
  devnet = await startDevnet({
    ...DEFAULTS,
    dataDir,
    fresh: true,
    providers: 2,
    bidderPort: 0,
    providerPorts: [0, 0],
    bidderRpcPort: 0,
    providerRpcPorts: [0, 0],
    controlPort: 0,
    beaconPort: 0,
    l1Port: await freePort(),
    settlementPort: await freePort(),
    l1BlockTime: 0,
    autoAccept: true,
    autodepositAmount: parseEther("100"),
    logLevel: "error",
    bootnodePort: 0,
    bidderP2pPort: 0,
    providerP2pPorts: [0, 0],
  } as DevnetConfig);
}, 120_000);

afterAll(async () => {
  await devnet?.stop();
  await stopAllAnvils();
  rmSync(dataDir, { recursive: true, force: true });
});

async function bench(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn(["bun", "scenarios/bench/bids.bench.ts", ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

test("the default devnet is on libp2p", () => {
  expect(devnet.config.network).toBe("libp2p");
});

test("--target: a row per level, every bid with one commitment per provider, nothing short", async () => {
  const targetFile = join(dataDir, "target.json");
  expect(existsSync(targetFile)).toBe(true);
  const { code, out, err } = await bench([
    "--target",
    targetFile,
    "--in-flight",
    "1,3",
    "--target-bids",
    "6",
    "--warmup",
    "1",
  ]);
  expect(err).toBe("");
  expect(code).toBe(0);
  const lines = out.trim().split("\n");
  expect(lines[0]).toMatch(/^machine: \d+ cores, .+; Bun \d/);
  expect(lines[1]).toContain(`(${devnet.target().bidderUrl}), 2 providers; 6 bids per level`);
  const header = lines.findIndex((l) => l.trimStart().startsWith("in flight"));
  expect(lines[header]).toMatch(
    /in flight\s+bids\s+bids\/s\s+commitments\/s\s+first p50\s+first p99\s+commitments\/bid\s+short \(< 2\)\s+errors/,
  );
  const rows = lines.slice(header + 1).map((l) => l.trim().split(/\s{2,}/));
  expect(rows.map((r) => r[0])).toEqual(["1", "3"]);
  for (const r of rows) {
    expect(r[1]).toBe("6"); // bids
    expect(Number(r[3])).toBeCloseTo(2 * Number(r[2]), 0); // commitments/s: two per bid
    expect(r[4]).toMatch(/^\d+\.\d ms$/); // first commitment p50
    expect(r[6]).toBe("2.00"); // commitments per bid
    expect(r[7]).toBe("0"); // short bids
    expect(r[8]).toBe("0"); // errors
  }
}, 120_000);

test("--pid: one process gives its CPU and its main thread's per bid; several give their CPU summed", async () => {
  const targetFile = join(dataDir, "target.json");
  const run = async (pids: string) => {
    const args = ["--target", targetFile, "--in-flight", "2", "--target-bids", "4", "--warmup", "0", "--pid", pids];
    const { code, out, err } = await bench(args);
    expect(err).toBe("");
    expect(code).toBe(0);
    const lines = out.trim().split("\n");
    const header = lines.findIndex((l) => l.trimStart().startsWith("in flight"));
    expect(lines[header]).toMatch(/errors\s+CPU\/bid\s+loop CPU\/bid\s+load average/);
    return lines[header + 1]!.trim().split(/\s{2,}/);
  };
  // The devnet runs in this test's process.
  const one = await run(String(process.pid));
  expect(one[9]).toMatch(/^\d+\.\d\d ms$/);
  expect(one[10]).toMatch(/^\d+\.\d\d ms$/);
  const two = await run(`${process.pid},${process.ppid}`);
  expect(two[9]).toMatch(/^\d+\.\d\d ms$/);
  expect(two[10]).toBe("n/a");
}, 120_000);

test("--target: a target file that cannot be read is a one-line error, exit 2", async () => {
  const bad = join(dataDir, "not-a-target.json");
  writeFileSync(bad, "{}");
  const { code, err } = await bench(["--target", bad]);
  expect(code).toBe(2);
  expect(err.trim()).toBe(`error: the target file ${bad} has no bidderUrl, l1RpcUrl or providerAddresses`);
}, 30_000);

test("the table counts a bid short of one commitment per provider, and the commitments per second", () => {
  const lines = targetTableLines(
    [
      {
        inFlight: 8,
        bids: 10,
        firstP50: 4.25,
        firstP99: 19,
        commitmentsPerBid: 1.9,
        short: 1,
        errors: 0,
        bidsPerSec: 99,
        commitmentsPerSec: 188.1,
        load: "1.50 1.00 0.50",
      },
    ],
    2,
  );
  expect(lines[1]!.trim().split(/\s{2,}/)).toEqual([
    "8",
    "10",
    "99.0",
    "188.1",
    "4.3 ms",
    "19.0 ms",
    "1.90",
    "1",
    "0",
    "1.50",
  ]);
});
