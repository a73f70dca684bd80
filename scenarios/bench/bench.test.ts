// The benchmark's pure parts and its client thread, without a devnet: bid bodies, the open loop's schedule, and the
// client thread's messages (a real HTTP server streaming NDJSON lines like the bidder's SendBid).
import { afterEach, expect, test } from "bun:test";
import { driveOpen } from "./bidPhase.ts";
import { threadBidSender } from "./clientThread.ts";
import { type BidResult, bidBodies } from "./common.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

test("bid bodies: distinct hashes, the block and amount of each index, a shared counter continues the sequence", () => {
  const counter = { next: 0 };
  const a = bidBodies({ seed: 1n, counter, block: (i) => 100n + BigInt(i % 2) });
  const bodies = Array.from({ length: 4 }, () => JSON.parse(a()));
  expect(new Set(bodies.map((b) => b.txHashes[0])).size).toBe(4);
  for (const b of bodies) expect(b.txHashes[0]).toMatch(/^[0-9a-f]{64}$/);
  expect(bodies.map((b) => b.blockNumber)).toEqual(["100", "101", "100", "101"]);
  expect(bodies.map((b) => b.amount)).toEqual(["1000000000", "1000000001", "1000000002", "1000000003"]);
  expect(Number(bodies[0].decayEndTimestamp) - Number(bodies[0].decayStartTimestamp)).toBe(12_000);
  const b = bidBodies({ seed: 1n, counter, block: () => 7n, amount: (i) => i });
  const fifth = JSON.parse(b());
  expect(fifth.amount).toBe("4"); // index 4: the counter went on from the first maker
  expect(bodies.map((x) => x.txHashes[0])).not.toContain(fifth.txHashes[0]);
});

test("open loop: every bid due is sent or counted as not sent, and none beyond maxInFlight is sent", async () => {
  let calls = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const held: BidResult = { status: 200, commitments: 2, endMs: 1 };
  const send = async () => {
    calls++;
    await gate;
    return held;
  };
  // 80 per second for 0.25 s: 20 bids due; nothing answers until the run is over, so 3 go out and 17 are not sent.
  const timer = setTimeout(release, 2_000);
  cleanups.push(() => clearTimeout(timer));
  const d = await driveOpen(send, () => "{}", 80, 0.25, 3);
  expect(calls).toBe(3);
  expect(d.skipped).toBe(17);
  expect(d.results).toHaveLength(3);
});

test("open loop: answers that come back free room for later bids", async () => {
  let calls = 0;
  const send = async () => {
    calls++;
    return { status: 200, commitments: 2, endMs: 0 } satisfies BidResult;
  };
  const d = await driveOpen(send, () => "{}", 100, 0.2, 5);
  expect(calls + d.skipped).toBe(20);
  expect(d.results).toHaveLength(calls);
});

test("client thread: sends each body over HTTP, counts commitment lines, and reports times on this thread's clock", async () => {
  const bodies: string[] = [];
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      bodies.push(await req.text());
      const lines = [
        '{"result":{"receivedBidDigest":"ab12","commitmentDigest":"01"}}\n',
        '{"result":{"receivedBidDigest":"ab12","commitmentDigest":"02"}}\n',
        '{"code":9,"message":"one provider said no"}\n',
      ];
      return new Response(lines.join(""), { headers: { "content-type": "application/x-ndjson" } });
    },
  });
  cleanups.push(() => server.stop(true));
  const client = await threadBidSender("http", `http://127.0.0.1:${server.port}`);
  cleanups.push(() => client.close());
  const before = performance.now();
  const r = await client.send('{"amount":"1"}');
  const after = performance.now();
  expect(bodies).toEqual(['{"amount":"1"}']);
  expect(r.status).toBe(200);
  expect(r.commitments).toBe(2);
  expect(r.digest).toBe("ab12");
  expect(r.errorLine).toBe('{"code":9,"message":"one provider said no"}');
  // The worker's performance.now() starts at its own start; the result is moved onto this thread's clock.
  expect(r.startedAt!).toBeGreaterThanOrEqual(before - 1); // 1 ms for the clocks' rounding; a missing shift is off by the worker's start
  expect(r.startedAt!).toBeLessThanOrEqual(after + 1);
  expect(r.endMs).toBeLessThanOrEqual(after - before);
});

test("client thread: a server that is gone gives a failed result, not a hang", async () => {
  const server = Bun.serve({ port: 0, fetch: () => new Response("") });
  const url = `http://127.0.0.1:${server.port}`;
  server.stop(true);
  const client = await threadBidSender("http", url);
  cleanups.push(() => client.close());
  const r = await client.send("{}");
  expect(r.status).toBe(0);
  expect(r.failure).toBeTruthy();
});
