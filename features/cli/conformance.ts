#!/usr/bin/env bun
/**
 * mev-commit-conformance: the conformance suite as a command (the package bin; `npm run test:features` runs it).
 *
 *   mev-commit-conformance [--target target.json | --protocol v1.1|v1.2] [--transport http|grpc]
 *                          [--level spec,upstream,intended] [--tags EXPR] [--order random:N] [--name REGEX] [--fail-fast] [--json FILE] [--reports DIR]
 *                          [feature paths…]
 *
 * Runs cucumber in this process in passes: the scenarios tagged @clean-bidder first (they need a bidder whose record
 * holds only windows a run can close, which every later deposit far ahead spoils), then every other selected
 * scenario, then the ones tagged @may-crash (known to crash some implementations), so that a crash cannot hide what
 * the others would have shown. Prints progress, a
 * summary per level, and writes one JSON result (docs/conformance-result.schema.json) besides JUnit, HTML and
 * cucumber messages. Exits non-zero when a selected scenario failed or could not be run.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import {
  type IRunConfiguration,
  loadConfiguration,
  loadSources,
  loadSupport,
  runCucumber,
} from "@cucumber/cucumber/api";
import { describeCliError, parseArgsOr } from "../../lib/cli.ts";
import { MevCommitError } from "../../lib/errors.ts";
import { markDown, probeTarget, restartTarget, targetDown } from "../support/health.ts";
import { leftOnTarget } from "../support/leftOnTarget.ts";
import {
  preflight,
  preflightJson,
  preflightText,
  runPreflight,
  setPreflight,
  undoPreflight,
} from "../support/preflight.ts";
import {
  PROTOCOL_VERSIONS,
  type ProtocolVersion,
  parseProtocolVersion,
  versionTag,
} from "../support/protocolVersion.ts";
import { learnProviderNames, providersLine } from "../support/providerNames.ts";
import { hasRun, run, setRun } from "../support/run.ts";
import { CAPABILITIES, startTarget, TargetFileError } from "../support/target.ts";
import {
  beginRecord,
  currentRecord,
  describeRecord,
  endRecord,
  interrupted,
  markInterrupted,
  putBack,
} from "../support/targetChanges.ts";
import { TRANSPORTS, type Transport } from "../support/transport.ts";
import { LEVELS, type Level, ResultCollector, type RunInfo, resultJson, suiteInfo, summaryText } from "./results.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

export const HELP = `Usage: mev-commit-conformance [options] [feature files or directories…]

Runs the mev-commit conformance suite against a target: the implementation named by a target file, or a
reference devnet the suite starts itself when none is given.

Options:
  --target FILE        target file (JSON; docs/conformance.md lists its fields). Default: $TARGET, else a
                       reference devnet started for the run
  --protocol V         v1.1 (default) or v1.2: the protocol version of the reference devnet the suite starts.
                       With a target file, its "protocol" field decides (absent means v1.1); --protocol may
                       only repeat it. Scenarios tagged for the other version only (@v1.1, @v1.2) are skipped
  --transport T        http (default) or grpc: how bids, deposits, queries, provider applications and
                       subscriptions reach the nodes. grpc uses the target's bidderRpcUrl and providerRpcUrls;
                       scenarios about HTTP-only details (status codes, content types, JSON text) are skipped
  --level LIST         levels to run, comma-separated: spec, upstream, intended (default: all three)
                         spec      the interface document says so
                         upstream  the interface is silent; upstream's behaviour at the pinned commit
                         intended  upstream has a documented defect; the suite expects the intended behaviour
  --tags EXPR          a cucumber tag expression to narrow the run (e.g. "@bids and not @sim")
  --name REGEX         only scenarios whose name matches
  --order ORDER        defined (default) or random[:SEED]
  --fail-fast          stop at the first failed scenario: the rest are reported skipped (for mutation runs)
  --json FILE          where to write the JSON result (default REPORTS/conformance-result.json)
  --reports DIR        where reports go (default ./reports)
  -h, --help           this text

Environment: TARGET (as --target), PROTOCOL (as --protocol), TRANSPORT (as --transport).
Capabilities a target file may list: ${Object.keys(CAPABILITIES).join(", ")}.
Before the first scenario a preflight checks what the run relies on in the target (URLs, chain ids, contracts, past
settlement states, the claimed capabilities, other provider applications), arranges what it can for the run (a
reference devnet's built-in applications and own L1 blocks, put back at the end), and skips or stops on the rest.
Exit status: 0 when every selected scenario passed or was skipped; 1 when one failed or was not run, or the
preflight stopped the run; 2 on a usage or target file error.`;

export class UsageError extends MevCommitError {}

export interface CliOptions {
  target: string | undefined;
  /** The protocol asked for (--protocol, PROTOCOL); undefined: the target file's, else v1.1. */
  protocol: ProtocolVersion | undefined;
  transport: Transport;
  levels: Level[];
  tags: string | undefined;
  name: string | undefined;
  order: string;
  failFast: boolean;
  json: string;
  reports: string;
  paths: string[];
}

