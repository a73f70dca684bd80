/**
 * Bad input and abuse against a real devnet (issue 10): every case answers 4xx with the right gRPC code and a
 * message that says what to change, the nodes stay up, and the largest body a route accepts does not stall the
 * other clients: a normal bid sent meanwhile still gets both commitments within the nodes' 5 s timeouts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseEther } from "viem";
import { NdjsonStream } from "../../clients/ndjson.ts";
import { type LocalDevnet, startLocalDevnet } from "../../devnet/localDevnet.ts";
import { BODY_LIMITS } from "./limits.ts";

let local: LocalDevnet;
let bidderUrl: string;
let providerUrl: string;

beforeAll(async () => {
  local = await startLocalDevnet(
    { autoAccept: true, autodepositAmount: parseEther("10"), bidTimeoutMs: 5_000, decisionTimeoutMs: 5_000 },
    "reports/abuse-test-devnet.log",
  );
  bidderUrl = local.devnet.bidder.url;
  providerUrl = local.devnet.providers[0]!.url;
}, 120_000);

afterAll(async () => {
  await local?.stop();
});

let n = 0;
async function bidBody(extra: Record<string, unknown> = {}) {
  const block = (await local.devnet.driver.blockNumber()) + 1n;
  const now = Date.now();
  return {
    txHashes: [(++n).toString(16).padStart(64, "0")],
    amount: "1000",
    blockNumber: block.toString(),
    decayStartTimestamp: String(now),
    decayEndTimestamp: String(now + 60_000),
    ...extra,
  };
}

/** Sends a normal bid; resolves with its commitments and how long the stream took. */
async function normalBid(): Promise<{ commitments: number; ms: number }> {
  const t0 = performance.now();
  const lines = await (await NdjsonStream.open("POST", `${bidderUrl}/v1/bidder/bid`, await bidBody())).all();
  return { commitments: lines.filter((l) => "result" in l).length, ms: performance.now() - t0 };
}

async function post(
  url: string,
  body: string | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any; ms: number }> {
  const t0 = performance.now();
  const r = await fetch(url, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
  const text = await r.text();
  let json: unknown;
  try {
    json = JSON.parse(text.trim().split("\n")[0] ?? "");
  } catch {
    json = text;
  }
  return { status: r.status, json, ms: performance.now() - t0 };
}

/**
 * POSTs each body from a separate process (as an abusive client would), all at once; resolves with their HTTP
 * statuses and times. The bodies are written to a temp file the child reads.
 */
async function postFromAnotherProcess(
  requests: { url: string; body: string }[],
): Promise<{ status: number; ms: number }[]> {
  const file = join(mkdtempSync(join(tmpdir(), "abuse-")), "requests.json");
  writeFileSync(file, JSON.stringify(requests));
  const script = `
    const reqs = JSON.parse(await Bun.file(${JSON.stringify(file)}).text());
    const out = await Promise.all(reqs.map(async (r) => {
      const t0 = performance.now();
      const res = await fetch(r.url, { method: "POST", body: r.body, headers: { "content-type": "application/json" } });
      await res.text();
      return { status: res.status, ms: performance.now() - t0 };
    }));
    console.log(JSON.stringify(out));`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(child.stdout).text();
  await child.exited;
  rmSync(dirname(file), { recursive: true, force: true });
  return JSON.parse(out);
}

describe("no single request stalls the others", () => {
  test("a normal bid gets both commitments while the largest allowed bodies are being sent and parsed", async () => {
    const usual = await normalBid();
    expect(usual.commitments).toBe(2);
    // The largest bid body a node accepts (4 MiB, one unknown field carrying the bulk), three at once, and a
    // decision stream of 4 MiB of objects just under their limit, sent by another process.
    const bigBid = JSON.stringify({ ...(await bidBody()), padding: "x".repeat(BODY_LIMITS.bid - 1_000) });
    expect(bigBid.length).toBeLessThanOrEqual(BODY_LIMITS.bid);
    const bigDecision = JSON.stringify({
      bidDigest: "AA==",
      status: "STATUS_REJECTED",
      padding: "y".repeat(BODY_LIMITS.decision - 100),
    });
    const decisions = Array.from({ length: 64 }, () => bigDecision).join("\n");
    const heavy = postFromAnotherProcess([
      ...Array.from({ length: 3 }, () => ({ url: `${bidderUrl}/v1/bidder/bid`, body: bigBid })),
      { url: `${providerUrl}/v1/provider/send_processed_bids`, body: decisions },
    ]);
    await Bun.sleep(200); // the child is up and sending
    const during = await normalBid();
    const done = await heavy;
    console.log(
      `normal bid: ${usual.ms.toFixed(0)} ms alone, ${during.ms.toFixed(0)} ms beside the largest bodies ` +
        `(their requests: ${done.map((r) => r.ms.toFixed(0)).join(", ")} ms)`,
    );
    expect(during.commitments).toBe(2);
    expect(done.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  }, 60_000);
});

/** A chunked body (no content-length), so the node must count what it reads. */
function chunked(text: string, chunk = 64 * 1024): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.subarray(at, (at += chunk)));
    },
  });
}

const TWENTY_MB = 20 * 1024 * 1024;

