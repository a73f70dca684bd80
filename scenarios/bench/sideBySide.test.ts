// `npm run bench:side-by-side`: the medians table (pure), and a run of one of our sides against a real devnet that
// the command starts and stops itself. The upstream side needs upstream's binaries, which CI does not build.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { freePortBase } from "../../node/testing/freePortBase.ts";
import { median, medianCell, sideBySideLines } from "./sideBySideTable.ts";
import type { TargetLevelResult } from "./targetBench.ts";

const ROOT = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(os.tmpdir(), "mev-commit-side-by-side-"));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[], env: Record<string, string | undefined> = process.env) {
  const p = Bun.spawn(["bun", "scenarios/bench/sideBySide.ts", ...args], {
    cwd: ROOT,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { out, err, code };
}

const row = (o: Partial<TargetLevelResult>): TargetLevelResult => ({
  inFlight: 8,
  bids: 10,
  firstP50: 10,
  firstP99: 20,
  commitmentsPerBid: 2,
  short: 0,
  errors: 0,
  bidsPerSec: 100,
  commitmentsPerSec: 200,
  load: "0.10 0.10 0.10",
  ...o,
});

/** The cells of the table's line for `figure` (cells are two or more spaces apart). */
const figureRow = (lines: string[], figure: string): string[] => lines.find((l) => l.includes(figure))!.split(/\s{2,}/);

test("median: the middle value, or the mean of the middle two", () => {
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 3, 2])).toBe(2.5);
  expect(median([])).toBeNaN();
});

test("a cell is the median with the range; one run or equal runs give the bare value; no value is n/a", () => {
  expect(medianCell([12.25, 10, 30], 1, "ms")).toBe("12.3 (10.0–30.0) ms");
  expect(medianCell([2, 2], 2)).toBe("2.00");
  expect(medianCell([Number.NaN], 2, "ms")).toBe("n/a");
});

test("the table: a row per level and figure, a column per side with its run count, a side missing at a level n/a", () => {
  const runs = new Map([
    [
      8,
      new Map([
        ["upstream", [row({ firstP50: 19, short: 3 }), row({ firstP50: 15, short: 0 })]],
        ["ours", [row({ firstP50: 17, cpuMsPerBid: 3.5 })]],
      ]),
    ],
  ]);
  const lines = sideBySideLines([8], ["upstream", "ours", "ours-processes"], runs);
  const cells = (l: string) => l.split(/\s{2,}/);
  expect(cells(lines[0]!)).toEqual([
    "in flight",
    "figure",
    "upstream (2 runs)",
    "ours (1 runs)",
    "ours-processes (0 runs)",
  ]);
  expect(cells(lines[1]!)).toEqual(["8", "first commitment p50", "17.0 (15.0–19.0) ms", "17.0 ms", "n/a"]);
  expect(figureRow(lines, "bids short").slice(1)).toEqual(["bids short", "2 (0–3)", "0", "n/a"]);
  expect(figureRow(lines, "CPU per bid").slice(1)).toEqual(["CPU per bid", "n/a", "3.50 ms", "n/a"]);
});

test("one of our sides, started and stopped by the command: its rows, then the medians with the devnet's CPU", async () => {
  const base = (await freePortBase(2)) - 600;
  const { out, err, code } = await run([
    "--sides",
    "ours-like-for-like",
    "--rounds",
    "1",
    "--in-flight",
    "2",
    "--bids",
    "4",
    "--warmup",
    "1",
    "--settle",
    "0",
    "--port-base",
    String(base),
    "--dir",
    dir,
  ]);
  expect(err).toBe("");
  expect(code).toBe(0);
  expect(out).toContain("round 1/1: ours-like-for-like, 2 in flight");
  const table = out.slice(out.indexOf("=== medians over 1 round(s)")).trim().split("\n");
  expect(table[1]!.split(/\s{2,}/)).toEqual(["in flight", "figure", "ours-like-for-like (1 runs)"]);
  const cell = (figure: string) => figureRow(table, figure).at(-1);
  expect(cell("first commitment p50")).toMatch(/^\d+\.\d ms$/);
  expect(cell("commitments per bid")).toBe("2.00");
  expect(cell("bids short")).toBe("0");
  expect(cell("CPU per bid")).toMatch(/^\d+\.\d\d ms$/);
}, 180_000);

test("the upstream side without its binaries is a one-line error, exit 2", async () => {
  const { MEV_COMMIT: _, PROVIDER_EMULATOR: __, ...env } = process.env;
  const { code, err } = await run(["--sides", "upstream"], env);
  expect(code).toBe(2);
  expect(err.trim()).toStartWith("error: the upstream side needs MEV_COMMIT and PROVIDER_EMULATOR");
}, 30_000);
