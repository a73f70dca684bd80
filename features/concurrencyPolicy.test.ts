import { describe, expect, test } from "bun:test";
import type { ProviderApi, Unary } from "./support/clients/api.ts";
import type { PolicyDecision, ReceivedBid } from "./support/clients/providerApp.ts";
import { accepts, RoundPolicy } from "./support/concurrency.ts";

const hash = (last: string) => `${"a".repeat(63)}${last}`;
const bid = (i: number, last = "0"): ReceivedBid =>
  ({ txHashes: [hash(last)], bidAmount: "1000", blockNumber: "5", bidDigest: `digest${i}` }) as unknown as ReceivedBid;

/** A provider API that records SendProcessedBids bodies (the only call a round policy makes). */
function recordingApi(): { api: ProviderApi; bodies: string[] } {
  const bodies: string[] = [];
  const ok: Unary = { value: {}, error: undefined, http: undefined, describe: () => "ok" };
  const api = {
    sendProcessedBids: async (json: string) => {
      bodies.push(json);
      return ok;
    },
  } as unknown as ProviderApi;
  return { api, bodies };
}

describe("RoundPolicy", () => {
  test("holds every bid until the round is complete, then decides them all, not in arrival order", async () => {
    const { api } = recordingApi();
    const p = new RoundPolicy("every bid", "one request per decision", 60_000, api);
    p.expectRound(4);
    const order: number[] = [];
    const noted = (i: number) => (d: PolicyDecision) => {
      order.push(i);
      return d;
    };
    const first = [0, 1, 2].map((i) => p.decide(bid(i)).then(noted(i)));
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    const decided = [...first, p.decide(bid(3)).then(noted(3))];
    const all = await Promise.all(decided);
    expect(all.every((d) => d?.accept)).toBe(true);
    expect(order).not.toEqual([0, 1, 2, 3]);
    const times = all.map((d) => (d as { dispatchTimestamp: bigint }).dispatchTimestamp);
    expect(new Set(times).size).toBe(4);
  });

  test("an incomplete round is released after the hold time", async () => {
    const { api } = recordingApi();
    const p = new RoundPolicy("every bid", "one request per decision", 50, api);
    p.expectRound(8);
    const d = await p.decide(bid(0));
    expect(d?.accept).toBe(true);
  });

  test("one request for the round: the application sends nothing, the policy one body with every decision", async () => {
    const { api, bodies } = recordingApi();
    const p = new RoundPolicy("every second bid", "one request for the round", 60_000, api);
    p.expectRound(2);
    const ds: (PolicyDecision | undefined)[] = await Promise.all([p.decide(bid(0, "2")), p.decide(bid(1, "3"))]);
    expect(ds).toEqual([undefined, undefined]);
    await p.idle();
    expect(bodies.length).toBe(1);
    const lines = bodies[0]!
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { bidDigest: string; status: string });
    expect(lines.map((l) => `${l.bidDigest} ${l.status}`).sort()).toEqual([
      "digest0 STATUS_ACCEPTED",
      "digest1 STATUS_REJECTED",
    ]);
    expect(p.decided.get("digest0")?.accept).toBe(true);
    expect(p.decided.get("digest1")?.accept).toBe(false);
  });
});

describe("accepts", () => {
  test("every second bid: the bids whose first hash ends in an even hex digit", () => {
    expect(accepts("every second bid", [hash("0")])).toBe(true);
    expect(accepts("every second bid", [hash("e")])).toBe(true);
    expect(accepts("every second bid", [hash("7")])).toBe(false);
    expect(accepts("every bid", [hash("7")])).toBe(true);
    expect(accepts("no bid", [hash("0")])).toBe(false);
  });
});
