#!/usr/bin/env bun
/**
 * `npm run fuzz`: schemathesis (installed by scripts/install-python-tools.sh into .cache/python-tools) against the
 * OpenAPI document of every node of a devnet this script starts. Property: no 5xx for any input (every check of
 * scripts/fuzz/schemathesis.toml: no server error, responses and their status codes, content types and bodies as
 * documented, invalid input refused), every node still up afterwards, and a normal bid still gets a commitment from
 * every provider. Exit 1 when anything fails. Prints `fuzz: N passed, N failed` at the end.
 *
 *   npm run fuzz                              # the default budget (20 test cases per operation)
 *   npm run fuzz -- --examples 500 --seed 1   # a long run
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseEther } from "viem";
import { exitOnCliErrors, numberOption, parseCliArgs } from "../lib/cli.ts";
import { stopAllAnvils } from "../node/chain/anvil.ts";
import { NdjsonStream } from "../node/clients/ndjson.ts";
import { startLocalDevnet } from "../node/devnet/localDevnet.ts";

exitOnCliErrors({ cleanup: stopAllAnvils });

const HELP = `Usage: npm run fuzz -- [--examples N] [--seed N] [--workers N]

Starts a devnet (2 providers, built-in accept-all applications), runs schemathesis against the OpenAPI document of
the bidder node and of each provider node, then checks that every node is up and that a normal bid gets a
commitment from every provider. Reports: reports/fuzz/<node>.xml (JUnit), the devnet's log reports/fuzz-devnet.log.

  --examples N   test cases per API operation (default 20; CI runs 5)
  --seed N       schemathesis seed, to replay a run
  --workers N    concurrent schemathesis workers (default 1: two workers on Python 3.11 can crash hypothesis with
                 "AST constructor recursion depth mismatch", CPython issue 106905)
  -h, --help
`;

// Streams that stay open until the client leaves: a valid request never completes, so they are not fuzzed
// (node/api/wire/abuse.test.ts and the features drive them with bad input).
const ENDLESS_STREAMS = ["/v1/subscribe", "/v1/provider/receive_bids"];
/**
 * Operations that end the provider's stake: once it unstakes, Stake is refused until the withdrawal delay (a day of
 * chain time) has passed, whatever its input. They run in a pass of their own after everything else, so that the
 * first pass fuzzes Stake on a staked provider, as a client meets it.
 */
const STAKE_ENDING = ["/v1/provider/unstake", "/v1/provider/withdraw_stake"];

