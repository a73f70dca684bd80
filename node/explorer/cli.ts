#!/usr/bin/env bun
import { readFileSync } from "node:fs";
/**
 * `npm run explorer -- --target file`: the devnet explorer's page against any target file (docs/conformance.md,
 * "Target file"): blocks, winners, commitments, settlements, deposits and stakes from the chains, notifications
 * from the bidder's public API. The reference devnet serves the same page itself, with each bid's outcomes, at
 * <control URL>/explorer/.
 */
import { parseArgs } from "node:util";
import type { Target } from "../devnet/target.ts";
import { startTargetExplorer } from "./targetExplorer.ts";

const USAGE = `Usage: npm run explorer -- --target FILE [--host 127.0.0.1] [--port 13700]
Serves the explorer page for the target's chains and nodes and prints its URL. Ctrl-C stops it.`;

let values;
try {
  ({ values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      target: { type: "string" },
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "13700" },
      help: { type: "boolean", short: "h" },
    },
  }));
} catch (e) {
  console.error(`${(e as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!values.target) {
  console.error(`--target is required\n${USAGE}`);
  process.exit(2);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number (0 picks a free one), got ${values.port}`);
  process.exit(2);
}
let target: Target;
try {
  target = JSON.parse(readFileSync(values.target, "utf8")) as Target;
} catch (e) {
  console.error(`cannot read the target file ${values.target}: ${(e as Error).message}`);
  process.exit(2);
}
for (const field of ["settlementRpcUrl", "contracts"] as const)
  if (!target[field]) {
    console.error(`the target file ${values.target} has no ${field}`);
    process.exit(2);
  }

const explorer = await startTargetExplorer(target, { host: values.host!, port });
console.log(`explorer for ${target.name ?? values.target}: ${explorer.url}`);
console.log(
  "  from the chains and the public API; each bid's per-provider outcomes need the reference devnet (npm run node).",
);
const stop = () => void explorer.stop().finally(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
