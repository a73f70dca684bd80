/**
 * Where a CPU profile's time went, by area of the code: `bun scenarios/bench/profileAreas.ts PROFILE.cpuprofile
 * [--busiest SECONDS]`. Make the profile with `bun --cpu-prof --cpu-prof-dir=DIR scenarios/bench/bids.bench.ts …`
 * (or of a devnet, `bun --cpu-prof … node/main.ts`, stopped with Ctrl-C); `--busiest S` counts only the S seconds
 * with the most samples, the load a benchmark put on a devnet that idled before and after it. Each sample is
 * charged to the area of the innermost frame whose file belongs to a known area (native code and small
 * helpers inherit their caller's area), so "SQLite" is the time inside bun:sqlite calls wherever they come from.
 * Shares stay meaningful on a loaded machine, where absolute times do not.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The samples' indices inside the `seconds` of the profile that hold the most samples. */
export function busiestWindow(p: Profile, seconds: number): { from: number; to: number } {
  const at: number[] = [];
  let t = 0;
  for (const d of p.timeDeltas) at.push((t += d));
  const span = seconds * 1e6;
  let best = { from: 0, to: 0 };
  let from = 0;
  for (let to = 0; to < at.length; to++) {
    while (at[to]! - at[from]! > span) from++;
    if (to + 1 - from > best.to - best.from) best = { from, to: to + 1 };
  }
  return best;
}

/** Areas in order of precedence: the first pattern that matches a frame's file (or function) names its area. */
const AREAS: [string, RegExp][] = [
  ["idle", /^\((idle|program)\)$/],
  ["garbage collection", /^\(garbage collector\)$/],
  ["SQLite (bun:sqlite)", /bun:sqlite/],
  ["crypto: secp256k1 (native)", /node\/protocol\/secp256k1|node_modules\/secp256k1/],
  ["crypto: BN254 (mcl-wasm)", /mcl-wasm|node\/protocol\/bn254/],
  ["crypto: digests, keccak", /node\/protocol\/(digest|bidSigning|commitmentSigning)|@noble\/hashes/],
  ["viem: transaction signing (@noble/curves)", /viem\/node_modules\/@noble\/curves|viem\/_esm\/accounts/],
  ["viem: RPC, ABI, receipts", /node_modules\/viem/],
  [
    "libp2p (noise, yamux, streams)",
    /node_modules\/(@libp2p|libp2p|@chainsafe|it-|uint8arraylist|@multiformats|p-event|race-signal|progress-events)/,
  ],
  ["p2p wire (our libp2p protocols)", /node\/p2p\//],
  ["Elysia (HTTP routing)", /node_modules\/(elysia|cookie|@sinclair|memoirist|exact-mirror)/],
  ["protobuf (JSON wire)", /@bufbuild|node\/gen\//],
  ["node: HTTP adapters", /node\/api\//],
  ["node: services, JSON decoding", /node\/services\/|node\/protocol\//],
  ["node: bidder bids", /node\/bidder\//],
  ["node: provider bids", /node\/provider\//],
  ["node: tracker, store, events", /node\/(tracker|store|chain|notify)\//],
  ["node: oracle, L1 driver", /node\/(oracle|l1)\//],
  ["node: built-in provider applications (HTTP clients)", /node\/(providerApp|clients)\//],
  ["benchmark client, provider applications", /scenarios\//],
];

export function profileAreas(p: Profile, window?: { from: number; to: number }): { area: string; ms: number }[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, string>();
  const areaOf = (id: number): string => {
    const known = memo.get(id);
    if (known) return known;
    const n = byId.get(id)!;
    const where = n.callFrame.url || n.callFrame.functionName;
    let area = AREAS.find(([, re]) => re.test(where) || re.test(n.callFrame.functionName))?.[0];
    if (!area) {
      const up = parent.get(id);
      area = up === undefined ? "other (runtime, native, unattributed)" : areaOf(up);
    }
    memo.set(id, area);
    return area;
  };
  // Bun records no idle samples: the time since the previous sample includes any idle gap before this one, so each
  // sample is charged the sampling interval (the median gap), not its own gap.
  const gaps = [...p.timeDeltas].sort((a, b) => a - b);
  const intervalMs = (gaps[Math.floor(gaps.length / 2)] ?? 0) / 1000;
  const totals = new Map<string, number>();
  const { from, to } = window ?? { from: 0, to: p.samples.length };
  for (const id of p.samples.slice(from, to)) totals.set(areaOf(id), (totals.get(areaOf(id)) ?? 0) + intervalMs);
  return [...totals].map(([area, ms]) => ({ area, ms })).sort((a, b) => b.ms - a.ms);
}

if (import.meta.main) {
  const [file, flag, value] = process.argv.slice(2);
  const seconds = Number(value);
  if (!file || (flag !== undefined && (flag !== "--busiest" || !(seconds > 0)))) {
    console.error("Usage: bun scenarios/bench/profileAreas.ts PROFILE.cpuprofile [--busiest SECONDS]");
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const window = flag ? busiestWindow(profile, seconds) : undefined;
  const rows = profileAreas(profile, window);
  const busy = rows.filter((r) => r.area !== "idle").reduce((s, r) => s + r.ms, 0);
  const over = window ? ` in the busiest ${seconds} s` : "";
  console.log(`${(busy / 1000).toFixed(2)} s of samples not idle${over}; share of those:`);
  for (const r of rows)
    if (r.area !== "idle")
      console.log(
        `${((100 * r.ms) / busy).toFixed(1).padStart(6)} %  ${(r.ms / 1000).toFixed(2).padStart(7)} s  ${r.area}`,
      );
}