const { values: opts } = parseCliArgs({
  options: {
    examples: { type: "string" },
    seed: { type: "string" },
    workers: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (opts.help) {
  console.log(HELP);
  process.exit(0);
}
const examples = numberOption("--examples", opts.examples, 20, { min: 1 });
numberOption("--seed", opts.seed, 0);
numberOption("--workers", opts.workers, 1, { min: 1 });
const ROOT = join(import.meta.dir, "..");
const ST = join(ROOT, ".cache/python-tools/bin/st");
const REPORTS = join(ROOT, "reports/fuzz");

const install = Bun.spawnSync(["bash", join(ROOT, "scripts/install-python-tools.sh")], {
  stdout: "inherit",
  stderr: "inherit",
});
if (install.exitCode !== 0) {
  console.error("fuzz: installing schemathesis failed");
  process.exit(1);
}
mkdirSync(REPORTS, { recursive: true });

const t0 = performance.now();
console.log("fuzz: starting a devnet …");
const local = await startLocalDevnet(
  { autoAccept: true, autodepositAmount: parseEther("10") },
  join(ROOT, "reports/fuzz-devnet.log"),
);
const { devnet } = local;
const nodes = [
  { name: "bidder", url: devnet.bidder.url },
  ...devnet.providers.map((p) => ({ name: p.name, url: p.url })),
];
const passes = nodes.flatMap((node) =>
  node.name === "bidder"
    ? [{ ...node, label: node.name, filter: [] as string[] }]
    : [
        { ...node, label: node.name, filter: STAKE_ENDING.flatMap((p) => ["--exclude-path", p]) },
        { ...node, label: `${node.name}-unstake`, filter: STAKE_ENDING.flatMap((p) => ["--include-path", p]) },
      ],
);
const results: { name: string; ok: boolean; detail: string }[] = [];

try {
  for (const node of passes) {
    const args = [
      ST,
      "--config-file",
      join(ROOT, "scripts/fuzz/schemathesis.toml"),
      "run",
      `${node.url}/swagger/json`,
      "--url",
      node.url,
      "--phases",
      "examples,coverage,fuzzing",
      "--max-examples",
      String(examples),
      "--workers",
      opts.workers ?? "1",
      "--request-timeout",
      "20",
      "--no-color",
      "--report",
      "junit",
      "--report-junit-path",
      join(REPORTS, `${node.label}.xml`),
      ...ENDLESS_STREAMS.flatMap((p) => ["--exclude-path", p]),
      ...node.filter,
      ...(opts.seed ? ["--seed", opts.seed] : []),
    ];
    console.log(`\nfuzz: ${node.label} (${node.url}), ${examples} test cases per operation`);
    const st = Bun.spawn(args, { cwd: ROOT, stdout: "pipe", stderr: "inherit" });
    const out = await new Response(st.stdout).text();
    const code = await st.exited;
    const logPath = join(REPORTS, `${node.label}.log`);
    await Bun.write(logPath, out);
    // Our own summary, not schemathesis's: its closing "=== N warnings in Xs ===" line reads like a pytest run that
    // executed no test to anything that scans CI output. The whole output is kept in the log, and printed on failure.
    const cases = /^\s*(\d+ generated.*)$/m.exec(out)?.[1]?.trim() ?? "no test case count in the output";
    const warnings = [...out.matchAll(/^\s*⚠️\s*(.+)$/gm)].map((m) => (m[1] ?? "").trim());
    if (code === 0) {
      console.log(`  test cases: ${cases}`);
      for (const w of warnings) console.log(`  warning: ${w}`);
      console.log(`  whole output: ${logPath}`);
    } else {
      console.log(out);
    }
    results.push({
      name: `schemathesis on ${node.label}`,
      ok: code === 0 && /\d+ passed/.test(cases),
      detail: `${cases} (exit ${code})`,
    });
  }

  // The property's second half: everything still up and working.
  const down = [];
  for (const node of nodes) {
    const r = await fetch(`${node.url}/health`).catch(() => undefined);
    if (r?.status !== 200) down.push(node.name);
  }
  results.push({
    name: "every node answers /health",
    ok: down.length === 0,
    detail: down.length ? `down: ${down.join(", ")}` : `${nodes.length} nodes`,
  });

  // The fuzzer may have withdrawn the deposits or cancelled auto-deposit: deposit again for the bid's block first.
  const block = (await devnet.driver.blockNumber()) + 1n;
  const deposit = await fetch(`${devnet.bidder.url}/v1/bidder/deposit/${parseEther("10")}?block_number=${block}`, {
    method: "POST",
  });
  await deposit.text();
  const now = Date.now();
  const lines = await (
    await NdjsonStream.open("POST", `${devnet.bidder.url}/v1/bidder/bid`, {
      txHashes: ["ab".repeat(32)],
      amount: "1000",
      blockNumber: block.toString(),
      decayStartTimestamp: String(now),
      decayEndTimestamp: String(now + 60_000),
    })
  ).all();
  const commitments = lines.filter((l) => "result" in l).length;
  results.push({
    name: "a normal bid gets a commitment from every provider",
    ok: commitments === devnet.providers.length,
    detail: `${commitments} of ${devnet.providers.length} commitments (deposit answered ${deposit.status})`,
  });
} finally {
  await local.stop();
}

console.log(`\nfuzz: results after ${((performance.now() - t0) / 1000).toFixed(0)} s`);
for (const r of results) console.log(`  ${r.ok ? "✔" : "✖"} ${r.name}: ${r.detail}`);
const failed = results.filter((r) => !r.ok).length;
console.log(`fuzz: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
