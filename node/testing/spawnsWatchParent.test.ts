/**
 * Every test that starts a devnet or a `--role` node in a process of its own (`bun node/main.ts`, `npm run node`)
 * makes it watch the test's process: through the helpers of node/testing (devnetChild.ts, roleProcess.ts), or by
 * passing `--parent-pid` itself. Then a test that fails before its cleanup, or is killed, leaves nothing running.
 * A check of the test files' text: a file that names node/main.ts or `npm run node` in a string and starts a
 * process with spawn (not spawnSync, which waits for it) must do one of those.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const SELF = "node/testing/spawnsWatchParent.test.ts";

/** Why a test file's spawned nodes may outlive it, or undefined when they cannot. */
export function outlivesTest(text: string): string | undefined {
  const startsNode = /["'`](?:[^"'`\n]*\/)?main\.ts["'`]|["']npm run node["']/.test(text);
  const spawns = /\bspawn\(/.test(text);
  if (!startsNode || !spawns) return undefined;
  const watched =
    /"--parent-pid"|--parent-pid \$\{process\.pid\}/.test(text) ||
    /\b(startDevnetChild|runDevnetOnce|startRoleProcess|runRoleOnce)\(/.test(text);
  return watched
    ? undefined
    : "spawns bun node/main.ts (or npm run node) without --parent-pid or a node/testing helper";
}

test("the check flags a spawned node without --parent-pid, and passes one with it or a helper", () => {
  const bare = 'const p = spawn(["bun", "node/main.ts", "--data-dir", dir]);';
  expect(outlivesTest(bare)).toBeString();
  expect(outlivesTest(bare.replace("dir]", 'dir, "--parent-pid", String(process.pid)]'))).toBeUndefined();
  expect(outlivesTest('spawn(["bash", "-c", cmd]); if (line === "npm run node") {}')).toBeString();
  expect(outlivesTest('const d = await startDevnetChild(dir, ["node/main.ts"]); spawn(["bun", "x.ts"]);')).toBe(
    undefined,
  );
  expect(outlivesTest('Bun.spawnSync(["bun", "node/main.ts", "--help"]);')).toBeUndefined();
});

test("no test file starts a node that can outlive it", () => {
  const files = [...new Bun.Glob("**/*.test.ts").scanSync({ cwd: ROOT, followSymlinks: false })].filter(
    (f) => !f.includes("node_modules/") && f !== SELF,
  );
  expect(files.length).toBeGreaterThan(100);
  const found = files.flatMap((f) => {
    const why = outlivesTest(readFileSync(join(ROOT, f), "utf8"));
    return why ? [`${f}: ${why}`] : [];
  });
  expect(found).toEqual([]);
});