export function parseCli(argv: string[], env = process.env): CliOptions | "help" {
  const parsed = parseArgsOr(
    {
      args: argv,
      allowPositionals: true,
      options: {
        target: { type: "string" },
        protocol: { type: "string" },
        transport: { type: "string" },
        level: { type: "string" },
        tags: { type: "string" },
        name: { type: "string" },
        order: { type: "string" },
        "fail-fast": { type: "boolean" },
        json: { type: "string" },
        reports: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    },
    (message) => new UsageError(message),
  );
  const v = parsed.values;
  if (v.help) return "help";
  const levels = (v.level ?? LEVELS.join(","))
    .split(",")
    .map((l) => l.trim().replace(/^@/, ""))
    .filter(Boolean);
  const bad = levels.filter((l) => !(LEVELS as readonly string[]).includes(l));
  if (bad.length || levels.length === 0)
    throw new UsageError(`--level takes ${LEVELS.join(", ")} (comma-separated), not "${v.level}"`);
  const order = v.order ?? "defined";
  if (!/^(defined|random(:\d+)?)$/.test(order))
    throw new UsageError(`--order is defined or random[:SEED], not "${order}"`);
  const transport = v.transport ?? env.TRANSPORT ?? "http";
  if (!(TRANSPORTS as readonly string[]).includes(transport))
    throw new UsageError(`--transport is ${TRANSPORTS.join(" or ")}, not "${transport}"`);
  const reports = resolve(v.reports ?? "reports");
  const protocolText = v.protocol ?? (env.PROTOCOL || undefined);
  let protocol: ProtocolVersion | undefined;
  try {
    protocol = protocolText === undefined ? undefined : parseProtocolVersion(protocolText);
  } catch (e) {
    throw new UsageError(`--protocol: ${(e as Error).message}`);
  }
  return {
    target: v.target ?? env.TARGET,
    protocol,
    transport: transport as Transport,
    levels: levels as Level[],
    tags: v.tags,
    name: v.name,
    order,
    failFast: v["fail-fast"] ?? false,
    json: resolve(v.json ?? join(reports, "conformance-result.json")),
    reports,
    paths: parsed.positionals.map((p) => resolve(p)),
  };
}

/** The passes of a run, in order; the first two make the main pass of the results (pass 1). */
export type PassKind = "clean-bidder" | "main" | "may-crash";

const PASS_TAGS: Record<PassKind, string> = {
  "clean-bidder": "@clean-bidder and not @may-crash",
  main: "not @clean-bidder and not @may-crash",
  "may-crash": "@may-crash",
};

/** The tag expression of one pass: the user's, the levels, and the pass's own. */
export function passTags(o: CliOptions, kind: PassKind): string {
  const parts = [`(${o.levels.map((l) => `@${l}`).join(" or ")})`, PASS_TAGS[kind]];
  if (o.tags) parts.unshift(`(${o.tags})`);
  return parts.join(" and ");
}

/** A stream that drops what is written to it. */
function discard(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

async function main(argv: string[]): Promise<number> {
  const o = parseCli(argv);
  if (o === "help") {
    console.log(HELP);
    return 0;
  }
  mkdirSync(o.reports, { recursive: true });
  // The world reads the transport from the environment (also under plain cucumber-js).
  process.env.TRANSPORT = o.transport;
  const started = new Date();
  if (!hasRun()) setRun(await startTarget(o.target, o.reports, o.protocol));
  const t = run().target;
  // A target that is down from the start (and has no restart command): said in one line, and no scenario is run
  // against it (each is recorded "not run" in the JSON result; the console gets the count line alone).
  const down = t.restart ? undefined : await probeTarget(t);
  if (down) {
    console.error(
      `error: the target ${t.name} does not answer: ${down}; is it running? (npm run node starts a devnet; --target names another target file)`,
    );
    markDown(down);
  }
  const say = (line: string) => {
    if (!down) console.log(line);
  };
  if (!down) await learnProviderNames(t);
  say(
    `Target: ${t.name}${t.version ? ` ${t.version}` : ""} — bidder ${t.bidderUrl}, ${t.providerUrls.length} providers, capabilities [${t.capabilities.join(", ")}]`,
  );
  say(`Providers: ${providersLine(t)}`);
  if (o.transport === "grpc") {
    if (!t.bidderRpcUrl || (t.providerRpcUrls?.length ?? 0) < t.providerUrls.length)
      throw new TargetFileError(
        `--transport grpc needs the target's bidderRpcUrl and one providerRpcUrls entry per provider (capability grpc)`,
      );
    say(`Transport: gRPC — bidder ${t.bidderRpcUrl}, providers ${t.providerRpcUrls!.join(", ")}`);
  }
  say(
    `Protocol: ${t.protocol} (${run().ownDevnet ? "the suite's own devnet" : `the target file's "protocol"`}); scenarios tagged ${PROTOCOL_VERSIONS.filter(
      (v) => v !== t.protocol,
    )
      .map(versionTag)
      .join(", ")} are skipped`,
  );
  say(`Levels: ${o.levels.map((l) => `@${l}`).join(", ")}${o.tags ? `; tags ${o.tags}` : ""}; order ${o.order}`);
  // A target with a restart command that is down is restarted first, so that the preflight sees it; when that
  // fails, each scenario's turn tries again and says why it was not run.
  if (t.restart) {
    const dead = await probeTarget(t);
    if (dead) {
      markDown(dead);
      await restartTarget(t, (line) => console.log(line)).catch(() => {});
    }
  }
  // What an earlier run left changed on this target is put back first; what this run changes is recorded next to the
  // target file until it is put back (a run killed with SIGKILL leaves the record for the next run and npm run bid).
  const file = run().file;
  if (file && !run().ownDevnet && !targetDown()) await beginRecord(file, t, (line) => console.log(line));
  // What the run relies on in the target, checked (and arranged where the suite can) before the first scenario.
  const pf = targetDown() ? undefined : await runPreflight(t);
  setPreflight(pf);
  if (pf) console.log(preflightText(pf));
  const info = (): RunInfo => ({
    suite: suiteInfo(),
    target: {
      name: t.name,
      version: t.version ?? null,
      protocol: t.protocol,
      capabilities: t.capabilities,
      bidTimeoutMs: t.bidTimeoutMs,
      decisionTimeoutMs: t.decisionTimeoutMs,
    },
    levels: o.levels,
    tags: o.tags ?? null,
    order: o.order,
    transport: o.transport,
    startedAt: started.toISOString(),
    durationMs: Date.now() - started.getTime(),
    preflight: pf ? preflightJson(pf) : null,
    leftOnTarget: leftOnTarget(),
  });
  const collector = new ResultCollector();
  if (pf?.stop) {
    mkdirSync(dirname(o.json), { recursive: true });
    writeFileSync(o.json, `${JSON.stringify(resultJson(info(), collector), null, 2)}\n`);
    for (const line of await undoPreflight(pf)) console.log(line);
    endRecord();
    console.error(`error: the target cannot be tested as it is: ${pf.stop}`);
    return 1;
  }

  const { runConfiguration } = await loadConfiguration({
    file: false,
    provided: {
      paths: o.paths.length ? o.paths : [join(ROOT, "features", "**", "*.feature")],
      import: [join(ROOT, "features", "support", "**", "*.ts"), join(ROOT, "features", "steps", "**", "*.ts")],
      strict: true,
      order: o.order as "defined",
      name: o.name ? [o.name] : [],
      failFast: o.failFast,
    },
  });
  let support: IRunConfiguration["support"] | Awaited<ReturnType<typeof loadSupport>> =
    await loadSupport(runConfiguration);
  let mainPassStarted = false;
  for (const kind of ["clean-bidder", "main", "may-crash"] as const) {
    const mayCrash = kind === "may-crash";
    const suffix = kind === "main" ? "" : `-${kind}`;
    const config = {
      ...runConfiguration,
      sources: { ...runConfiguration.sources, tagExpression: passTags(o, kind) },
      support,
      formats: {
        stdout: "progress",
        files: {
          [join(o.reports, `cucumber-junit${suffix}.xml`)]: "junit",
          [join(o.reports, `cucumber-report${suffix}.html`)]: "html",
          [join(o.reports, `cucumber-messages${suffix}.ndjson`)]: "message",
        },
        options: { junit: { suiteName: `mev-commit conformance${mayCrash ? " (@may-crash)" : ""}` } },
        publish: false as const,
      },
    };
    if (kind !== "main") {
      if (o.failFast && collector.counts().failed > 0) break;
      const { plan } = await loadSources(config.sources);
      if (plan.length === 0) continue;
      say(
        mayCrash
          ? `\n=== ${plan.length} @may-crash scenario(s), run last`
          : `=== ${plan.length} @clean-bidder scenario(s), run first`,
      );
    }
    // @clean-bidder and the rest are one pass (1) in the results; @may-crash is pass 2.
    if (mayCrash || !mainPassStarted) collector.startPass();
    mainPassStarted = true;
    // Against a target down from the start, cucumber's progress (a line of skips per pass) is not printed.
    const r = await runCucumber(config, down ? { stdout: discard() } : undefined, collector.onMessage);
    support = r.support;
  }
  // A run stopped by a signal ends in the signal's handler, which puts the target back (exitOnSignals).
  if (interrupted()) await new Promise<never>(() => {});
  if (pf) for (const line of await undoPreflight(pf)) console.log(line);
  endRecord();
  mkdirSync(dirname(o.json), { recursive: true });
  const done = info();
  writeFileSync(o.json, `${JSON.stringify(resultJson(done, collector), null, 2)}\n`);
  const summary = summaryText(done, collector, relative(process.cwd(), o.json) || o.json);
  console.log(down ? summary.split("\n").at(-1) : summary);
  const totals = collector.counts();
  return totals.failed > 0 || totals.notRun > 0 ? 1 : 0;
}

/**
 * SIGINT (Ctrl-C) and SIGTERM: what the run changed on the target is put back from its record, each item said, the
 * suite's own devnet is stopped, and the run exits 130 or 143. A second signal leaves at once; the record then
 * stays for the next run of the suite and for npm run bid, which put it back.
 */
function exitOnSignals(): void {
  let stopping = false;
  const onSignal = (signal: "SIGINT" | "SIGTERM") => {
    const code = signal === "SIGINT" ? 130 : 143;
    const rec = currentRecord();
    if (stopping) {
      console.log(
        `${signal} again: leaving now${rec ? `; ${rec.path} lists what is left changed, and the next run of the suite (or npm run bid) puts it back` : ""}`,
      );
      process.exit(code);
    }
    stopping = true;
    markInterrupted(signal);
    void (async () => {
      if (rec && hasRun()) {
        console.log(
          `\n${signal}: stopping the run; putting back what it changed on the target (${describeRecord(rec.record).join(", ") || "nothing yet"})`,
        );
        const lines = await putBack(run().target, rec.record).catch((e: Error) => [
          `left unknown: what the run changed (${e.message.split("\n")[0]})`,
        ]);
        // On a line of their own: cucumber's progress goes on marking the scenarios left as not run.
        console.log(`\n${(lines.length ? lines : ["nothing was left to put back"]).map((l) => `  ${l}`).join("\n")}`);
        if (lines.every((l) => l.startsWith("restored"))) endRecord();
        else console.log(`  ${rec.path} keeps the record: the next run of the suite (or npm run bid) tries again`);
      } else console.log(`\n${signal}: stopping the run`);
      if (hasRun())
        await run()
          .stop()
          .catch(() => {});
      process.exit(code);
    })();
  };
  process.on("SIGINT", () => onSignal("SIGINT"));
  process.on("SIGTERM", () => onSignal("SIGTERM"));
}

if (import.meta.main) {
  exitOnSignals();
  let code: number;
  try {
    code = await main(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError || e instanceof TargetFileError) {
      console.error(`error: ${e.message}${e instanceof UsageError ? "; run with --help for the options" : ""}`);
      code = 2;
    } else {
      const failed = describeCliError(e, {
        unreachable: "is the target running? (npm run node starts a devnet; --target names another target file)",
      });
      console.error(failed.line);
      code = failed.exitCode;
    }
  }
  if (interrupted()) await new Promise<never>(() => {});
  // A run that stopped on an error puts back what the preflight arranged, and what its record still lists.
  const pf = preflight();
  if (pf) for (const line of await undoPreflight(pf).catch(() => [])) console.log(line);
  const rec = currentRecord();
  if (rec && hasRun()) {
    const lines = await putBack(run().target, rec.record).catch((e: Error) => [`left unknown: ${e.message}`]);
    for (const line of lines) console.log(line);
    if (lines.every((l) => l.startsWith("restored"))) endRecord();
  }
  if (hasRun())
    await run()
      .stop()
      .catch(() => {});
  // Libraries leave timers behind; everything the suite started is stopped.
  process.exit(code);
}
