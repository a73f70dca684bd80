/**
 * Ctrl-C right after `npm run bid`, then `npm run node` again on the same data dir, as a user at a terminal does. A
 * terminal's Ctrl-C sends SIGINT to its whole foreground process group: the devnet process and every child it did
 * not move to a group of its own. The nodes must stop before the chains, so the store transactions they still had in
 * flight reach the settlement chain (or stay pending and are sent again at the restart): the commitments end up
 * stored and the winner's settled, nothing "failed". A clean stop and a clean restart log no WARN or ERROR line.
 */
import { afterAll, afterEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawn } from "bun";
import { ControlClient } from "../clients/control.ts";
import { call } from "../clients/http.ts";
import { alive, anvilPids, type DevnetChild, startDevnetChild, stopDevnetChildren } from "../testing/devnetChild.ts";
import { freePortBase } from "../testing/freePortBase.ts";
import { portsFromBase } from "./config.ts";

const ROOT = resolve(import.meta.dir, "../..");
const dataDir = mkdtempSync(join(tmpdir(), "mev-commit-clean-stop-"));
// Beside the data dir, not in it: --fresh empties the data dir.
const logDir = mkdtempSync(join(tmpdir(), "mev-commit-clean-stop-logs-"));
const logs: string[] = [];

// A failed assertion must not leave its devnet running for the next test (or the next user of its ports).
afterEach(() => stopDevnetChildren());
afterAll(() => {
  if (process.env.KEEP_CLEAN_STOP_DIR) console.log(`clean-stop test data dir kept: ${dataDir}, logs: ${logDir}`);
  else for (const d of [dataDir, logDir]) rmSync(d, { recursive: true, force: true });
});

/**
 * `bun node/main.ts` on the test's data dir and ports, in a process group of its own (a terminal's job). L1 blocks
 * are mined only when the test asks (`--l1-block-time 0`), so the block bid for is mined once the restarted devnet
 * serves, never while it stops or starts, however slow the machine. The dispatch window is long, so that a slow
 * restart still stores a commitment the settlement chain lost at a kill.
 */
function startDevnet(base: number, fresh: boolean): Promise<DevnetChild> {
  const log = join(logDir, `devnet-${logs.length + 1}.log`);
  logs.push(log);
  const args = ["--port-base", String(base), "--l1-block-time", "0", "--dispatch-window", "600000"];
  return startDevnetChild(dataDir, [...args, ...(fresh ? ["--fresh"] : [])], { log });
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

/** Most L1 blocks mined past the bid's before the test gives up on seeing it settle. */
const MAX_EXTRA_BLOCKS = 60;

/**
 * Mines up to the block bid for (and the oracle's lag after it), then one block at a time until the bidder lists
 * both commitments, stored and the winner's settled, or MAX_EXTRA_BLOCKS were mined: the outcome depends on what
 * the chains hold, not on how fast this machine is.
 */
async function mineUntilSettled(base: number, block: bigint): Promise<string[]> {
  const ports = portsFromBase(base, 2);
  const control = new ControlClient(`http://127.0.0.1:${ports.controlPort}`);
  const bidderUrl = `http://127.0.0.1:${ports.bidderPort}`;
  const head = BigInt((await control.status()).l1.blockNumber);
  if (block + 1n > head) await control.mine(Number(block + 1n - head));
  const done = (cs: Listed[]) =>
    cs.length === 2 &&
    cs.every((c) => c.status === "stored" || c.status === "settled") &&
    cs.some((c) => c.status === "settled");
  let listed = await bidderCommitments(bidderUrl);
  for (let extra = 0; !done(listed) && extra < MAX_EXTRA_BLOCKS; extra++) {
    await Bun.sleep(500);
    listed = await bidderCommitments(bidderUrl);
    if (!done(listed)) await control.mine(1);
  }
  return listed.map((c) => c.status).sort();
}

/** `npm run bid` against the test's devnet: the block it bid for, once it printed both commitments. */
async function npmRunBid(): Promise<bigint> {
  const bid = spawn(["bun", "scenarios/cli/sendBid.ts", "--target", join(dataDir, "target.json")], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const printed = await new Response(bid.stdout).text();
  expect(await bid.exited, printed + (await new Response(bid.stderr).text())).toBe(0);
  const m = /2 commitment\(s\) for block (\d+)/.exec(printed);
  expect(m, printed).not.toBeNull();
  return BigInt(m![1]!);
}

async function providerCommitments(providerUrl: string): Promise<Listed[]> {
  const r = await call("GET", `${providerUrl}/v1/provider/get_commitment_info`);
  expect(r.status).toBe(200);
  type Info = { commitments: { commitments: { providerAddress: string; status: string; details: string }[] }[] };
  return (r.json as Info).commitments.flatMap((g) =>
    g.commitments.map((c) => ({ provider: c.providerAddress, status: c.status, details: c.details })),
  );
}

/** Neither provider lists a failed commitment, and they list two between them. */
async function noneFailed(base: number): Promise<void> {
  const ports = portsFromBase(base, 2);
  const ofProviders = (
    await Promise.all(ports.providerPorts.map((p) => providerCommitments(`http://127.0.0.1:${p}`)))
  ).flat();
  expect(ofProviders.filter((c) => c.status === "failed")).toEqual([]);
  expect(ofProviders).toHaveLength(2);
}

test("Ctrl-C right after a bid, then a restart: the commitments are stored, the winner's settles, and no WARN or ERROR is logged", async () => {
  const base = await freePortBase(2);
  let run = await startDevnet(base, true);
  const anvils = anvilPids(dataDir);
  expect(anvils).toHaveLength(3);

  // `npm run bid`, and Ctrl-C the moment it prints its commitments: the store transactions are still in flight.
  const block = await npmRunBid();
  expect(await run.ctrlC()).toBe(0);
  expect(anvils.filter(alive)).toEqual([]);

  run = await startDevnet(base, false);
  // The block bid for is mined now that the restarted devnet serves; its winner includes the transaction.
  expect(await mineUntilSettled(base, block)).toEqual(["settled", "stored"]);
  await noneFailed(base);

  expect(await run.ctrlC()).toBe(0);
  expect(logs.flatMap(alarms)).toEqual([]);
}, 300_000);

test.if(existsSync("/usr/bin/setpriv") || existsSync("/bin/setpriv"))(
  "kill -9 of the devnet process right after a bid: its Anvils do not outlive it, and a restart stores and settles the commitments",
  async () => {
    const base = await freePortBase(2);
    const run = await startDevnet(base, true);
    const anvils = anvilPids(dataDir);
    expect(anvils).toHaveLength(3);
    const block = await npmRunBid();
    run.proc.kill("SIGKILL");
    await run.proc.exited;
    // Told by the kernel that their parent died (setpriv --pdeathsig), they dump their state and exit.
    const until = Date.now() + 30_000;
    while (anvils.some(alive) && Date.now() < until) await Bun.sleep(100);
    expect(anvils.filter(alive)).toEqual([]);

    const again = await startDevnet(base, false);
    expect(await mineUntilSettled(base, block)).toEqual(["settled", "stored"]);
    await noneFailed(base);
    expect(await again.ctrlC()).toBe(0);
  },
  300_000,
);
