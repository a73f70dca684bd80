/**
 * Ctrl-C right after `npm run bid`, then `npm run node` again on the same data dir, as a user at a terminal does. A
 * terminal's Ctrl-C sends SIGINT to its whole foreground process group: the devnet process and every child it did
 * not move to a group of its own. The nodes must stop before the chains, so the store transactions they still had in
 * flight reach the settlement chain (or stay pending and are sent again at the restart): the commitments end up
 * stored and the winner's settled, nothing "failed". A clean stop and a clean restart log no WARN or ERROR line.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Subprocess, spawn } from "bun";
import { call } from "../clients/http.ts";
import { freePorts } from "../util/ports.ts";

const ROOT = resolve(import.meta.dir, "../..");
const dataDir = mkdtempSync(join(tmpdir(), "mev-commit-clean-stop-"));
// Beside the data dir, not in it: --fresh empties the data dir.
const logDir = mkdtempSync(join(tmpdir(), "mev-commit-clean-stop-logs-"));
const logs: string[] = [];
let proc: Subprocess | undefined;

afterAll(() => {
  if (proc) {
    try {
      process.kill(-proc.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  if (process.env.KEEP_CLEAN_STOP_DIR) console.log(`clean-stop test data dir kept: ${dataDir}, logs: ${logDir}`);
  else for (const d of [dataDir, logDir]) rmSync(d, { recursive: true, force: true });
});

/** `bun node/main.ts` on the test's data dir and ports, in a process group of its own (a terminal's job). */
async function startDevnet(ports: number[], fresh: boolean): Promise<{ child: Subprocess; log: string }> {
  const [bidder, p0, p1, bidderRpc, p0Rpc, p1Rpc, control, beacon, l1, settlement] = ports;
  const log = join(logDir, `devnet-${logs.length + 1}.log`);
  logs.push(log);
  const args = [
    "bun",
    "node/main.ts",
    "--data-dir",
    dataDir,
    "--bidder-port",
    String(bidder),
    "--provider-ports",
    `${p0},${p1}`,
    "--bidder-rpc-port",
    String(bidderRpc),
    "--provider-rpc-ports",
    `${p0Rpc},${p1Rpc}`,
    "--control-port",
    String(control),
    "--beacon-port",
    String(beacon),
    "--l1-port",
    String(l1),
    "--settlement-port",
    String(settlement),
    "--bootnode-port",
    "0",
    "--bidder-p2p-port",
    "0",
    "--provider-p2p-ports",
    "0,0",
    "--l1-block-time",
    "1",
    ...(fresh ? ["--fresh"] : []),
  ];
  const child = spawn(args, { cwd: ROOT, stdout: Bun.file(log), stderr: Bun.file(log), detached: true });
  proc = child;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const out = existsSync(log) ? readFileSync(log, "utf8") : "";
    if (out.includes("devnet is up")) return { child, log };
    if (child.exitCode !== null) throw new Error(`devnet exited before it was up:\n${out}`);
    if (Date.now() > deadline) throw new Error(`devnet did not start:\n${out}`);
    await Bun.sleep(50);
  }
}

/** Ctrl-C at the devnet's terminal: SIGINT to its whole process group. */
async function ctrlC(child: Subprocess): Promise<number> {
  process.kill(-child.pid, "SIGINT");
  const code = await child.exited;
  proc = undefined;
  return code;
}

/** WARN and ERROR lines of a devnet's log. */
function alarms(log: string): string[] {
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => /^\S+ (WARN|ERROR) /.test(l));
}

type Listed = { provider: string; status: string; details: string };

async function bidderCommitments(bidderUrl: string): Promise<Listed[]> {
  const r = await call("GET", `${bidderUrl}/v1/bidder/get_bid_info?limit=100`);
  expect(r.status).toBe(200);
  type Info = {
    blockBidInfo: { bids: { commitments: { providerAddress: string; status: string; details: string }[] }[] }[];
  };
  return (r.json as Info).blockBidInfo.flatMap((g) =>
    g.bids.flatMap((b) =>
      b.commitments.map((c) => ({ provider: c.providerAddress, status: c.status, details: c.details })),
    ),
  );
}

