import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Subprocess, spawn } from "bun";
import { freePortBase } from "../node/testing/freePortBase.ts";
import { stopProcesses } from "../node/testing/stopProcesses.ts";
import { until } from "../node/util/deadline.ts";
import { portFree } from "../node/util/ports.ts";

/**
 * scripts/upstream.sh: what `start` refuses, with no upstream binary needed; and, where upstream's binaries are
 * given (MEV_COMMIT_PINNED, MEV_COMMIT_V125: built with `scripts/upstream.sh build`), docs/conformance.md §8's and
 * §10's start, demo and stop on a devnet of each protocol (skipped otherwise).
 */
const ROOT = resolve(import.meta.dir, "..");
const SCRIPT = join(ROOT, "scripts", "upstream.sh");
const dir = mkdtempSync(join(tmpdir(), "upstream-sh-"));
const children: { proc: Subprocess; name: string }[] = [];
afterAll(async () => {
  try {
    await stopProcesses(children);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

function script(...args: string[]): { code: number; out: string } {
  const r = Bun.spawnSync(["bash", SCRIPT, ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString() + r.stderr.toString() };
}

describe("scripts/upstream.sh start refuses", () => {
  const bin = join(dir, "fake-mev-commit");
  writeFileSync(bin, "#!/bin/sh\nexit 0\n");
  chmodSync(bin, 0o755);
  const v11 = join(dir, "v11.json");
  const v12 = join(dir, "v12.json");
  writeFileSync(v11, "{}");
  writeFileSync(v12, JSON.stringify({ protocol: "v1.2" }));
  const start = (...extra: string[]) => script("start", "--port-base", "1", "--bin", bin, ...extra);

  test("no --version, or one it does not know", () => {
    expect(start("--target", v12, "--run-dir", join(dir, "a"))).toMatchObject({ code: 1 });
    expect(start("--target", v12, "--run-dir", join(dir, "a")).out).toContain("start needs --version pinned|v1.2.5");
    expect(start("--version", "v1.3", "--target", v12, "--run-dir", join(dir, "a")).out).toContain(
      "--version takes pinned (commit 5f1068d1, protocol v1.1) or v1.2.5",
    );
  });

  test("a devnet of the other protocol", () => {
    const pinnedOnV12 = start("--version", "pinned", "--target", v12, "--run-dir", join(dir, "a"));
    expect(pinnedOnV12.code).toBe(1);
    expect(pinnedOnV12.out).toContain("is a v1.2 devnet's; upstream pinned speaks v1.1");
    expect(start("--version", "v1.2.5", "--target", v11, "--run-dir", join(dir, "a")).out).toContain(
      "is a v1.1 devnet's; upstream v1.2.5 speaks v1.2",
    );
  });

  test("a --run-dir an earlier start used", () => {
    const used = join(dir, "used");
    mkdirSync(used);
    writeFileSync(join(used, "start.env"), "");
    const r = start("--version", "v1.2.5", "--target", v12, "--run-dir", used);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`error: --run-dir ${used} is not empty`);
  });
});

/** A --port-base for upstream's nodes: base .. base+95 free now. */
async function nodesBase(avoid: number): Promise<number> {
  for (let b = avoid + 800; b < 60_000; b += 100) {
    const ports = Array.from({ length: 96 }, (_, i) => b + i);
    if ((await Promise.all(ports.map((p) => portFree(p)))).every(Boolean)) return b;
  }
  throw new Error("no 96 free ports for upstream's nodes");
}

const versions = [
  { version: "pinned", bin: process.env.MEV_COMMIT_PINNED, devnet: [] as string[] },
  {
    version: "v1.2.5",
    bin: process.env.MEV_COMMIT_V125,
    devnet: ["--protocol", "v1.2", "--settlement-keep-blocks", "0"],
  },
];

describe.each(versions)("scripts/upstream.sh with upstream's $version node", ({ version, bin, devnet }) => {
  test.skipIf(!bin || !existsSync(bin))(
    `start, demo and stop on a devnet of its protocol (needs ${version === "pinned" ? "MEV_COMMIT_PINNED" : "MEV_COMMIT_V125"})`,
    async () => {
      const base = await freePortBase(2);
      const data = join(dir, `devnet-${version}`);
      const args = ["--no-nodes", "--fresh", "--l1-block-time", "0", "--settlement-history", "64", ...devnet];
      const watch = ["--parent-pid", String(process.pid)];
      const proc = spawn(["bun", "node/main.ts", ...args, "--port-base", String(base), "--data-dir", data, ...watch], {
        cwd: ROOT,
        stdout: "pipe",
        stderr: "pipe",
      });
      children.push({ proc, name: `devnet for ${version}` });
      await until("the devnet's target file", 120_000, () => existsSync(join(data, "target.json")));
      const run = join(dir, `run-${version}`);
      const nodes = String(await nodesBase(base));
      try {
        const startArgs = ["start", "--version", version, "--target", join(data, "target.json"), "--run-dir", run];
        const up = script(...startArgs, "--port-base", nodes, "--bin", bin!);
        expect({ code: up.code, tail: up.out.slice(-600) }).toMatchObject({ code: 0 });
        expect(existsSync(join(run, "target.json"))).toBe(true);
        const demo = script("demo", "--run-dir", run);
        expect({ code: demo.code, tail: demo.out.slice(-600) }).toMatchObject({ code: 0 });
        expect(demo.out).toMatch(/:(settled|slashed)|record stays "opened"/);
        expect(script(...startArgs, "--port-base", nodes, "--bin", bin!).out).toContain("is not empty");
      } finally {
        script("stop", "--run-dir", run);
      }
      const left = Bun.spawnSync(["pgrep", "-f", run]).stdout.toString().trim();
      expect(left).toBe("");
    },
    600_000,
  );
});
