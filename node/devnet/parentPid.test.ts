/**
 * `--parent-pid`: a devnet started by a test or a tool stops, as at Ctrl-C, once the process that started it is gone,
 * however that process ended (here SIGKILL, which runs none of its exit handlers): nothing is left on its ports.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawn } from "bun";
import { alive, anvilPids } from "../testing/devnetChild.ts";
import { freePortBase } from "../testing/freePortBase.ts";

const ROOT = resolve(import.meta.dir, "../..");
const dataDir = mkdtempSync(join(tmpdir(), "mev-commit-parent-pid-"));
const log = join(dataDir, "..", `${dataDir.split("/").pop()}.log`);
let devnetPid: number | undefined;

afterAll(() => {
  for (const pid of [devnetPid, ...anvilPids(dataDir)])
    if (pid && alive(pid))
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(log, { force: true });
});

test("a devnet whose --parent-pid process is killed stops by itself, its Anvils and its lock with it", async () => {
  const base = await freePortBase(2);
  const args = ["node/main.ts", "--data-dir", dataDir, "--port-base", String(base), "--l1-block-time", "0"];
  // The parent: starts the devnet in a process group of its own (as a test does) and prints its pid.
  const parent = spawn(
    [
      "bun",
      "-e",
      `const d = Bun.spawn(["bun", ...${JSON.stringify(args)}, "--parent-pid", String(process.pid)], { stdout: Bun.file(${JSON.stringify(log)}), stderr: Bun.file(${JSON.stringify(log)}), detached: true }); console.log(d.pid); setInterval(() => {}, 1000);`,
    ],
    { cwd: ROOT, stdout: "pipe", stderr: "inherit" },
  );
  const reader = parent.stdout.getReader();
  devnetPid = Number(new TextDecoder().decode((await reader.read()).value).trim());
  reader.releaseLock();
  const output = () => (existsSync(log) ? readFileSync(log, "utf8") : "");
  while (!output().includes("devnet is up") && alive(devnetPid)) await Bun.sleep(100);
  expect(output()).toContain("devnet is up");
  const anvils = anvilPids(dataDir);
  expect(anvils).toHaveLength(3);
  expect(existsSync(join(dataDir, "devnet.lock"))).toBe(true);

  parent.kill("SIGKILL");
  await parent.exited;
  // It notices within a second or so; the bound only keeps a broken build from hanging the test.
  for (const until = Date.now() + 60_000; (alive(devnetPid) || anvils.some(alive)) && Date.now() < until; )
    await Bun.sleep(200);
  expect(alive(devnetPid)).toBe(false);
  expect(anvils.filter(alive)).toEqual([]);
  expect(output()).toContain(`stopping (parent process ${parent.pid} is gone)`);
  expect(existsSync(join(dataDir, "devnet.lock"))).toBe(false);
}, 180_000);
