#!/usr/bin/env bun
import { readFileSync } from "node:fs";
/**
 * `npm run explorer -- --target file`: the devnet explorer's page against any target file (docs/conformance.md,
 * "Target file"): blocks, winners, commitments, settlements, deposits and stakes from the chains, notifications
 * from the bidder's public API. The reference devnet serves the same page itself, with each bid's outcomes, at
 * <control URL>/explorer/.
 */
import { CliFailure, CliUsageError, exitOnCliErrors, parseCliArgs } from "../../lib/cli.ts";
import type { Target } from "../clients/target.ts";
import { startTargetExplorer } from "./targetExplorer.ts";

const USAGE = `Usage: npm run explorer -- --target FILE [--host 127.0.0.1] [--port 13700]
Serves the explorer page for the target's chains and nodes and prints its URL. Ctrl-C stops it.`;

exitOnCliErrors();
const { values } = parseCliArgs({
  options: {
    target: { type: "string" },
    host: { type: "string", default: "127.0.0.1" },
    port: { type: "string", default: "13700" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!values.target)
  throw new CliUsageError("--target is required (npm run explorer -- --target FILE; --help for more)");
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535)
  throw new CliUsageError(`--port must be a port number (0 picks a free one), got ${values.port}`);
let target: Target;
try {
  target = JSON.parse(readFileSync(values.target, "utf8")) as Target;
} catch (e) {
  throw new CliFailure(`cannot read the target file ${values.target}: ${(e as Error).message.split("\n")[0]}`, 2);
}
for (const field of ["settlementRpcUrl", "contracts"] as const)
  if (!target[field]) throw new CliFailure(`the target file ${values.target} has no ${field}`, 2);

const explorer = await startTargetExplorer(target, { host: values.host!, port });
console.log(`explorer for ${target.name ?? values.target}: ${explorer.url}`);
console.log(
  "  from the chains and the public API; each bid's per-provider outcomes need the reference devnet (npm run node).",
);
const stop = () => void explorer.stop().finally(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
