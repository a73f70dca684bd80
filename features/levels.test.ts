/**
 * Every scenario carries exactly one level (@spec, @upstream or @intended); an @intended one names the entry of
 * docs/divergences.md it enforces, and every named entry exists there.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AstBuilder, compile, GherkinClassicTokenMatcher, Parser } from "@cucumber/gherkin";
import { IdGenerator } from "@cucumber/messages";
import { divergenceOf, LEVELS } from "./cli/results.ts";

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
