/**
 * Every command docs/conformance.md shows is one that works: its code blocks and inline code are read, each
 * `npm run X` names a script of package.json, and the flags of each devnet command (`npm run node -- …`, `bun
 * node/main.ts …`) and each suite command (`npm run test:features -- …`, `npx mev-commit-conformance …`, `bun
 * features/cli/conformance.ts …`) parse with that CLI's own parser. Placeholders (`<…>`, `target.json`) stand for
 * values; `[…]` marks optional parts and is left out.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseDevnetArgs } from "../../node/devnet/config.ts";
import { parseCli } from "./conformance.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const DOC = readFileSync(join(ROOT, "docs", "conformance.md"), "utf8");
const SCRIPTS = Object.keys(
  (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts,
);

/** The doc's commands: each shell line of a code block (continuations joined, YAML `run:` steps) and inline code. */
export function docCommands(md: string): string[] {
  const out: string[] = [];
  const fence = /```(\w*)\n([\s\S]*?)```/g;
  for (const [, lang, body] of md.matchAll(fence)) {
    if (lang !== "sh" && lang !== "yaml") continue;
    for (const line of body!.replace(/\\\n\s*/g, " ").split("\n")) {
      const cmd = lang === "yaml" ? /^\s*- run: (.*)$/.exec(line)?.[1] : line;
      if (cmd?.trim()) out.push(cmd.trim());
    }
  }
  for (const [, span] of md.replace(fence, "").matchAll(/`([^`]+)`/g)) {
    const cmd = span!.replace(/\s+/g, " ").trim();
    if (/^(npm run |npx |bun |TARGET=|scripts\/\S+\s)/.test(cmd)) out.push(cmd);
  }
  return out;
}

/** A command's words: quotes kept together, `[…]` groups, comments, redirections and `&`, `|| …` left out. */
function words(cmd: string): string[] {
  const text = cmd
    .replace(/\s#\s.*$/, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\s(\|\||&&|>|\|)\s.*$/, "")
    .replace(/\s&$/, "");
  return [...text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

type Parsed = { cli: "devnet" | "role" | "suite" | "script" | "other"; args: string[] };

/** Which CLI a command runs, and the arguments it passes to it. */
function classify(cmd: string): Parsed {
  const w = words(cmd).filter((x) => !/^[A-Z_]+=/.test(x));
  const after = (n: number) => w.slice(w[n] === "--" ? n + 1 : n);
  if (w[0] === "npm" && w[1] === "run") {
    if (w[2] === "node") return { cli: after(3).includes("--role") ? "role" : "devnet", args: after(3) };
    if (w[2] === "test:features") return { cli: "suite", args: after(3) };
    return { cli: "script", args: [w[2]!] };
  }
  const main = w.findIndex((x) => x.endsWith("node/main.ts"));
  if (main >= 0) return { cli: "devnet", args: w.slice(main + 1) };
  const suite = w.findIndex((x) => x === "mev-commit-conformance" || x.endsWith("features/cli/conformance.ts"));
  if (suite >= 0) return { cli: "suite", args: w.slice(suite + 1) };
  return { cli: "other", args: [] };
}

const commands = docCommands(DOC).map((c) => ({ cmd: c, ...classify(c) }));

describe("docs/conformance.md's commands", () => {
  test("the doc shows devnet and suite commands (the extraction finds them)", () => {
    expect(commands.filter((c) => c.cli === "devnet").length).toBeGreaterThanOrEqual(3);
    expect(commands.filter((c) => c.cli === "suite").length).toBeGreaterThanOrEqual(6);
  });

  test.each(commands.filter((c) => c.cli === "script").map((c) => [c.cmd, c.args[0]!]))(
    "%s names a script of package.json",
    (_cmd, script) => {
      expect(SCRIPTS).toContain(script);
    },
  );

  test.each(commands.filter((c) => c.cli === "devnet").map((c) => [c.cmd, c.args]))(
    "%s: the devnet's parser takes its flags",
    (_cmd, args) => {
      expect(() => parseDevnetArgs(args)).not.toThrow();
    },
  );

  test.each(commands.filter((c) => c.cli === "suite").map((c) => [c.cmd, c.args]))(
    "%s: the suite's parser takes its flags",
    (_cmd, args) => {
      expect(() => parseCli(args, {})).not.toThrow();
    },
  );

  test("the devnets the doc tells to start for upstream's node keep the past states the settlement checks read", () => {
    // Section 8's "The devnet" step and the CI example (the figures' paragraph records how those runs were made).
    const step = /\*\*The devnet\*\*: `([^`]+)`/.exec(DOC)?.[1]?.replace(/\s+/g, " ");
    const ci = commands.filter((c) => c.cli === "devnet" && c.args.includes("--no-nodes") && c.cmd.includes("main.ts"));
    expect(step).toBeDefined();
    expect(ci.length).toBe(1);
    for (const args of [classify(step!).args, ci[0]!.args]) {
      expect(args).toContain("--no-nodes");
      expect(parseDevnetArgs(args)).toMatchObject({ settlementHistory: 64 });
    }
  });

  test("a flag the CLIs do not know is caught (the check can fail)", () => {
    expect(() => parseDevnetArgs(classify("npm run node -- --no-such-flag").args)).toThrow();
    expect(() => parseCli(classify("npx mev-commit-conformance --no-such-flag").args, {})).toThrow();
  });
});

const UPSTREAM_DOCS = ["conformance.md", "interop.md", "p2p.md", "faults.md"].map((f) => ({
  file: f,
  commands: docCommands(readFileSync(join(ROOT, "docs", f), "utf8")),
}));

describe("the commands of the docs on upstream's nodes", () => {
  test("none starts with bun: after npm install it is only in node_modules/.bin (npm run … and npx bun are)", () => {
    for (const { file, commands } of UPSTREAM_DOCS) {
      const bare = commands.filter((c) => /^(\S+=\S+\s+)*bun\s/.test(c));
      expect({ file, bare }).toEqual({ file, bare: [] });
    }
    expect(
      docCommands("```sh\nTARGET=t.json bun features/cli/conformance.ts\n```").some((c) =>
        /^(\S+=\S+\s+)*bun\s/.test(c),
      ),
    ).toBe(true);
  });

  // The subcommands and options scripts/upstream.sh takes, read from its own case statements.
  const script = readFileSync(join(ROOT, "scripts", "upstream.sh"), "utf8");
  const options = new Set([...script.matchAll(/^\s+(--[a-z-]+)\) /gm)].map((m) => m[1]!));
  const subcommands = new Set([...script.matchAll(/^(\w+)\) \1 ;;$/gm)].map((m) => m[1]!));
  const upstreamCommands = UPSTREAM_DOCS.flatMap(({ file, commands }) =>
    commands.filter((c) => c.startsWith("scripts/upstream")).map((c) => [file, c] as const),
  );

  test("the docs run scripts/upstream.sh (the extraction finds it)", () => {
    expect(upstreamCommands.length).toBeGreaterThanOrEqual(8);
    expect([...subcommands].sort()).toEqual(["build", "demo", "restart", "start", "stop"]);
  });

  test.each(upstreamCommands)("%s: %s is a subcommand and options of scripts/upstream.sh", (_file, cmd) => {
    const w = words(cmd);
    expect(existsSync(join(ROOT, w[0]!))).toBe(true);
    expect(subcommands.has(w[1]!)).toBe(true);
    for (const flag of w.filter((x) => x.startsWith("--"))) expect(options).toContain(flag);
    if (w[1] === "build" || w[1] === "start") expect(w).toContain("--version");
  });
});
