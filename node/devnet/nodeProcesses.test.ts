/**
 * A devnet whose bidder and provider nodes are `--role` processes (`--network netns` where network namespaces can be
 * made, each node on a host of its own; else `--network processes` on loopback): the control API's operations reach
 * the processes. A provider killed with a real SIGKILL comes back on its store and ports and commits again; a fault
 * the node refuses comes back with the node's own code and message.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseEther } from "viem";
import { call } from "../clients/http.ts";
import { NdjsonStream } from "../clients/ndjson.ts";
import type { BidRecord } from "../explorer/bidOutcomes.ts";
import { windowOfBlock } from "../protocol/windows.ts";
import { cannotMakeHosts } from "../role/netnsHosts.ts";
import { bidProviders } from "../testing/bidProviders.ts";
import { type LocalDevnet, startLocalDevnet } from "./localDevnet.ts";

const noNetns = cannotMakeHosts();
const network = noNetns ? "processes" : "netns";
if (noNetns) console.warn(`node processes test on loopback (--network processes), not in namespaces: ${noNetns}`);

let local: LocalDevnet;

beforeAll(async () => {
  local = await startLocalDevnet(
    { network, providers: 2, autoAccept: true, autodepositAmount: undefined },
    "reports/node-processes-devnet.log",
  );
}, 180_000);

afterAll(async () => {
  await local?.stop();
}, 60_000);

const control = (path: string, body?: unknown) =>
  call("POST", `${local.devnet.controlUrl}/sim/v1${path}`, body === undefined ? {} : { body });

describe(`a devnet of node processes (--network ${network})`, () => {
  test("each node is a process of its own, on its own host with netns", async () => {
    const procs = local.devnet.procs!;
    const pids = [procs.bidder, ...procs.providers].map((p) => p.pid);
    expect(new Set([process.pid, ...pids]).size).toBe(4);
    if (network === "netns")
      expect(new URL(local.devnet.nodeEndpoints().bidder.url).hostname).toBe(procs.hosts!.ipOf("bidder"));
    const status = (await call("GET", `${local.devnet.controlUrl}/sim/v1/status`)).json as {
      nodes: { name: string; running: boolean; receivers?: number }[];
    };
    expect(status.nodes.map((n) => [n.name, n.running])).toEqual([
      ["bidder", true],
      ["provider-0", true],
      ["provider-1", true],
    ]);
  });

  test("a provider killed with SIGKILL comes back on its store and ports and commits to new bids", async () => {
    const d = local.devnet;
    const { bidder, providers } = d.nodeEndpoints();
    const all = providers.map((p) => p.address.toLowerCase()).sort();
    const block = (await d.driver.blockNumber()) + 3n;
    expect(
      (await call("POST", `${bidder.url}/v1/bidder/deposit/${parseEther("5")}?window_number=${windowOfBlock(block)}`))
        .status,
    ).toBe(200);
    expect((await bidProviders(bidder.url, block, 1)) as string[]).toEqual(all);

    const oldPid = d.procs!.providers[0]!.pid;
    const killed = await control("/nodes/provider-0/kill");
    expect(killed.status).toBe(200);
    expect((killed.json as { url: string }).url).toBe(providers[0]!.url);
    expect(d.procs!.providers[0]!.pid).not.toBe(oldPid);
    // Its accept-all application (--auto-accept) starts with the new process; bid until it answers again.
    let got: string[] = [];
    for (
      let i = 2, until = Date.now() + 30_000;
      got.join() !== all.join() && Date.now() < until;
      i++, await Bun.sleep(200)
    )
      got = (await bidProviders(bidder.url, block, i)) as string[];
    expect(got).toEqual(all);
  }, 90_000);

  test("each bid through the bidder process shows in /sim/v1/bids/{digest} with both commitments, also after the bidder is killed", async () => {
    const d = local.devnet;
    const { bidder, providers } = d.nodeEndpoints();
    const block = (await d.driver.blockNumber()) + 3n;
    expect(
      (await call("POST", `${bidder.url}/v1/bidder/deposit/${parseEther("5")}?window_number=${windowOfBlock(block)}`))
        .status,
    ).toBe(200);
    /** One bid; once the bidder's stream ends, the devnet's record of it with both providers' outcomes. */
    const bidAndRecord = async (n: number) => {
      const now = Date.now();
      const lines = await (
        await NdjsonStream.open<{ receivedBidDigest: string; commitmentDigest: string }>(
          "POST",
          `${bidder.url}/v1/bidder/bid`,
          {
            txHashes: [(0xe0 + n).toString(16).padStart(64, "0")],
            amount: "1000",
            blockNumber: block.toString(),
            decayStartTimestamp: String(now),
            decayEndTimestamp: String(now + 60_000),
          },
        )
      ).all();
      const results = lines.flatMap((l) => ("result" in l ? [l.result] : []));
      expect(results.length).toBe(2);
      const digest = `0x${results[0]!.receivedBidDigest}`;
      let rec: BidRecord | undefined;
      for (let until = Date.now() + 15_000; Date.now() < until; await Bun.sleep(100)) {
        const r = await call("GET", `${d.controlUrl}/sim/v1/bids/${digest}`);
        if (r.status === 200 && (r.json as BidRecord).providers.every((p) => p.outcome !== "pending")) {
          rec = r.json as BidRecord;
          break;
        }
      }
      expect(rec).toBeDefined();
      expect(rec!.digest).toBe(digest);
      expect(rec!.bidder).toBe(bidder.address.toLowerCase());
      expect(rec!.blockNumber).toBe(block.toString());
      expect(rec!.providers.map((p) => [p.provider, p.outcome]).sort()).toEqual(
        providers.map((p) => [p.address.toLowerCase(), "committed"]).sort(),
      );
      expect(rec!.providers.map((p) => p.commitment!.digest).sort()).toEqual(
        results.map((r) => `0x${r.commitmentDigest}`).sort(),
      );
      return rec!;
    };
    const first = await bidAndRecord(1);
    // Its commitments' lifecycle comes from the chain as for in-process nodes: each is stored.
    for (let until = Date.now() + 30_000; Date.now() < until; await Bun.sleep(200)) {
      const r = (await call("GET", `${d.controlUrl}/sim/v1/bids/${first.digest}`)).json as BidRecord;
      if (r.providers.every((p) => p.lifecycle.stored)) break;
    }
    const stored = (await call("GET", `${d.controlUrl}/sim/v1/bids/${first.digest}`)).json as BidRecord;
    expect(stored.providers.map((p) => Boolean(p.lifecycle.stored))).toEqual([true, true]);
    // The bidder process killed (SIGKILL) and started again: the devnet follows the new process's bid events.
    expect((await control("/nodes/bidder/kill")).status).toBe(200);
    await bidAndRecord(2);
    const list = (await call("GET", `${d.controlUrl}/sim/v1/bids?limit=10`)).json as { bids: BidRecord[] };
    expect(list.bids.length).toBeGreaterThanOrEqual(2);
  }, 120_000);

  test("the explorer page's live stream carries the bidder process's notifications", async () => {
    const d = local.devnet;
    const sse = await fetch(`${d.controlUrl}/explorer/api/events`);
    expect(sse.status).toBe(200);
    let text = "";
    const reader = sse.body!.getReader();
    const reading = (async () => {
      const dec = new TextDecoder();
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += dec.decode(r.value, { stream: true });
    })().catch(() => {});
    try {
      // The page's subscription to the bidder opens as it joins: leave a provider (and come back) until it is heard.
      for (
        let until = Date.now() + 30_000;
        !/event: note\ndata: .*peer_disconnected/.test(text) && Date.now() < until;
      ) {
        await Bun.sleep(1_000);
        expect((await control("/providers/1/stop")).status).toBe(200);
        expect((await control("/providers/1/start")).status).toBe(200);
        await Bun.sleep(500);
      }
      expect(text).toMatch(/event: note\ndata: .*peer_disconnected/);
    } finally {
      await reader.cancel().catch(() => {});
      await reading;
    }
  }, 60_000);

  test("a provider process still starting has no bundles for the builder and no counts, rather than an error", async () => {
    const p = local.devnet.procs!.providers[1]!;
    expect((await control("/providers/1/stop")).status).toBe(200);
    const starting = p.start();
    // Spawned (running) but not yet serving: what the builder asks at every L1 block, and /sim/v1/status.
    expect([p.running, p.serving]).toEqual([true, false]);
    expect(await p.bundlesFor(1n)).toEqual([]);
    expect((await call("GET", `${local.devnet.controlUrl}/sim/v1/status`)).status).toBe(200);
    await starting;
    expect(p.serving).toBe(true);
    await local.devnet.settle();
  }, 60_000);

  test("a kill after-ack says to start the devnet with --network libp2p", async () => {
    const r = await control("/nodes/provider-1/kill", { at: "after-ack" });
    expect(r.status).toBe(400);
    expect((r.json as { message: string }).message).toContain("start it with --network libp2p");
  });

  test("a fault the node refuses comes back with the node's code and message", async () => {
    const r = await control("/faults", { node: "bidder", fail: "store" });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      code: 3,
      message: "the bidder node sends no store transactions; fault must be open or none",
    });
    expect(
      (await control("/faults", { node: local.devnet.nodeEndpoints().providers[1]!.address, fail: "none" })).status,
    ).toBe(200);
  });
});
