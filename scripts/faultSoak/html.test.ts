/** The fault soak's report page, from the figures of a small made-up run, rendered in headless Chromium. */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHROMIUM_PATH, renderInChromium } from "../../scenarios/sim/report/browserCheck.ts";
import { check } from "./checker.ts";
import { type AppliedFault, figures } from "./figures.ts";
import { FAULT_PLOTS, renderFaultSoakHtml, reportData } from "./html.ts";
import type { ClientBid } from "./records.ts";

const P = [`0x${"a0".repeat(20)}`, `0x${"a1".repeat(20)}`];
const t0 = 1_000_000;
const bids: ClientBid[] = Array.from({ length: 20 }, (_, i) => ({
  stream: i % 2,
  seq: i,
  txHash: `0x${i.toString(16).padStart(64, "0")}`,
  blockNumber: "5",
  sentAt: t0 + 1000 * i,
  endedAt: t0 + 1000 * i + 30,
  status: 200,
  answered: i !== 7,
  // Provider 1 is cut off from 5 s to 9 s (its commitments missing), and back from the bid sent at 10 s.
  commitments: P.filter((_, p) => p === 0 || i < 5 || i >= 10).map((provider, p) => ({
    digest: `0x${(100 * i + p).toString(16).padStart(64, "0")}`,
    provider,
    bidDigest: `0x${i.toString(16).padStart(64, "1")}`,
    at: t0 + 1000 * i + 20 + 10 * p,
  })),
  errors: [],
}));
const faults: AppliedFault[] = [
  { spec: { hosts: ["bidder", "provider-1"], partition: true }, at: 5_000, until: 9_500 },
];
const result = check({
  clientBids: bids,
  nodeBids: [],
  chain: { stored: [], opened: [], rewarded: [], slashed: [], winners: {} },
  balances: [],
  horizon: 0n,
});
const names = ["provider-0", "provider-1"];
const fig = figures({
  nodeBids: [],
  protocol: "v1.1",
  seed: 3,
  minutes: 0.5,
  streams: 2,
  providerNames: names,
  providerAddresses: P,
  bids,
  faults,
  result,
  t0,
});
const dir = mkdtempSync(join(tmpdir(), "fault-soak-html-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the fault soak's figures and report page", () => {
  test("recovery: from the heal to the first commitment of a bid sent after it from the provider it cut off", () => {
    expect(fig.recovery.each).toEqual([{ fault: "bidder/provider-1 partition", healedAt: 9_500, ms: 530 }]);
    expect(fig.bids).toEqual({ sent: 20, answered: 19, full: 15, short: 5, none: 0, failed: 1 });
    expect(fig.commitments.acknowledged).toBe(35);
    expect(fig.silentAfterLastHeal).toEqual([]);
    expect(fig.missing).toEqual({ "not in the nodes' record": 5 });
  });

  test("a provider that commits to no bid sent after the last heal is named: it never came back", () => {
    const cutForGood = bids.map((b, i) => (i < 5 ? b : { ...b, commitments: b.commitments.slice(0, 1) }));
    const f = figures({
      nodeBids: [],
      protocol: "v1.1",
      seed: 3,
      minutes: 0.5,
      streams: 2,
      providerNames: names,
      providerAddresses: P,
      bids: cutForGood,
      faults,
      result,
      t0,
    });
    expect(f.silentAfterLastHeal).toEqual(["provider-1"]);
    expect(f.recovery.each[0]!.ms).toBeNull();
  });

  test.skipIf(!existsSync(CHROMIUM_PATH))(
    "the page draws the faults, the outcomes and the latencies, fetching nothing",
    async () => {
      const file = join(dir, "index.html");
      writeFileSync(
        file,
        renderFaultSoakHtml(
          reportData({
            figures: fig,
            findings: result.findings,
            faults,
            providerNames: names,
            startedAt: new Date(t0).toISOString(),
            commit: "abc1234",
            clientBids: bids,
            providerAddresses: P,
            t0,
          }),
        ),
      );
      const page = await renderInChromium(file);
      expect(page.errors).toEqual([]);
      expect(page.requests).toEqual([]);
      expect(page.canvases.map((c) => c.id)).toEqual([...FAULT_PLOTS]);
      for (const c of page.canvases) expect(c.painted).toBeGreaterThan(1000);
    },
  );
});
