#!/usr/bin/env bun
import { loadavg } from "node:os";
/**
 * `npm run bench:anvil-memory [-- --keep-blocks N]`: what a block, a transaction and a storage slot cost the resident
 * memory of a bare Anvil started as the devnet's settlement chain (scenarios/bench/anvilMemory.ts), three times, so
 * the spread shows. The soak measures the same once before its devnet starts.
 */
import { exitOnCliErrors, numberOption, parseCliArgs } from "../../lib/cli.ts";
import { stopAllAnvils } from "../../node/chain/anvil.ts";
import { DEFAULTS } from "../../node/devnet/config.ts";
import { formatCosts, measureAnvilCosts } from "./anvilMemory.ts";

exitOnCliErrors({ cleanup: stopAllAnvils });
const { values: o } = parseCliArgs({
  options: { "keep-blocks": { type: "string" }, runs: { type: "string" }, help: { type: "boolean", short: "h" } },
});
if (o.help) {
  console.log(`Usage: npm run bench:anvil-memory -- [--keep-blocks N] [--runs R]

  --keep-blocks N   blocks whose transactions the chain keeps (--settlement-keep-blocks; default ${DEFAULTS.settlementKeepBlocks}; 0 = all)
  --runs R          measurements (default 3)`);
  process.exit(0);
}
const keep = numberOption("--keep-blocks", o["keep-blocks"], DEFAULTS.settlementKeepBlocks);
const runs = numberOption("--runs", o.runs, 3, { min: 1 });
console.log(
  `anvil-memory: a settlement-like Anvil keeping ${keep || "all"} blocks' transactions; load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
for (let i = 1; i <= runs; i++) {
  const t = performance.now();
  const c = await measureAnvilCosts(keep || undefined);
  console.log(`  run ${i}: ${formatCosts(c)} (${((performance.now() - t) / 1000).toFixed(0)} s)`);
}
process.exit(0);
