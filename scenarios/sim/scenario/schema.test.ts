import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScenarioError } from "./fields.ts";
import { loadScenario, parseScenarioText } from "./load.ts";

const BASE = `
name: t
seed: 1
l1: { blocks: 4 }
bidders:
  - name: b
    deposit: { perWindow: "1 ETH" }
    strategy: { type: constant, perBlock: 1 }
providers:
  - name: p0
  - name: p1
`;

/** The error a scenario text gets (fails the test when it parses). */
function errorOf(yaml: string): ScenarioError {
  try {
    parseScenarioText("s.yaml", yaml);
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error("the scenario parsed, an error was expected");
}

describe("scenario files", () => {
  test("every shipped scenario and the CI scenario load", () => {
    const files = [
      ...readdirSync("scenarios")
        .filter((f) => /\.(ya?ml|json)$/.test(f))
        .map((f) => `scenarios/${f}`),
      "scenarios/sim/test/small-market.yaml",
    ];
    expect(files.length).toBeGreaterThanOrEqual(7);
    for (const f of files) expect(loadScenario(f).name.length).toBeGreaterThan(0);
  });

  test("defaults are filled in", () => {
    const s = parseScenarioText("s.yaml", BASE);
    expect(s.l1).toEqual({ blocks: 4, blockTime: "manual", winners: { type: "round-robin" }, optedIn: undefined });
    expect(s.bidders[0]).toMatchObject({
      amount: { min: 10n ** 15n, max: 10n ** 15n },
      decayMs: 12_000,
      transactions: "raw",
      txsPerBid: 1,
      slashAmount: 0n,
      transport: "http",
    });
    expect(s.providers[1]).toEqual({
      name: "p1",
      policy: { type: "accept-all" },
      dispatchAt: 0,
      builder: { mode: "honest", every: 1 },
      transport: "http",
    });
  });

  test("amounts in ETH, gwei or wei; counts expand into named bidders", () => {
    const s = parseScenarioText(
      "s.yaml",
      BASE.replace(
        "name: b\n",
        'name: b\n    count: 2\n    amount: { min: "1.5 gwei", max: 2000000000 }\n    slashAmount: "0.25 ETH"\n',
      ),
    );
    expect(s.bidders.map((b) => b.name)).toEqual(["b-1", "b-2"]);
    expect(s.bidders[1]!.amount).toEqual({ min: 1_500_000_000n, max: 2_000_000_000n });
    expect(s.bidders[0]!.slashAmount).toBe(250_000_000_000_000_000n);
  });

  test("a misspelt field is an error naming it and the fields allowed there", () => {
    const e = errorOf(BASE.replace("  - name: p1", "  - name: p1\n    polcy: reject-all"));
    expect(e.field).toBe("providers[1].polcy");
    expect(e.message).toStartWith(
      "s.yaml: providers[1].polcy: unknown field (allowed here: name, policy, dispatchAt, builder, transport)",
    );
  });

  test("a wrong value names its field and what is allowed", () => {
    expect(
      errorOf(BASE.replace("  - name: p0", "  - name: p0\n    policy: { type: reject-percent, percent: 120 }")).message,
    ).toBe("s.yaml: providers[0].policy.percent: must be at most 100, got 120");
    expect(errorOf(BASE.replace("type: constant", "type: sometimes")).message).toBe(
      's.yaml: bidders[0].strategy.type: must be one of constant, poisson, slot-burst, bot, got string "sometimes"',
    );
    expect(errorOf(BASE.replace('perWindow: "1 ETH"', 'perWindow: "1 bitcoin"')).field).toBe(
      "bidders[0].deposit.perWindow",
    );
    expect(errorOf(BASE.replace("seed: 1\n", "")).message).toBe("s.yaml: seed: is required");
    expect(errorOf(BASE.replace("blocks: 4", "blocks: 4, winners: [p0, p7]")).message).toContain(
      'l1.winners.1: must name a provider (0 or "p0", 1 or "p1"), got "p7"',
    );
  });

  test("faults name their provider and block", () => {
    const s = parseScenarioText(
      "s.yaml",
      `${BASE}faults:\n  - { block: 2, provider: p1, action: stop }\n  - { block: 1, bidder: b, action: fail-open }\n`,
    );
    expect(s.faults).toEqual([
      { block: 1, action: "fail-open", bidder: 0 },
      { block: 2, action: "stop", provider: 1 },
    ]);
    expect(errorOf(`${BASE}faults:\n  - { block: 9, provider: p1, action: stop }\n`).message).toBe(
      "s.yaml: faults[0].block: must be at most 4, got 9",
    );
    expect(errorOf(`${BASE}faults:\n  - { block: 2, provider: p1, action: explode }\n`).field).toBe("faults[0].action");
  });

  test("a bot needs the opt-in fraction; a transport is http or grpc", () => {
    expect(errorOf(BASE.replace("type: constant, perBlock: 1", "type: bot")).field).toBe("l1.optedIn");
    expect(errorOf(BASE.replace("  - name: p1", "  - name: p1\n    transport: websocket")).message).toContain(
      "providers[1].transport: must be http or grpc",
    );
  });

  test("a file that is not YAML says so", () => {
    expect(errorOf("name: [unclosed").message).toStartWith("s.yaml: not valid YAML");
  });

  test("npm run simulate names the wrong field and exits 2 without starting anything", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "sim-schema-")), "bad.yaml");
    await Bun.write(file, BASE.replace("seed: 1", "seed: 1\nsede: 2"));
    const p = Bun.spawn([process.execPath, "scenarios/sim/cli.ts", file], { stderr: "pipe", stdout: "pipe" });
    expect(await p.exited).toBe(2);
    expect(await new Response(p.stderr).text()).toBe(
      `error: ${file}: sede: unknown field (allowed here: name, description, seed, protocols, providers, bidders, l1, faults)\n`,
    );
  });
});

describe("protocols: the versions a scenario holds for", () => {
  test("absent: every version; a list names some of them", () => {
    expect(parseScenarioText("s.yaml", BASE).protocols).toEqual(["v1.1", "v1.2"]);
    expect(parseScenarioText("s.yaml", `${BASE}protocols: [v1.2]\n`).protocols).toEqual(["v1.2"]);
  });
  test("an unknown version, an empty list or a repeat: an error naming the field", () => {
    for (const bad of ["[v1.3]", "[]", "[v1.1, v1.1]", "v1.1"])
      expect(errorOf(`${BASE}protocols: ${bad}\n`).message).toContain("protocols: must list some of v1.1, v1.2");
  });
});
