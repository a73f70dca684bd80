/**
 * How our commands fail: one line on stderr that says what went wrong and what to do, and a non-zero exit code,
 * never a stack trace (CLI_STACK=1 prints it, for debugging the command itself).
 *
 *   const { values } = parseCliArgs({ options: { … } });   // an unknown or malformed flag: CliUsageError
 *   exitOnCliErrors({ unreachable: "start a devnet with npm run node" });  // anything thrown after this line
 *
 * Exit codes: 2 for a usage mistake (bad flag, bad value), 1 for everything else.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { MevCommitError } from "./errors.ts";

/** A flag or argument the command cannot use; the message says which and what it wants. */
export class CliUsageError extends MevCommitError {
  readonly exitCode = 2;
}

/** The command ran and failed for a reason its user can act on; the message says what to do. */
export class CliFailure extends MevCommitError {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** parseArgs (strict; `args` defaults to the command's) whose mistakes are CliUsageErrors of one line pointing at --help. */
export function parseCliArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  return parseArgsOr(config.args ? config : ({ ...config, args: process.argv.slice(2) } as T), (message) => {
    return new CliUsageError(`${message}; run with --help for the options`);
  });
}

/**
 * parseArgs whose mistake is thrown as `usageError(argsErrorMessage(…))`: for commands with their own usage error
 * class. A mistyped flag is answered with the nearest known one ("did you mean --protocol?").
 */
export function parseArgsOr<T extends ParseArgsConfig>(
  config: T,
  usageError: (message: string) => Error,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (e) {
    throw usageError(argsErrorMessage(e as Error, config.options));
  }
}

/** A flag's value as an integer of at least `min` (a count, a port, seconds); anything else is a CliUsageError. */
export function integerFlag(name: string, value: string, min = 1): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new CliUsageError(`--${name} must be an integer ≥ ${min}, got "${value}"`);
  return n;
}

/**
 * parseArgs' error in a few words ("unknown option --protcol (did you mean --protocol?)"), for commands that word their
 * own usage errors; given the command's options, a mistyped one is answered with the nearest.
 */
export function argsErrorMessage(e: Error, options?: ParseArgsConfig["options"]): string {
  const first = firstLine(e.message);
  const unknown = /^Unknown option '([^']+)'/.exec(first);
  if (unknown) {
    const near = options ? nearestOption(unknown[1]!, options) : undefined;
    return `unknown option ${unknown[1]}${near ? ` (did you mean ${near}?)` : ""}`;
  }
  const positional = /^Unexpected argument '([^']+)'/.exec(first);
  if (positional) return `unexpected argument ${positional[1]}`;
  return first.replace(/^./, (c) => c.toLowerCase());
}

/**
 * The known option nearest to a mistyped one ("--protcol" → "--protocol", "--tag" → "--tags", "-hh" → none): within
 * two edits, or a third of the name's length for long names; undefined when none is that near or two are equally near.
 */
export function nearestOption(typed: string, options: NonNullable<ParseArgsConfig["options"]>): string | undefined {
  const name = typed.replace(/^-+/, "").split("=")[0]!.toLowerCase();
  if (!name) return undefined;
  const limit = Math.max(2, Math.floor(name.length / 3));
  let best: { option: string; d: number } | undefined;
  let tie = false;
  for (const option of Object.keys(options)) {
    const d = editDistance(name, option.toLowerCase());
    if (d > limit || (best && d > best.d)) continue;
    tie = best !== undefined && d === best.d;
    if (!best || d < best.d) best = { option, d };
  }
  return best && !tie ? `--${best.option}` : undefined;
}

/** Levenshtein distance, counting a swap of two neighbours as one edit. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}

/**
 * A number flag's value (`fallback` when not given); anything else than a number ≥ `min` (a whole one unless
 * `fraction`) is a CliUsageError naming the flag.
 */
export function numberOption(
  flag: string,
  value: string | undefined,
  fallback: number,
  o: { min?: number; fraction?: boolean } = {},
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  const min = o.min ?? 0;
  if (value.trim() === "" || !Number.isFinite(n) || n < min || (!o.fraction && !Number.isInteger(n)))
    throw new CliUsageError(`${flag} must be a ${o.fraction ? "number" : "whole number"} ≥ ${min}, got "${value}"`);
  return n;
}

