/**
 * The devnet process end to end. Ctrl-C stops it and every child, so it starts again on the same ports. Crash
 * safety: a devnet (with its Anvil children) is killed with SIGKILL under a steady load of bids and a subscriber, then
 * started again on the same
 * data dir; every commitment the bidder acknowledged must still be listed, chain state must be intact, opens and
 * settlements must resume, and so must auto-deposit.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Subprocess, spawn } from "bun";
import { ControlClient } from "../clients/control.ts";
import { call } from "../clients/http.ts";
import { NdjsonStream } from "../clients/ndjson.ts";
import { freePorts } from "../util/ports.ts";

const ROOT = resolve(import.meta.dir, "../..");
const dataDir = mkdtempSync(join(tmpdir(), "mev-commit-crash-"));
const logDir = mkdtempSync(join(tmpdir(), "mev-commit-crash-logs-"));
let proc: Subprocess | undefined;
let starts = 0;

interface Ports {
  bidder: number;
  providers: [number, number];
  bidderRpc: number;
  providerRpcs: [number, number];
  control: number;
  beacon: number;
  bootnode: number;
  bidderP2p: number;
  providerP2p: [number, number];
  l1: number;
  settlement: number;
}

async function ports(): Promise<Ports> {
  // Distinct, and outside the ephemeral range: the devnet's own dials (to its chains, between its nodes) take ports
  // from that range before its last servers bind, on the first start and on the restart.
  const [bidder, p0, p1, control, beacon, bootnode, bidderP2p, p0P2p, p1P2p, l1, settlement, bidderRpc, p0Rpc, p1Rpc] =
    await freePorts(14);
  return {
    bidder: bidder!,
    providers: [p0!, p1!],
    bidderRpc: bidderRpc!,
    providerRpcs: [p0Rpc!, p1Rpc!],
    control: control!,
    beacon: beacon!,
    bootnode: bootnode!,
    bidderP2p: bidderP2p!,
    providerP2p: [p0P2p!, p1P2p!],
    l1: l1!,
    settlement: settlement!,
  };
}

/** Starts `bun node/main.ts` in its own process group and waits for its banner. */
async function startDevnet(p: Ports, fresh: boolean): Promise<Subprocess> {
  const args = [
    "bun",
    "node/main.ts",
    "--data-dir",
    dataDir,
    "--l1-block-time",
    "0",
    "--bidder-port",
    String(p.bidder),
    "--provider-ports",
    p.providers.join(","),
    "--bidder-rpc-port",
    String(p.bidderRpc),
    "--provider-rpc-ports",
    p.providerRpcs.join(","),
    "--control-port",
    String(p.control),
    "--beacon-port",
    String(p.beacon),
    // libp2p ports chosen at listen time: a port picked ahead from the ephemeral range can meanwhile become the
    // local port of the nodes' own dials, and the restart could not bind it (seen under load).
    "--bootnode-port",
    "0",
    "--bidder-p2p-port",
    "0",
    "--provider-p2p-ports",
    "0,0",
    "--l1-port",
    String(p.l1),
    "--settlement-port",
    String(p.settlement),
    "--autodeposit-amount",
    "100000000000000000000",
    // Few kept blocks, so the restart meets a settlement chain that no longer holds the registrations' logs.
    "--settlement-keep-blocks",
    "32",
    "--log-level",
    "debug",
    // Stops by itself if this test process dies without stopping it.
    "--parent-pid",
    String(process.pid),
    ...(fresh ? ["--fresh"] : []),
  ];
  // Output goes to a file (a pipe nobody drains would block the devnet once full); its banner says it is up.
  const log = join(logDir, `devnet-${++starts}.log`);
  const child = spawn(args, { cwd: ROOT, stdout: Bun.file(log), stderr: Bun.file(log), detached: true });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const out = existsSync(log) ? readFileSync(log, "utf8") : "";
    if (out.includes("devnet is up")) break;
    if (child.exitCode !== null) throw new Error(`devnet exited before it was up:\n${out}`);
    if (Date.now() > deadline) throw new Error(`devnet did not start:\n${out}`);
    await Bun.sleep(50);
  }
  return child;
}

/**
 * SIGKILL to the Anvils (each runs in a process group of its own: node/chain/anvil.ts) and to the devnet's process
 * group: the node process and the chains die at once, as in a machine crash, with no state dumped at exit.
 */
