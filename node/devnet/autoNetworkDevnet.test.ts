/**
 * `npm run node` with no --network (`--network auto`), started as a user starts it, on a machine of 16 cores and of
 * 2 (DEVNET_CORES pretends the count; `bun test` pins 2 for every other test): on 16 a devnet of node processes
 * whose banner says why, and whose explorer records a bid sent through the bidder process with both providers'
 * commitments; on 2 today's devnet, every node on one event loop.
 */
import { afterAll, afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { call } from "../clients/http.ts";
import { NdjsonStream } from "../clients/ndjson.ts";
import type { BidRecord } from "../explorer/bidOutcomes.ts";
import { startDevnetChild, stopDevnetChildren } from "../testing/devnetChild.ts";
import { freePortBase } from "../testing/freePortBase.ts";
import { portsFromBase } from "./config.ts";

const dir = mkdtempSync(join(tmpdir(), "mev-commit-auto-network-"));
afterEach(() => stopDevnetChildren());
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `bun node/main.ts` with no --network, as on a machine of `cores` cores. */
async function startAuto(cores: number) {
  const base = await freePortBase(2);
  const child = await startDevnetChild(
    join(dir, `data-${cores}`),
    ["--fresh", "--port-base", String(base), "--l1-block-time", "0"],
    { log: join(dir, `devnet-${cores}.log`), env: { DEVNET_CORES: String(cores) } },
  );
  const p = portsFromBase(base, 2);
  return { child, bidderUrl: `http://127.0.0.1:${p.bidderPort}`, controlUrl: `http://127.0.0.1:${p.controlPort}` };
}

test("on 16 cores: a process per node with 4 crypto workers; its explorer records a bid with both commitments", async () => {
  const { child, bidderUrl, controlUrl } = await startAuto(16);
  const banner = child.output();
  expect(banner).toContain(
    "network      processes: 16 cores: a process per node, 4 crypto workers each (--network auto;",
  );
  expect(banner).toMatch(/processes {4}one per node \(on this host\): bidder pid \d+, provider-0 pid \d+/);
  const status = (await call("GET", `${controlUrl}/sim/v1/status`)).json as { l1: { blockNumber: string } };
  const block = BigInt(status.l1.blockNumber) + 3n;
  const now = Date.now();
  const lines = await (
    await NdjsonStream.open<{ receivedBidDigest: string }>("POST", `${bidderUrl}/v1/bidder/bid`, {
      txHashes: ["ab".repeat(32)],
      amount: "1000",
      blockNumber: block.toString(),
      decayStartTimestamp: String(now),
      decayEndTimestamp: String(now + 60_000),
    })
  ).all();
  const results = lines.flatMap((l) => ("result" in l ? [l.result] : []));
  expect(results.length).toBe(2);
  const digest = `0x${results[0]!.receivedBidDigest}`;
  let rec: BidRecord | undefined;
  for (let until = Date.now() + 15_000; !rec && Date.now() < until; await Bun.sleep(100)) {
    const r = await call("GET", `${controlUrl}/sim/v1/bids/${digest}`);
    if (r.status === 200 && (r.json as BidRecord).providers.every((p) => p.outcome === "committed"))
      rec = r.json as BidRecord;
  }
  expect(rec?.providers.map((p) => p.outcome)).toEqual(["committed", "committed"]);
}, 180_000);

test("on 2 cores: every node on the devnet's one event loop, as before", async () => {
  const { child } = await startAuto(2);
  const banner = child.output();
  expect(banner).toContain(
    "network      libp2p: 2 cores (a process per node pays from 8): every node on one event loop (--network auto;",
  );
  expect(banner).not.toContain("one per node");
}, 180_000);
