/** The README's table of commands quotes some package.json scripts word for word: each quote is the script itself. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");

test("each `npm run X` row that quotes its command quotes package.json's script X", () => {
  const scripts = (
    JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
  ).scripts;
  const rows = readFileSync(resolve(ROOT, "README.md"), "utf8")
    .split("\n")
    .flatMap((line) => {
      const m = /^\| `npm run ([\w:-]+)` +\| only `([^`]+)`/.exec(line);
      return m ? [{ name: m[1]!, quoted: m[2]! }] : [];
    });
  expect(rows.map((r) => r.name)).toContain("test:unit");
  for (const r of rows)
    expect({ name: r.name, command: r.quoted }).toEqual({ name: r.name, command: scripts[r.name]! });
});