/** Errors our parsers throw for bad input (ConfigError, RoleConfigError, UsageError, ScenarioError…): exit 2, message as is. */
const USAGE_ERROR_NAME = /(Config|Usage|Scenario)Error$/;

const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ConnectionRefused",
  "ECONNRESET",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ETIMEDOUT",
  "FailedToOpenSocket",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** The URL a connection failure names, if `e` (or an error it wraps) is one: Bun's fetch, viem, gRPC. */
export function unreachableUrl(e: unknown): string | undefined {
  let url: string | undefined;
  for (
    let c = e as (Error & { code?: unknown; path?: unknown; url?: unknown; cause?: unknown }) | undefined, depth = 0;
    c && depth < 8;
    c = c.cause as typeof c, depth++
  ) {
    if (typeof c.url === "string") url ??= c.url;
    if (typeof c.path === "string" && /^\w+:\/\//.test(c.path)) url ??= c.path;
    url ??= /\bhttps?:\/\/[^\s"'),;]+/.exec(String(c.message ?? ""))?.[0];
    const code = typeof c.code === "string" ? c.code : undefined;
    if (
      (code && UNREACHABLE_CODES.has(code)) ||
      /ECONNREFUSED|Unable to connect|connection refused/i.test(String(c.message ?? ""))
    )
      return url ?? "the target";
  }
  return undefined;
}

/** Fails with one line (CliFailure) unless `url` answers HTTP at all (any status): for commands about to use a target. */
export async function requireReachable(url: string, hint: string): Promise<void> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(5_000) });
  } catch (e) {
    const unreachable = unreachableUrl(e);
    throw new CliFailure(
      `cannot reach ${unreachable && unreachable !== "the target" ? unreachable : url} (${unreachable ? "connection refused" : firstLine((e as Error).message)}); ${hint}`,
    );
  }
}

export interface CliErrorHints {
  /** What to do when the target does not answer, e.g. "start a devnet with npm run node or name another with --target". */
  unreachable?: string;
  /** Run before exiting (stop what the command started); given 10 s at most. */
  cleanup?: () => Promise<unknown>;
}

/** The one line a failure prints, and the exit code. */
export function describeCliError(e: unknown, hints: CliErrorHints = {}): { line: string; exitCode: number } {
  if (e instanceof CliUsageError || e instanceof CliFailure)
    return { line: `error: ${e.message}`, exitCode: e.exitCode };
  if (e instanceof Error && USAGE_ERROR_NAME.test(e.name))
    return { line: `error: ${firstLine(e.message)}`, exitCode: 2 };
  const url = unreachableUrl(e);
  if (url)
    return {
      line: `error: cannot reach ${url} (connection refused); ${hints.unreachable ?? "is the target running?"}`,
      exitCode: 1,
    };
  const err = e instanceof Error ? e : new Error(String(e));
  return {
    line: `error: ${err.name && err.name !== "Error" ? `${err.name}: ` : ""}${firstLine(err.message)} (CLI_STACK=1 shows where)`,
    exitCode: 1,
  };
}

let installed: CliErrorHints | undefined;
let exiting = false;

/**
 * From here on, an error nothing caught (a top-level await included) ends the command with describeCliError's line.
 * A second call replaces the hints.
 */
export function exitOnCliErrors(hints: CliErrorHints = {}): void {
  const first = installed === undefined;
  installed = hints;
  if (!first) return;
  const fail = (e: unknown) => void failWith(e);
  process.on("uncaughtException", fail);
  process.on("unhandledRejection", fail);
}

/** Prints the line for `e`, runs the cleanup, exits. */
export async function failWith(e: unknown, hints: CliErrorHints = installed ?? {}): Promise<never> {
  if (exiting) return new Promise<never>(() => {});
  exiting = true;
  const { line, exitCode } = describeCliError(e, hints);
  console.error(line);
  if (process.env.CLI_STACK && e instanceof Error && e.stack) console.error(e.stack);
  if (hints.cleanup) {
    setTimeout(() => process.exit(exitCode), 10_000).unref();
    await hints.cleanup().catch(() => {});
  }
  process.exit(exitCode);
}

function firstLine(s: string): string {
  return (s.split("\n").find((l) => l.trim()) ?? s).trim();
}
