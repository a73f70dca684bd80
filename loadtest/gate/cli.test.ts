/**
 * `npm run load -- --profile gate`'s flags: a target file that does not exist (--target) and levels or bids it cannot
 * run are refused in one line with exit code 2, before k6 or a devnet starts.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

async function run(args: string[]) {
  const { TARGET: _shellTarget, ...env } = process.env;
  const p = Bun.spawn(["bun", "loadtest/run.ts", "--profile", "gate", ...args], {
    cwd: ROOT,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out: out.trim(), err: err.trim() };
}

describe("the gate refuses what it cannot run", () => {
  for (const [what, args, message] of [
    ["--target of no file", ["--target", "/nonexistent/target.json"], /target file .* does not exist/],
    ["--levels not ascending", ["--levels", "8,1"], /--levels must be ascending, got "8,1"/],
    ["--levels not a number", ["--levels", "1,many"], /--levels must be a whole number ≥ 1, got "many"/],
    ["--bids below the highest level", ["--levels", "1,8,32", "--bids", "16"], /--bids \(16\) must be at least/],
  ] as const)
    test(what, async () => {
      const r = await run([...args]);
      expect(r.code).toBe(2);
      expect(r.err.split("\n")).toHaveLength(1);
      expect(r.err).toMatch(message);
      expect(r.out).not.toContain("devnet");
    });
});
