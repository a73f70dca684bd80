/**
 * `npm run mutate -- --smoke`: three chosen mutants of node/query/pageRequest.ts, each of which the @queries
 * scenarios must kill. It checks the whole chain in a couple of minutes: Stryker instruments the TypeScript, Bun runs
 * it, the active mutant reaches the devnet's node processes, and a failing scenario stops the run and counts as a kill.
 *
 * Mutants are chosen by the text they change (found in the file at run time, so edits elsewhere in it do not move
 * them) and by mutator: only those two mutators are applied to those ranges.
 */
import { readFileSync } from "node:fs";
import { CliFailure } from "../../lib/cli.ts";

export const SMOKE_FILE = "node/query/pageRequest.ts";
export const SMOKE_TAGS = "@queries";

/** Each yields one mutant: `page / limit`, `rawLimit !== 0`, `block === 0n`. */
export const SMOKE_SNIPPETS = ["offset: page * limit", "rawLimit === 0", "block !== 0n"] as const;

/** The mutators applied: every other one is excluded so that each snippet yields exactly one mutant. */
const SMOKE_MUTATORS = ["ArithmeticOperator", "EqualityOperator"];

export const ALL_MUTATORS = [
  "ArithmeticOperator",
  "ArrayDeclaration",
  "ArrowFunction",
  "AssignmentOperator",
  "BlockStatement",
  "BooleanLiteral",
  "ConditionalExpression",
  "EqualityOperator",
  "LogicalOperator",
  "MethodExpression",
  "ObjectLiteral",
  "OptionalChaining",
  "Regex",
  "StringLiteral",
  "UnaryOperator",
  "UpdateOperator",
];

/** Stryker's `file:line:column-line:column` range of the only occurrence of `snippet` in `source` (1-based lines). */
export function snippetRange(file: string, source: string, snippet: string): string {
  const at = source.indexOf(snippet);
  if (at < 0 || source.indexOf(snippet, at + 1) >= 0)
    throw new CliFailure(
      `the smoke mutant "${snippet}" is ${at < 0 ? "not" : "more than once"} in ${file}; update scripts/mutate/smoke.ts`,
    );
  const pos = (offset: number) => {
    const before = source.slice(0, offset).split("\n");
    return `${before.length}:${before[before.length - 1]!.length}`;
  };
  return `${file}:${pos(at)}-${pos(at + snippet.length)}`;
}

export function smokeRanges(root: string): string[] {
  const source = readFileSync(`${root}/${SMOKE_FILE}`, "utf8");
  return SMOKE_SNIPPETS.map((s) => snippetRange(SMOKE_FILE, source, s));
}

export const SMOKE_EXCLUDED_MUTATIONS = ALL_MUTATORS.filter((m) => !SMOKE_MUTATORS.includes(m));
