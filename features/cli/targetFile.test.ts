/**
 * Every command that takes a target file (--target or TARGET) refuses one it cannot find, in one line and with exit
 * code 2, before it starts anything: it never falls back to a devnet of its own.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "target-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const missing = join(dir, "target.json");

const COMMANDS: Record<string, string[]> = {
  conformance: ["features/cli/conformance.ts", "--tags", "@none"],
  simulate: ["scenarios/sim/cli.ts", "scenarios/honest-market.yaml"],
  load: ["loadtest/run.ts"],
};

async function run(args: string[], env: Record<string, string>) {
  const { TARGET: _shellTarget, ...base } = process.env;
  const p = Bun.spawn(["bun", ...args], { cwd: ROOT, env: { ...base, ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out: out.trim(), err: err.trim() };
}

describe("a target file that does not exist", () => {
  for (const [name, args] of Object.entries(COMMANDS)) {
    test(`${name}: TARGET=missing exits 2 with one line`, async () => {
      const r = await run(args, { TARGET: missing });
      expect(r.code).toBe(2);
      expect(r.err.split("\n")).toHaveLength(1);
      expect(r.err).toContain(`${missing} does not exist`);
      expect(r.out).not.toContain("devnet");
    });
    test(`${name}: an empty TARGET exits 2 with one line`, async () => {
      const r = await run(args, { TARGET: "" });
      expect(r.code).toBe(2);
      expect(r.err.split("\n")).toHaveLength(1);
      expect(r.err).toContain("is empty");
    });
  }
  for (const [name, args] of Object.entries(COMMANDS).filter(([n]) => n !== "load"))
    test(`${name}: --target missing exits 2 with one line`, async () => {
      const r = await run([args[0]!, "--target", missing, ...args.slice(1)], {});
      expect(r.code).toBe(2);
      expect(r.err.split("\n")).toHaveLength(1);
      expect(r.err).toContain(`${missing} does not exist`);
    });
});
