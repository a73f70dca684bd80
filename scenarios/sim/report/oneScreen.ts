/** The one-screen summary printed at the end of a run. */
import type { Summary } from "./summary.ts";

const eth = (wei: string) => {
  const v = Number(BigInt(wei)) / 1e18;
  return v === 0 ? "0" : `${v.toFixed(6).replace(/\.?0+$/, "")} ETH`;
};

export function oneScreen(s: Summary, dir: string): string {
  const t = s.totals;
  const f = s.timing.firstCommitmentMs;
  const failed = s.checks.filter((c) => !c.ok);
  const lines = [
    ``,
    `${s.scenario.name} (seed ${s.scenario.seed}) on ${s.environment}, protocol ${s.protocol}: ${s.blocks.run}/${s.blocks.planned} blocks${s.interrupted ? " (interrupted)" : ""}, L1 ${s.blocks.first}–${s.blocks.last ?? "–"}, ${(s.timing.durationMs / 1000).toFixed(1)} s`,
    ...(s.error ? [`  STOPPED EARLY: ${s.error}`] : []),
    `  bids ${t.bids} · commitments ${t.commitments} · rejected ${t.rejected} · bid errors ${t.bidErrors} · settled ${t.settled} · slashed ${t.slashed}`,
    `  paid ${eth(t.paid)} · slashed ${eth(t.slashedAmount)} · first commitment p50 ${f.p50 ?? "n/a"} ms, p90 ${f.p90 ?? "n/a"} ms`,
    `  providers:`,
    ...s.providers.map(
      (p) =>
        `    ${p.name.padEnd(16)} won ${String(p.blocksWon).padStart(3)} · settled ${String(p.settled).padStart(4)} · slashed ${String(p.slashed).padStart(3)} · rewards ${eth(p.rewards)} · slashes ${eth(p.slashes)}`,
    ),
    `  bidders:`,
    ...s.bidders.map(
      (b) =>
        `    ${b.name.padEnd(16)} bids ${String(b.bids).padStart(4)} · settled ${String(b.settled).padStart(4)} · spend ${eth(b.spend)} · decay saved ${eth(b.decaySaved)} · refunded ${eth(b.refunded)}`,
    ),
    `  checks against the chain: ${s.checks.length - failed.length}/${s.checks.length} agree`,
    ...failed.map((c) => `    ✗ ${c.subject}: ${c.name}: report ${c.report}, chain ${c.chain}`),
    ...(s.warnings.length
      ? [`  warnings (${s.warnings.length}):`, ...s.warnings.slice(0, 5).map((w) => `    ${w}`)]
      : []),
    `  report: ${dir}/index.html (summary.json, events.csv)`,
  ];
  return lines.join("\n");
}
