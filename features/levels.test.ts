/**
 * Every scenario carries exactly one level (@spec, @upstream or @intended); an @intended one names the entry of
 * docs/divergences.md it enforces, and every named entry exists there. Version tags name known protocol versions,
 * and the window features hold for v1.1 only.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AstBuilder, compile, GherkinClassicTokenMatcher, Parser } from "@cucumber/gherkin";
import { IdGenerator } from "@cucumber/messages";
import { divergenceOf, LEVELS } from "./cli/results.ts";
import { PROTOCOL_VERSIONS, versionSkipReason, versionsOf } from "./support/protocolVersion.ts";

const ROOT = join(import.meta.dir, "..");

function scenarios() {
  const out: { where: string; tags: string[]; divergence: string | null }[] = [];
  for (const file of readdirSync(join(ROOT, "features")).filter((f) => f.endsWith(".feature"))) {
    const text = readFileSync(join(ROOT, "features", file), "utf8");
    const newId = IdGenerator.incrementing();
    const doc = new Parser(new AstBuilder(newId), new GherkinClassicTokenMatcher()).parse(text);
    const byId = new Map<string, { line: number; description: string }>();
    for (const c of doc.feature?.children ?? [])
      if (c.scenario) byId.set(c.scenario.id, { line: c.scenario.location.line, description: c.scenario.description });
    for (const p of compile(doc, `features/${file}`, newId)) {
      const sc = byId.get(p.astNodeIds[0]!)!;
      out.push({
        where: `features/${file}:${sc.line} ${p.name}`,
        tags: p.tags.map((t) => t.name),
        divergence: divergenceOf(sc.description),
      });
    }
  }
  return out;
}

/** The Topic cells (first column) of every table in docs/divergences.md, backticks dropped. */
function divergenceTopics(): Set<string> {
  const text = readFileSync(join(ROOT, "docs", "divergences.md"), "utf8");
  const topics = new Set<string>();
  for (const line of text.split("\n")) {
    const m = /^\|\s*([^|]+?)\s*\|/.exec(line);
    if (m && !/^-+$/.test(m[1]!) && m[1] !== "Topic") topics.add(m[1]!.replaceAll("`", ""));
  }
  return topics;
}

describe("scenario levels", () => {
  const all = scenarios();

  test("the features hold scenarios", () => {
    expect(all.length).toBeGreaterThan(100);
  });

  test("every scenario has exactly one level", () => {
    const bad = all
      .filter((s) => s.tags.filter((t) => (LEVELS as readonly string[]).includes(t.slice(1))).length !== 1)
      .map((s) => `${s.where} [${s.tags.join(" ")}]`);
    expect(bad).toEqual([]);
  });

  test("every @intended scenario names the divergence it enforces", () => {
    expect(all.filter((s) => s.tags.includes("@intended") && !s.divergence).map((s) => s.where)).toEqual([]);
  });

  test("every named divergence is an entry of docs/divergences.md", () => {
    const topics = divergenceTopics();
    const unknown = all
      .filter((s) => s.divergence && !topics.has(s.divergence.replaceAll("`", "")))
      .map((s) => `${s.where}: "${s.divergence}"`);
    expect(unknown).toEqual([]);
  });
});

describe("scenario protocol versions", () => {
  const all = scenarios();

  test("a version tag names a known version, and a scenario tagged with every version says nothing", () => {
    const known = PROTOCOL_VERSIONS.map((v) => `@${v}`);
    const bad = all
      .filter((s) => {
        const tagged = s.tags.filter((t) => /^@v\d/.test(t));
        return tagged.some((t) => !known.includes(t)) || tagged.length === PROTOCOL_VERSIONS.length;
      })
      .map((s) => `${s.where} [${s.tags.join(" ")}]`);
    expect(bad).toEqual([]);
  });

  test("untagged scenarios hold for both versions; tagged ones for theirs, and are skipped with the reason", () => {
    expect(versionsOf(["@upstream"])).toEqual(["v1.1", "v1.2"]);
    expect(versionsOf(["@upstream", "@v1.2"])).toEqual(["v1.2"]);
    expect(versionSkipReason(["@upstream"], "v1.2")).toBeUndefined();
    expect(versionSkipReason(["@v1.1"], "v1.2")).toBe("protocol v1.1 only");
    expect(versionSkipReason(["@v1.2"], "v1.1")).toBe("protocol v1.2 only");
    expect(versionSkipReason(["@v1.2"], "v1.2")).toBeUndefined();
  });

  test("window deposits, auto-deposit and the per-window allowance hold for v1.1 only", () => {
    const windowOnly = all.filter((s) =>
      /features\/(deposits|deposit-allowance|settlement|decay)\.feature/.test(s.where),
    );
    expect(windowOnly.length).toBeGreaterThan(40);
    expect(windowOnly.filter((s) => !s.tags.includes("@v1.1")).map((s) => s.where)).toEqual([]);
  });

  test("each version has scenarios of its own and shares the rest", () => {
    const only = (v: string) => all.filter((s) => s.tags.includes(`@${v}`)).length;
    expect(only("v1.1")).toBeGreaterThan(0);
    expect(only("v1.2")).toBeGreaterThan(30);
    expect(all.filter((s) => !s.tags.some((t) => /^@v\d/.test(t))).length).toBeGreaterThan(100);
  });
});
