import { describe, expect, test } from "bun:test";
import {
  faultBody,
  faultSchedules,
  normalDigest,
  type ScheduledBid,
  scheduleFigures,
  scheduleTable,
} from "./faultSchedule.ts";

const d = (n: number) => n.toString(16).padStart(64, "0");
const bid = (sentMs: number, endMs: number, digests: number[], status = 200, error?: string): ScheduledBid => ({
  sentMs,
  endMs,
  status,
  digests: digests.map(d),
  ...(error ? { error } : {}),
});

describe("fault schedules", () => {
  test("four fixed schedules, each a kind of fault the control API sets, scaled together", () => {
    const s = faultSchedules();
    expect(s.map((x) => [x.name, x.kind, x.on])).toEqual([
      ["partition", "partition", "pair"],
      ["loss", "loss", "provider"],
      ["rate", "bandwidth", "provider"],
      ["delay", "delay", "provider"],
    ]);
    expect(s.map((x) => x.fault)).toEqual([
      { partition: true },
      { lossPercent: 5 },
      { rateKbit: 128 },
      { delayMs: 150, jitterMs: 20 },
    ]);
    expect([s[0]!.beforeMs, s[0]!.faultMs, s[0]!.afterMs]).toEqual([5_000, 20_000, 20_000]);
    const half = faultSchedules(0.5)[0]!;
    expect([half.beforeMs, half.faultMs, half.afterMs]).toEqual([2_500, 10_000, 10_000]);
    expect(half.title).toBe("partition bidder/provider, 10 s, heal");
    // No phase shorter than a second however small the scale.
    expect(faultSchedules(0.01)[0]!.beforeMs).toBe(1000);
  });

  test("the fault body names the pair for a partition and the provider's host alone for the others", () => {
    const [partition, loss] = faultSchedules();
    const hosts = { bidder: "bidder", provider: "provider-1" };
    expect(faultBody(partition!, hosts)).toEqual({ hosts: ["bidder", "provider-1"], partition: true });
    expect(faultBody(loss!, hosts)).toEqual({ hosts: ["provider-1"], lossPercent: 5 });
  });
});

describe("scheduleFigures", () => {
  const o = { faultAtMs: 1000, healAtMs: 3000, providers: 2 };

  test("counts answered bids, commitments per bid in the fault and overall, and lost acknowledged commitments", () => {
    const bids = [
      bid(0, 50, [1, 2]),
      bid(1500, 6500, [3]), // in the fault: one provider cut off
      bid(2500, 7500, [], 200, '{"error":{"code":14}}'), // in the fault: an error line, not answered
      bid(3100, 3200, [5, 6]),
      bid(3600, 3650, [7, 8], 0, "fetch failed"),
    ];
    const f = scheduleFigures(bids, { ...o, stored: new Set([1, 2, 3, 5, 6].map(d)) });
    expect(f).toEqual({
      bids: 5,
      answered: 3,
      commitmentsPerBidInFault: 0.5,
      commitmentsPerBid: 7 / 5,
      acknowledged: 7,
      lost: 2, // 7 and 8: acknowledged by the stream, absent from the chain
      recoverMs: 200, // the bid sent at 3100 ended at 3200 with both, 200 ms after the heal at 3000
    });
  });

  test("recovery is the earliest-ending full bid sent after the heal; bids sent before it do not count", () => {
    const bids = [
      bid(2900, 3100, [1, 2]), // sent before the heal: not a recovery
      bid(3200, 9000, [3, 4]),
      bid(3700, 4000, [5, 6]), // sent later, ended first
      bid(3300, 3400, [7]), // ended first, but one commitment short
    ];
    expect(scheduleFigures(bids, { ...o, stored: new Set() }).recoverMs).toBe(1000);
  });

  test("no full bid after the heal: not recovered; no bids in the fault: n/a", () => {
    const f = scheduleFigures([bid(0, 10, [1]), bid(3500, 3600, [2])], { ...o, stored: new Set([1, 2].map(d)) });
    expect(f.recoverMs).toBeUndefined();
    expect(f.commitmentsPerBidInFault).toBeNaN();
    expect(f.lost).toBe(0);
  });

  test("digests compare as lower-case hex without 0x", () => {
    expect(normalDigest("0xABcd")).toBe("abcd");
    expect(normalDigest("ABCD")).toBe("abcd");
  });
});

describe("scheduleTable", () => {
  test("a row per schedule: figures, or unavailable with the reason", () => {
    const [partition, , , delay] = faultSchedules();
    const lines = scheduleTable([
      {
        schedule: partition!,
        figures: {
          bids: 90,
          answered: 90,
          commitmentsPerBidInFault: 1,
          commitmentsPerBid: 1.5,
          acknowledged: 135,
          lost: 0,
          recoverMs: 1234,
        },
      },
      { schedule: delay!, unavailable: "this kernel has no netem" },
    ]);
    expect(lines.slice(2)).toEqual([
      "| partition bidder/provider, 20 s, heal | 90/90 | 1.00 / 1.50 | 0 of 135 | 1.2 s |",
      "| 150 ms (±20 ms) delay on a provider | unavailable: this kernel has no netem | | | |",
    ]);
    expect(lines[0]).toContain("Time to recover after the heal");
  });
});
