/**
 * The devnet's start stays readable: startDevnet.ts is at most 400 lines and no function (declaration, method,
 * accessor, constructor, arrow function or function expression) in node/devnet's code is longer than 80 lines,
 * but for the exceptions listed below with their length today, which may only shrink (a ratchet). The files are
 * parsed with the TypeScript compiler (the `typescript` package's API), not scanned for braces.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Node, type SourceFile, SyntaxKind } from "typescript/unstable/ast";
import { API } from "typescript/unstable/async";

const DIR = resolve(import.meta.dir);
const MAX_START_DEVNET_LINES = 400;
const MAX_FUNCTION_LINES = 80;
/** Today's longer functions (file, name: lines). A change may shorten them; none may grow or join the list. */
const EXCEPTIONS: Record<string, number> = {
  "config.ts parseDevnetArgs": 223,
};

const FUNCTION_KINDS = new Set([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
]);

interface FunctionLength {
  file: string;
  name: string;
  line: number;
  lines: number;
}

const codeFiles = readdirSync(DIR).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
let api: API | undefined;
let tmp: string | undefined;
const parsed = new Map<string, SourceFile>();

beforeAll(async () => {
  // A project of just these files, unresolved: parsing is all this test needs.
  tmp = mkdtempSync(join(tmpdir(), "devnet-structure-"));
  const files = codeFiles.map((f) => join(DIR, f));
  const config = { compilerOptions: { noResolve: true, noLib: true, types: [] }, files };
  writeFileSync(join(tmp, "tsconfig.json"), JSON.stringify(config));
  api = new API({ cwd: tmp });
  const snapshot = await api.updateSnapshot({ openProject: join(tmp, "tsconfig.json") });
  const project = snapshot.getProjects()[0]!;
  for (const f of codeFiles) {
    const sf = await project.program.getSourceFile(join(DIR, f));
    if (sf) parsed.set(f, sf);
  }
}, 60_000);

afterAll(async () => {
  await api?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

function nameOf(n: Node, sf: SourceFile): string {
  const named = (n as { name?: Node }).name;
  if (named) return sf.text.slice(named.getStart(sf), named.end);
  if (n.kind === SyntaxKind.Constructor) return "constructor";
  // An arrow function or function expression: the variable or property it is assigned to, when there is one.
  const parent = n.parent as { name?: Node } | undefined;
  return parent?.name ? sf.text.slice(parent.name.getStart(sf), parent.name.end) : "(anonymous)";
}

function functionLengths(file: string, sf: SourceFile): FunctionLength[] {
  const lineOf = (pos: number) => sf.text.slice(0, pos).split("\n").length;
  const out: FunctionLength[] = [];
  const visit = (n: Node): void => {
    if (FUNCTION_KINDS.has(n.kind) && (n as { body?: Node }).body) {
      const line = lineOf(n.getStart(sf));
      out.push({ file, name: nameOf(n, sf), line, lines: lineOf(n.end) - line + 1 });
    }
    n.forEachChild(visit);
  };
  visit(sf);
  return out;
}

describe("node/devnet's structure", () => {
  test("every code file of node/devnet parsed, with its functions", () => {
    expect([...parsed.keys()].sort()).toEqual([...codeFiles].sort());
    const start = functionLengths("startDevnet.ts", parsed.get("startDevnet.ts")!);
    // Guards the checks below against a parse that finds nothing.
    expect(start.map((f) => f.name)).toContain("startDevnet");
    expect(start.length).toBeGreaterThan(20);
  });

  test(`startDevnet.ts has at most ${MAX_START_DEVNET_LINES} lines`, () => {
    const lines = parsed.get("startDevnet.ts")!.text.split("\n").length;
    expect(lines).toBeLessThanOrEqual(MAX_START_DEVNET_LINES);
  });

  test(`no function is longer than ${MAX_FUNCTION_LINES} lines, but for today's exceptions, which only shrink`, () => {
    const all = [...parsed].flatMap(([file, sf]) => functionLengths(file, sf));
    const tooLong = all
      .filter((f) => f.lines > (EXCEPTIONS[`${f.file} ${f.name}`] ?? MAX_FUNCTION_LINES))
      .map((f) => `${f.file}:${f.line} ${f.name}: ${f.lines} lines`);
    expect(tooLong).toEqual([]);
    // An exception that is no longer needed comes off the list.
    const stillLong = new Set(all.filter((f) => f.lines > MAX_FUNCTION_LINES).map((f) => `${f.file} ${f.name}`));
    expect(Object.keys(EXCEPTIONS).filter((k) => !stillLong.has(k))).toEqual([]);
  });
});