describe("bodies above a route's limit: 413 with a gRPC status body, refused as they arrive", () => {
  test("SendBid: 20 MB declared or streamed", async () => {
    const body = JSON.stringify({ ...(await bidBody()), padding: "x".repeat(TWENTY_MB) });
    for (const r of [
      await post(`${bidderUrl}/v1/bidder/bid`, body),
      await post(`${bidderUrl}/v1/bidder/bid`, chunked(body)),
    ]) {
      expect(r.status).toBe(413);
      expect(r.json).toEqual({
        code: 8,
        message: `the request body is larger than ${BODY_LIMITS.bid} bytes, the most this route accepts; send less`,
        details: [],
      });
    }
  }, 30_000);

  test("SendProcessedBids: one 20 MB object (the stream itself may be long; each object is bounded)", async () => {
    const r = await post(
      `${providerUrl}/v1/provider/send_processed_bids`,
      chunked(JSON.stringify({ bidDigest: "AA==", padding: "z".repeat(TWENTY_MB) })),
    );
    expect(r.status).toBe(413);
    expect(r.json.code).toBe(8);
    expect(r.json.message).toBe(
      `a JSON object of the body is larger than ${BODY_LIMITS.decision} bytes, the most this route accepts; send less`,
    );
  }, 30_000);

  test("Subscribe and WithdrawFromWindows", async () => {
    const big = JSON.stringify({ topics: ["x".repeat(BODY_LIMITS.small)] });
    expect((await post(`${bidderUrl}/v1/subscribe`, big)).status).toBe(413);
    expect((await post(`${bidderUrl}/v1/bidder/withdraw_from_windows`, chunked(big, 1000))).status).toBe(413);
  });
});

describe("client mistakes are 400 with the code and a message that says what to change", () => {
  const deep = (inner: string) => '{"a":'.repeat(100_000) + inner + "}".repeat(100_000);

  test("JSON nested 100,000 deep, on every route with a body", async () => {
    const cases: [string, string][] = [
      [`${bidderUrl}/v1/bidder/bid`, deep("1")],
      [`${providerUrl}/v1/provider/send_processed_bids`, deep("1")],
      [`${bidderUrl}/v1/bidder/withdraw_from_windows`, "[".repeat(60_000)],
      [`${bidderUrl}/v1/subscribe`, "[".repeat(60_000)],
    ];
    for (const [url, body] of cases) {
      const r = await post(url, body);
      expect([url, r.status, r.json.code]).toEqual([url, 400, 3]);
      expect(r.json.message).toContain("exceeded max depth (at most 64 nested arrays and objects)");
    }
  });

  test("amounts above uint256: bid, slash and stake amounts", async () => {
    const huge = (1n << 256n).toString();
    const bid = await post(`${bidderUrl}/v1/bidder/bid`, JSON.stringify(await bidBody({ amount: huge })));
    expect([bid.status, bid.json.error?.code ?? bid.json.code]).toEqual([400, 3]);
    expect(JSON.stringify(bid.json)).toContain("amount must fit in a uint256");
    const slash = await post(`${bidderUrl}/v1/bidder/bid`, JSON.stringify(await bidBody({ slashAmount: huge })));
    expect([slash.status, slash.json.error.code]).toEqual([400, 3]);
    const stake = await post(`${providerUrl}/v1/provider/stake/${huge}`, "");
    expect([stake.status, stake.json.code]).toEqual([400, 3]);
    expect(stake.json.message).toContain("amount must fit in a uint256");
    // A 4 MiB string of digits (the largest body allowed) is refused at once, not converted.
    const t0 = performance.now();
    const digits = await post(
      `${bidderUrl}/v1/bidder/bid`,
      JSON.stringify(await bidBody({ amount: "9".repeat(BODY_LIMITS.bid - 1_000) })),
    );
    expect([digits.status, digits.json.error.code]).toEqual([400, 3]);
    console.log(`a 4 MiB amount refused in ${(performance.now() - t0).toFixed(0)} ms`);
  });

  test("a deposit larger than the bidder's balance is FailedPrecondition, with the balance", async () => {
    expect((await fetch(`${bidderUrl}/v1/bidder/cancel_auto_deposit`, { method: "POST" })).status).toBe(200);
    const r = await post(`${bidderUrl}/v1/bidder/deposit/${parseEther("1000000")}`, "");
    expect([r.status, r.json.code]).toEqual([400, 9]);
    expect(r.json.message).toMatch(
      /^deposit: .*: insufficient funds: account 0x[0-9a-fA-F]{40} holds \d+ wei \([0-9.]+ ETH\), the transaction needs 1000000000000000000000000 wei plus gas; send less or fund the account$/,
    );
  });

  test("a second unstake and a withdrawal before the delay are FailedPrecondition (provider 2, last)", async () => {
    const p2 = local.devnet.providers[1]!.url;
    expect((await post(`${p2}/v1/provider/unstake`, "")).status).toBe(200);
    const again = await post(`${p2}/v1/provider/unstake`, "");
    expect([again.status, again.json.code]).toEqual([400, 9]);
    expect(again.json.message).toEndWith(
      "an unstake request is already pending; call withdraw_stake once the withdrawal delay has passed",
    );
    const early = await post(`${p2}/v1/provider/withdraw_stake`, "");
    expect([early.status, early.json.code]).toEqual([400, 9]);
    expect(early.json.message).toContain("the withdrawal delay has not passed; call withdraw_stake again after");
  }, 30_000);
});

test("every node is still up and a normal bid still gets its commitments", async () => {
  for (const url of [bidderUrl, ...local.devnet.providers.map((p) => p.url)])
    expect((await fetch(`${url}/health`)).status).toBe(200);
  expect((await normalBid()).commitments).toBeGreaterThanOrEqual(1);
});
