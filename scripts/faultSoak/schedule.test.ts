import { describe, expect, test } from "bun:test";
import { faultSchedule, linksOf } from "./schedule.ts";

const HOSTS = ["bidder", "provider-0", "provider-1"];
const base = {
  seed: 7,
  durationMs: 600_000,
  quietMs: 20_000,
  hosts: HOSTS,
  available: ["partition", "loss", "bandwidth"] as ("partition" | "loss" | "bandwidth" | "delay")[],
};

describe("the fault soak's schedule", () => {
  test("the same seed gives the same schedule, another seed another", () => {
    expect(faultSchedule(base)).toEqual(faultSchedule(base));
    expect(faultSchedule({ ...base, seed: 8 })).not.toEqual(faultSchedule(base));
  });

  test("every link gets faults, one at a time, each healed before the quiet end; partitions only on pairs", () => {
    const s = faultSchedule(base);
    for (const link of linksOf(HOSTS)) {
      const mine = s.filter((f) => f.spec.hosts.join("/") === link.join("/"));
      expect(mine.length).toBeGreaterThan(5);
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.at).toBeGreaterThan(mine[i - 1]!.until);
    }
    for (const f of s) {
      expect(f.until).toBeLessThanOrEqual(base.durationMs - base.quietMs);
      expect(f.until - f.at).toBeGreaterThanOrEqual(2_000);
      if (f.spec.partition) expect(f.spec.hosts).toHaveLength(2);
    }
    const kinds = new Set(s.map((f) => (f.spec.partition ? "partition" : f.spec.lossPercent ? "loss" : "bandwidth")));
    expect([...kinds].sort()).toEqual(["bandwidth", "loss", "partition"]);
  });

  test("with the settlement pseudo-host: each host cut from the settlement chain too, by a partition or loss only", () => {
    const hosts = [...HOSTS, "clients", "root", "settlement"];
    expect(linksOf(hosts).map((l) => l.join("/"))).toEqual([
      "bidder/provider-0",
      "bidder/provider-1",
      "bidder",
      "provider-0",
      "provider-1",
      "bidder/settlement",
      "provider-0/settlement",
      "provider-1/settlement",
    ]);
    const towards = faultSchedule({ ...base, hosts }).filter((f) => f.spec.hosts.includes("settlement"));
    expect(towards.length).toBeGreaterThan(10);
    for (const f of towards) expect(f.spec.rateKbit).toBeUndefined();
  });

  test("no delay unless the devnet offers it", () => {
    expect(faultSchedule(base).some((f) => f.spec.delayMs !== undefined)).toBe(false);
    const withDelay = faultSchedule({ ...base, available: [...base.available, "delay"] });
    expect(withDelay.some((f) => f.spec.delayMs !== undefined)).toBe(true);
  });
});
