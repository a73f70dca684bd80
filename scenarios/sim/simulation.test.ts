/**
 * The simulation end to end on a reference devnet: the CI scenario's summary is asserted exactly (the expected
 * file) and twice (the same seed gives the same summary), every figure agrees with the chain, the report page
 * renders every plot in headless Chromium with no console error, and Ctrl-C still writes a report.
 *
 * After a deliberate change of behaviour: UPDATE_EXPECTED=1 bun test scenarios/sim/simulation.test.ts
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rulesOf } from "../../node/protocol/rules.ts";
import { renderInChromium } from "./report/browserCheck.ts";
import { PLOTS } from "./report/html.ts";
import { deterministicPart, type Summary } from "./report/summary.ts";
import { runScenario } from "./runScenario.ts";
import { loadScenario, parseScenarioText } from "./scenario/load.ts";

const FILE = "scenarios/sim/test/small-market.yaml";
const EXPECTED = "scenarios/sim/test/small-market.expected.json";
const out = mkdtempSync(join(tmpdir(), "sim-test-"));

/** JSON as the summary file holds it (bigints are already strings there). */
const plain = (s: unknown) => JSON.parse(JSON.stringify(s));

describe("simulation", () => {
  let first: Summary;

  test("the CI scenario gives exactly the expected summary, and every figure agrees with the chain", async () => {
    first = await runScenario({
      scenario: loadScenario(FILE),
      file: FILE,
      outDir: join(out, "run1"),
      rules: rulesOf("v1.1"),
    });
    const actual = plain(deterministicPart(first));
    if (process.env.UPDATE_EXPECTED) writeFileSync(EXPECTED, `${JSON.stringify(actual, null, 2)}\n`);
    expect(first.checks.filter((c) => !c.ok)).toEqual([]);
    expect(first.warnings).toEqual([]);
    expect(first.totals.settled + first.totals.slashed).toBeGreaterThan(0);
    expect(actual).toEqual(JSON.parse(readFileSync(EXPECTED, "utf8")));
  }, 120_000);

  test("the same seed twice gives the same summary (timestamps aside)", async () => {
    const second = await runScenario({
      scenario: loadScenario(FILE),
      file: FILE,
      outDir: join(out, "run2"),
      rules: rulesOf("v1.1"),
    });
    expect(plain(deterministicPart(second))).toEqual(plain(deterministicPart(first)));
    expect(second.timing.startedAt).not.toBe(first.timing.startedAt);
  }, 120_000);

  test("every actor over gRPC (transport: grpc) gives exactly the summary the scenario gives over HTTP", async () => {
    const s = loadScenario(FILE);
    const grpc = {
      ...s,
      bidders: s.bidders.map((b) => ({ ...b, transport: "grpc" as const })),
      providers: s.providers.map((p) => ({ ...p, transport: "grpc" as const })),
    };
    const summary = await runScenario({
      scenario: grpc,
      file: FILE,
      outDir: join(out, "grpc"),
      rules: rulesOf("v1.1"),
    });
    expect(summary.checks.filter((c) => !c.ok)).toEqual([]);
    expect(summary.warnings).toEqual([]);
    expect(plain(deterministicPart(summary))).toEqual(JSON.parse(readFileSync(EXPECTED, "utf8")));
  }, 120_000);

  test("the report page renders every plot in headless Chromium, self-contained and without errors", async () => {
    const dir = join(out, "run1");
    expect(existsSync(join(dir, "summary.json"))).toBe(true);
    expect(readFileSync(join(dir, "events.csv"), "utf8").split("\n")[0]).toBe("t,step,block,kind,actor,amount,detail");
    const page = await renderInChromium(join(dir, "index.html"), join(dir, "screenshot.png"));
    expect(page.errors).toEqual([]);
    expect(page.requests).toEqual([]);
    expect(page.rendered).toBe(true);
    expect(page.canvases.map((c) => c.id).sort()).toEqual([...PLOTS].sort());
    for (const c of page.canvases) {
      expect(c.width * c.height).toBeGreaterThan(10_000);
      // Axes, labels and data: a plot that drew nothing paints no pixel at all.
      expect({ id: c.id, painted: c.painted > 2_000 }).toEqual({ id: c.id, painted: true });
    }
  }, 60_000);

  test("a step that fails stops the run, and the report still shows what ran and why it stopped", async () => {
    const scenario = parseScenarioText(
      "broken.yaml",
      `name: broken
seed: 1
l1: { blocks: 5 }
bidders: [{ name: b, deposit: { perWindow: "1 ETH" }, strategy: { type: constant, perBlock: 1 } }]
providers: [{ name: p0 }, { name: p1 }]
faults: [{ block: 3, provider: p1, action: start }]
`,
    );
    const dir = join(out, "broken");
    const summary = await runScenario({ scenario, file: "broken.yaml", outDir: dir, rules: rulesOf("v1.1") });
    expect(summary.error).toStartWith("block 3 (L1 4): POST /sim/v1/providers/1/start failed: HTTP 400");
    expect(summary.error).toContain("provider 1 is already running");
    expect(summary.blocks.run).toBe(2);
    expect(summary.totals.settled).toBe(2);
    expect(summary.checksPassed).toBe(true);
    const html = readFileSync(join(dir, "index.html"), "utf8");
    expect(html).toContain("The run stopped early: block 3 (L1 4)");
    // The checks against the chain in ETH, like the rest of the page: no raw wei.
    const checks = html.slice(html.indexOf("<h2>Checks against the chain</h2>"), html.indexOf("<h2>Providers</h2>"));
    expect(checks).toContain(" ETH</td>");
    expect(checks).not.toMatch(/<td>\d{10,}/);
  }, 120_000);

  test("Ctrl-C stops after the current block, settles what ran and still writes the report", async () => {
    const dir = join(out, "interrupted");
    const p = Bun.spawn(
      [process.execPath, "scenarios/sim/cli.ts", "scenarios/omitting-provider.yaml", "--blocks", "60", "--out", dir],
      { stdout: "pipe", stderr: "pipe" },
    );
    // Interrupt once the run has mined a few blocks (the progress lines go to stderr).
    const reader = p.stderr.getReader();
    let err = "";
    while (!/ [3-9]\/60 blocks/.test(err)) {
      const chunk = await reader.read();
      if (chunk.done) break;
      err += new TextDecoder().decode(chunk.value);
    }
    p.kill("SIGINT");
    reader.releaseLock();
    const stdout = await new Response(p.stdout).text();
    expect(await p.exited).toBe(0);
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    expect(summary.interrupted).toBe(true);
    expect(summary.blocks.run).toBeGreaterThanOrEqual(3);
    expect(summary.blocks.run).toBeLessThan(60);
    expect(summary.checksPassed).toBe(true);
    expect(stdout).toContain("(interrupted)");
    expect(existsSync(join(dir, "index.html"))).toBe(true);
  }, 120_000);
});