async function crash(child: Subprocess): Promise<void> {
  for (const pid of [...anvilPids(), -child.pid]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
  await child.exited;
}

/** The devnet's Anvils, from their pid files (the settlement chain's empty fork source too). */
function anvilPids(): number[] {
  const run = join(dataDir, "run");
  return existsSync(run)
    ? readdirSync(run)
        .filter((f) => /^anvil-.*\.pid$/.test(f))
        .map((f) => Number(readFileSync(join(run, f), "utf8")))
    : [];
}

type Commitment = { commitmentDigest: string; blockNumber: string; providerAddress: string; receivedBidDigest: string };

/** Sends a bid; each commitment line is handed to `onCommitment` the moment it arrives (it is acknowledged then). */
async function bid(
  bidderUrl: string,
  block: bigint,
  n: number,
  onCommitment: (c: Commitment) => void = () => {},
): Promise<Commitment[]> {
  const now = Date.now();
  const s = await NdjsonStream.open<Commitment>("POST", `${bidderUrl}/v1/bidder/bid`, {
    txHashes: [n.toString(16).padStart(64, "0")],
    amount: String(1000 + n),
    blockNumber: block.toString(),
    decayStartTimestamp: String(now),
    decayEndTimestamp: String(now + 60_000),
  });
  const out: Commitment[] = [];
  for (let l = await s.next(); l !== undefined; l = await s.next()) {
    if (!("result" in l)) continue;
    out.push(l.result);
    onCommitment(l.result);
  }
  return out;
}

type BidInfo = {
  blockBidInfo: {
    blockNumber: string;
    bids: { commitments: { providerAddress: string; status: string }[]; bidDigest: string }[];
  }[];
};

async function listedCommitments(
  bidderUrl: string,
): Promise<{ provider: string; status: string; block: string; bid: string }[]> {
  const r = await call("GET", `${bidderUrl}/v1/bidder/get_bid_info?limit=1000`);
  expect(r.status).toBe(200);
  return (r.json as BidInfo).blockBidInfo.flatMap((g) =>
    g.bids.flatMap((b) =>
      b.commitments.map((c) => ({
        provider: c.providerAddress,
        status: c.status,
        block: g.blockNumber,
        bid: b.bidDigest,
      })),
    ),
  );
}

afterAll(async () => {
  if (proc) await crash(proc);
  if (process.env.KEEP_CRASH_DIR) console.log(`crash test data dir kept: ${dataDir}, logs: ${logDir}`);
  else for (const d of [dataDir, logDir]) rmSync(d, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function listening(port: number): Promise<boolean> {
  try {
    const s = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
    s.end();
    return true;
  } catch {
    return false;
  }
}

describe("shutdown", () => {
  test("Ctrl-C stops the devnet and both Anvils; a second start on the same ports works", async () => {
    const p = await ports();
    for (const fresh of [true, false]) {
      proc = await startDevnet(p, fresh);
      const anvils = ["l1", "settlement"].map((n) =>
        Number(readFileSync(join(dataDir, "run", `anvil-${n}.pid`), "utf8")),
      );
      expect(anvils.every(alive)).toBe(true);
      process.kill(proc.pid, "SIGINT");
      expect(await proc.exited).toBe(0);
      proc = undefined;
      expect(anvils.filter(alive)).toEqual([]);
      for (const port of [p.l1, p.settlement, p.bidder, ...p.providers, p.control])
        expect(await listening(port)).toBe(false);
    }
  }, 120_000);
});

describe("crash safety", () => {
  test("SIGKILL under a steady load loses nothing the bidder acknowledged; opens and settlements complete after restart", async () => {
    const p = await ports();
    proc = await startDevnet(p, true);
    // Push the providers' registrations out of the settlement chain's kept blocks: the devnet that starts again
    // must still know them (ProviderDirectory keeps them in its store), or no winner is recorded after the crash.
    const settlementRpc = `http://127.0.0.1:${p.settlement}`;
    const mined = await fetch(settlementRpc, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_mine", params: ["0x40"] }),
    });
    expect(mined.status).toBe(200);
    const bidderUrl = `http://127.0.0.1:${p.bidder}`;
    const control = new ControlClient(`http://127.0.0.1:${p.control}`);
    const received: Commitment[] = [];
    let n = 0;
    // A few blocks of bids that settle, then bids in flight when the crash comes.
    for (let round = 0; round < 3; round++) {
      const next = BigInt((await control.status()).l1.blockNumber) + 1n;
      for (let i = 0; i < 4; i++) received.push(...(await bid(bidderUrl, next, n++)));
      await control.mine(1);
    }
    // The load in flight when the crash comes: a bid every 40 ms for the next block and a subscriber, for 1 s.
    const next = BigInt((await control.status()).l1.blockNumber) + 1n;
    const subscriber = await NdjsonStream.open("POST", `${bidderUrl}/v1/subscribe`, {
      topics: ["commitment_store_failed", "peer_disconnected"],
    });
    void subscriber.all();
    const inFlight: Promise<unknown>[] = [];
    let loading = true;
    const load = (async () => {
      while (loading) {
        inFlight.push(bid(bidderUrl, next, n++, (c) => received.push(c)).catch(() => []));
        await Bun.sleep(40);
      }
    })();
    await Bun.sleep(1_000);
    const sent = n;
    await crash(proc);
    loading = false;
    await load;
    await Promise.allSettled(inFlight);
    // Every line a client got was acknowledged: the bidder records a commitment before it streams it.
    const acknowledged = [...received];
    expect(acknowledged.length).toBeGreaterThanOrEqual(24);
    console.log(
      `crash test: killed with ${sent - 12} bids of the load sent, ${acknowledged.length} commitments acknowledged in all`,
    );

    proc = await startDevnet(p, false);
    // Every commitment the bidder streamed before the crash is still listed: the same bid, the same provider.
    const listed = await listedCommitments(bidderUrl);
    const missing = acknowledged.filter(
      (c) => !listed.some((l) => l.provider === c.providerAddress && l.bid === c.receivedBidDigest),
    );
    expect(
      missing,
      `${missing.length} of ${acknowledged.length} acknowledged commitments missing (${sent} bids sent)`,
    ).toEqual([]);
    expect(listed.length).toBeGreaterThanOrEqual(acknowledged.length);
    // Auto-deposit resumed with the node.
    const ad = await call("GET", `${bidderUrl}/v1/bidder/auto_deposit_status`);
    expect((ad.json as { isAutodepositEnabled: boolean }).isAutodepositEnabled).toBe(true);
    // Chain time moves on: blocks with commitments get winners recorded, the winners open, the oracle settles.
    // The chains may have lost their last second (and so the last blocks): mine until every committed block and
    // the one after it (oracle lag 1) exist again.
    const lastCommitted = listed.reduce((m, c) => (BigInt(c.block) > m ? BigInt(c.block) : m), 0n);
    const head = BigInt((await control.status()).l1.blockNumber);
    await control.mine(Number(lastCommitted + 1n - head > 0n ? lastCommitted + 1n - head : 1n));
    // Bounded, not timed: on a loaded machine the oracle's receipts take a while (the test's own limit is 180 s).
    const deadline = Date.now() + 90_000;
    // Done when, in every block, one provider's commitments are all final (its opens and settlements ran).
    const settledPerBlock = (cs: typeof now) => {
      const blocks = new Set(cs.map((c) => c.block));
      return [...blocks].every((b) => {
        const inBlock = cs.filter((c) => c.block === b);
        return (
          inBlock.some((c) => c.status === "slashed" || c.status === "settled") &&
          !inBlock.some((c) => ["pending", "opened"].includes(c.status))
        );
      });
    };
    let now = await listedCommitments(bidderUrl);
    while (Date.now() < deadline && !settledPerBlock(now)) {
      await Bun.sleep(200);
      now = await listedCommitments(bidderUrl);
    }
    // In each block exactly one provider won: all its commitments were settled (bids by hash name transactions
    // nobody sent, so the oracle slashes them: that is the correct outcome); the other's stay stored.
    const blocks = new Set(now.map((c) => c.block));
    expect(blocks.size).toBeGreaterThanOrEqual(3);
    for (const b of blocks) {
      const byProvider = new Map<string, Set<string>>();
      for (const c of now.filter((x) => x.block === b))
        byProvider.set(c.provider, (byProvider.get(c.provider) ?? new Set()).add(c.status));
      const kinds = [...byProvider.values()].map((set) => [...set].sort().join(","));
      expect(kinds.filter((k) => k === "slashed").length, `block ${b}: ${JSON.stringify(kinds)}`).toBe(1);
      expect(
        kinds.every((k) => k === "slashed" || k === "stored"),
        `block ${b}: ${JSON.stringify(kinds)}`,
      ).toBe(true);
    }
  }, 180_000);
});