/** Polls until the bidder lists both commitments of the bid, stored and the winner's settled (or 60 s pass). */
async function settledAndStored(bidderUrl: string): Promise<string[]> {
  const deadline = Date.now() + 60_000;
  let listed = await bidderCommitments(bidderUrl);
  const done = (cs: Listed[]) =>
    cs.length === 2 &&
    cs.every((c) => c.status === "stored" || c.status === "settled") &&
    cs.some((c) => c.status === "settled");
  while (!done(listed) && Date.now() < deadline) {
    await Bun.sleep(250);
    listed = await bidderCommitments(bidderUrl);
  }
  return listed.map((c) => c.status).sort();
}

/** `npm run bid` against the devnet of the test's data dir; resolves once it printed its commitments. */
async function npmRunBid(): Promise<void> {
  const bid = spawn(["bun", "scenarios/cli/sendBid.ts", "--target", join(dataDir, "target.json")], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const printed = await new Response(bid.stdout).text();
  expect(await bid.exited, printed + (await new Response(bid.stderr).text())).toBe(0);
  expect(printed).toContain("2 commitment(s)");
}

/** Whether a process runs (a zombie left for a reaper does not). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

async function providerCommitments(providerUrl: string): Promise<Listed[]> {
  const r = await call("GET", `${providerUrl}/v1/provider/get_commitment_info`);
  expect(r.status).toBe(200);
  type Info = { commitments: { commitments: { providerAddress: string; status: string; details: string }[] }[] };
  return (r.json as Info).commitments.flatMap((g) =>
    g.commitments.map((c) => ({ provider: c.providerAddress, status: c.status, details: c.details })),
  );
}

test("Ctrl-C right after a bid, then a restart: the commitments are stored, the winner's settles, and no WARN or ERROR is logged", async () => {
  const ports = await freePorts(10);
  const bidderUrl = `http://127.0.0.1:${ports[0]}`;
  const providerUrls = [ports[1], ports[2]].map((p) => `http://127.0.0.1:${p}`);
  let run = await startDevnet(ports, true);
  const anvils = ["l1", "settlement"].map((n) => Number(readFileSync(join(dataDir, "run", `anvil-${n}.pid`), "utf8")));

  // `npm run bid`, and Ctrl-C the moment it prints its commitments: the store transactions are still in flight.
  await npmRunBid();
  expect(await ctrlC(run.child)).toBe(0);
  expect(anvils.filter(alive)).toEqual([]);

  run = await startDevnet(ports, false);
  // The block bid for is mined after the restart (a block a second); its winner includes the transaction.
  expect(await settledAndStored(bidderUrl)).toEqual(["settled", "stored"]);
  const ofProviders = (await Promise.all(providerUrls.map(providerCommitments))).flat();
  expect(ofProviders.filter((c) => c.status === "failed")).toEqual([]);
  expect(ofProviders).toHaveLength(2);

  expect(await ctrlC(run.child)).toBe(0);
  expect(logs.flatMap(alarms)).toEqual([]);
}, 180_000);

test.if(existsSync("/usr/bin/setpriv") || existsSync("/bin/setpriv"))(
  "kill -9 of the devnet process right after a bid: its Anvils do not outlive it, and a restart stores and settles the commitments",
  async () => {
    const ports = await freePorts(10);
    const bidderUrl = `http://127.0.0.1:${ports[0]}`;
    const run = await startDevnet(ports, true);
    const anvils = ["l1", "settlement", "settlement-genesis"].map((n) =>
      Number(readFileSync(join(dataDir, "run", `anvil-${n}.pid`), "utf8")),
    );
    await npmRunBid();
    run.child.kill("SIGKILL");
    await run.child.exited;
    proc = undefined;
    // Told by the kernel that their parent died (setpriv --pdeathsig), they dump their state and exit.
    const until = Date.now() + 10_000;
    while (anvils.some(alive) && Date.now() < until) await Bun.sleep(100);
    expect(anvils.filter(alive)).toEqual([]);

    const again = await startDevnet(ports, false);
    expect(await settledAndStored(bidderUrl)).toEqual(["settled", "stored"]);
    const ofProviders = (
      await Promise.all([ports[1], ports[2]].map((p) => providerCommitments(`http://127.0.0.1:${p}`)))
    ).flat();
    expect(ofProviders.filter((c) => c.status === "failed")).toEqual([]);
    expect(await ctrlC(again.child)).toBe(0);
  },
  180_000,
);
