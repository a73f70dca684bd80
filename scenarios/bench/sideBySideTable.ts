/**
 * The side-by-side benchmark's summary (scenarios/bench/sideBySide.ts): for each level of bids in flight and each
 * figure, every side's median over its runs with the range in brackets, so alternated runs on a shared machine
 * compare by their spread, not by one run.
 */
import type { TargetLevelResult } from "./targetBench.ts";

/** One side's runs at one level (a run that failed to start is simply absent). */
export type SideRuns = Map<string, TargetLevelResult[]>;

/** The median of the values (the mean of the middle two for an even count); NaN for none. */
export function median(values: number[]): number {
  if (!values.length) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

interface Figure {
  name: string;
  value: (r: TargetLevelResult) => number | undefined;
  digits: number;
  unit?: string;
}

const FIGURES: Figure[] = [
  { name: "first commitment p50", value: (r) => r.firstP50, digits: 1, unit: "ms" },
  { name: "first commitment p99", value: (r) => r.firstP99, digits: 1, unit: "ms" },
  { name: "bids/s", value: (r) => r.bidsPerSec, digits: 0 },
  { name: "commitments/s", value: (r) => r.commitmentsPerSec, digits: 0 },
  { name: "commitments per bid", value: (r) => r.commitmentsPerBid, digits: 2 },
  { name: "bids short", value: (r) => r.short, digits: 0 },
  { name: "errors", value: (r) => r.errors, digits: 0 },
  { name: "CPU per bid", value: (r) => r.cpuMsPerBid, digits: 2, unit: "ms" },
];

/** "median (min–max) unit" of the runs' values, "n/a" when no run has the figure, the bare value for one run. */
export function medianCell(values: number[], digits: number, unit?: string): string {
  const v = values.filter((x) => Number.isFinite(x));
  if (!v.length) return "n/a";
  const f = (x: number) => x.toFixed(digits);
  const u = unit ? ` ${unit}` : "";
  const lo = Math.min(...v);
  const hi = Math.max(...v);
  return lo === hi ? `${f(v[0]!)}${u}` : `${f(median(v))} (${f(lo)}–${f(hi)})${u}`;
}

/** The summary table: a row per level and figure, a column per side (in the order given), each cell its median. */
export function sideBySideLines(levels: number[], sides: string[], runs: Map<number, SideRuns>): string[] {
  const head = ["in flight", "figure", ...sides.map((s) => `${s} (${runsOf(runs, s)} runs)`)];
  const rows: string[][] = [];
  for (const level of levels) {
    const bySide = runs.get(level);
    for (const [i, fig] of FIGURES.entries())
      rows.push([
        i === 0 ? String(level) : "",
        fig.name,
        ...sides.map((s) =>
          medianCell(
            (bySide?.get(s) ?? []).map((r) => fig.value(r) ?? Number.NaN),
            fig.digits,
            fig.unit,
          ),
        ),
      ]);
  }
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)];
}

/** The most runs a side has at any level (a side whose start failed at one level has fewer there). */
function runsOf(runs: Map<number, SideRuns>, side: string): number {
  return Math.max(0, ...[...runs.values()].map((m) => m.get(side)?.length ?? 0));
}
