/**
 * The conformance suite stopped while it has a devnet changed for its run (the devnet's own L1 blocks paused, the
 * built-in provider applications detached, the bidder's auto-deposit off): on SIGINT and SIGTERM it puts all three
 * back and says so; killed with SIGKILL it leaves a record next to the target file, from which the next run of the
 * suite and `npm run bid` put them back. A real devnet with `npm run node`'s defaults, the real suite process, real
 * signals, and a real bid that must commit afterwards.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawn } from "bun";
import { type LocalDevnet, startLocalDevnet } from "../../node/devnet/localDevnet.ts";
import { call } from "../support/clients/http.ts";
import { recordPathFor } from "../support/targetChanges.ts";

const ROOT = resolve(import.meta.dir, "../..");
const reports = mkdtempSync(join(tmpdir(), "conformance-interrupt-"));
let local: LocalDevnet;
let targetFile: string;

beforeAll(async () => {
  // npm run node's defaults: an L1 block every 2 s, auto-deposit on, the built-in accept-all applications attached.
  local = await startLocalDevnet({ l1BlockTime: 2 }, "reports/interrupt-devnet.log");
  targetFile = local.devnet.dir.targetFile;
}, 180_000);

afterAll(async () => {
  await local?.stop();
  rmSync(reports, { recursive: true, force: true });
});

type ControlStatus = {
  l1: { blockTime: number; blockNumber: string };
  builtInApplications: { attached: boolean };
  nodes: { role: string; receivers?: number }[];
};

async function state() {
  const status = (await call("GET", `${local.devnet.controlUrl}/sim/v1/status`)).json as ControlStatus;
  const auto = (await call("GET", `${local.devnet.bidder.url}/v1/bidder/auto_deposit_status`)).json as {
    isAutodepositEnabled: boolean;
  };
  return {
    blockTime: status.l1.blockTime,
    block: BigInt(status.l1.blockNumber),
    attached: status.builtInApplications.attached,
    autoDeposit: auto.isAutodepositEnabled,
  };
}

/** The suite against the devnet, its output collected as it comes. */
function startSuite(...args: string[]) {
  const p = spawn(
    [
      "bun",
      "features/cli/conformance.ts",
      "--target",
      targetFile,
      "--reports",
      reports,
      "--json",
      join(reports, "r.json"),
      ...args,
    ],
    { cwd: ROOT, env: { ...process.env, TARGET: "" }, stdout: "pipe", stderr: "pipe" },
  );
  let out = "";
  const collect = async (s: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of s) out += decoder.decode(chunk);
  };
  const done = Promise.all([collect(p.stdout), collect(p.stderr)]).then(() => p.exited);
  return { p, output: () => out, done };
}

/** Waits until the suite has made its last change before the first scenario (the bidder's auto-deposit stopped). */
async function untilChanged(suite: ReturnType<typeof startSuite>): Promise<void> {
  for (const until = Date.now() + 240_000; !suite.output().includes("the bidder's auto-deposit was on: stopped"); ) {
    if (Date.now() > until) throw new Error(`the suite did not change the target:\n${suite.output()}`);
    await Bun.sleep(250);
  }
  // The target is changed now: the checks after the signal can fail.
  expect(await state()).toMatchObject({ blockTime: 0, attached: false, autoDeposit: false });
  // A scenario or two under way.
  await Bun.sleep(3_000);
}

/** The devnet as npm run node left it: its own L1 blocks mined again, its applications attached, auto-deposit on. */
async function expectPutBack(): Promise<void> {
  const before = await state();
  expect(before).toMatchObject({ blockTime: 2, attached: true, autoDeposit: true });
  let after = before;
  for (const until = Date.now() + 30_000; after.block === before.block && Date.now() < until; await Bun.sleep(500))
    after = await state();
  expect(after.block).toBeGreaterThan(before.block);
  expect(existsSync(recordPathFor(targetFile))).toBe(false);
}

async function sendBid(): Promise<{ code: number; out: string }> {
  const p = spawn(["bun", "scenarios/cli/sendBid.ts", "--target", targetFile], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out: out + err };
}

describe("the suite stopped while it has the devnet changed", () => {
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)
    test(`${signal}: it puts back the L1 blocks, the applications and auto-deposit, says so, and a bid commits`, async () => {
      const suite = startSuite("--tags", "@bids");
      await untilChanged(suite);
      // While the run lasts, npm run bid leaves the devnet to it and says why.
      const during = await sendBid();
      expect(during.code).toBe(1);
      expect(during.out.trim().split("\n").at(-1)).toMatch(
        new RegExp(
          `^error: a run of the conformance suite \\(pid ${suite.p.pid}, since .*\\) is changing this target \\(L1 blocks paused, the built-in provider applications detached, auto-deposit off\\): wait for it to end, or stop it with Ctrl-C`,
        ),
      );
      suite.p.kill(signal);
      expect(await suite.done).toBe(code);
      const out = suite.output();
      // The providers named as the devnet's banner names them.
      expect(out).toMatch(/^Providers: provider 1 \(provider-0\) http:\/\/\S+, provider 2 \(provider-1\) http:/m);
      expect(out).toContain(`${signal}: stopping the run; putting back what it changed on the target`);
      expect(out).toContain("restored: the devnet's own L1 blocks (one every 2 s)");
      expect(out).toMatch(/restored: the devnet's built-in provider applications \(\d+\) attached/);
      expect(out).toMatch(/restored: the bidder's auto-deposit \(on, \d+ wei per window\)/);
      await expectPutBack();
      const bid = await sendBid();
      expect(bid.code, bid.out).toBe(0);
      expect(bid.out).toContain("2 commitment(s) for block");
    }, 400_000);

  test("SIGKILL: npm run bid puts back what the record lists, says so, and the bid commits", async () => {
    const suite = startSuite("--tags", "@bids");
    await untilChanged(suite);
    suite.p.kill("SIGKILL");
    await suite.done;
    expect(existsSync(recordPathFor(targetFile))).toBe(true);
    const bid = await sendBid();
    expect(bid.code, bid.out).toBe(0);
    expect(bid.out).toContain(
      "the conformance suite left the devnet changed (L1 blocks paused, the built-in provider applications detached, auto-deposit off); put back:",
    );
    expect(bid.out).toContain("2 commitment(s) for block");
    await expectPutBack();
  }, 400_000);

  test("SIGKILL: the next run of the suite puts it back before anything else, and says so", async () => {
    const suite = startSuite("--tags", "@bids");
    await untilChanged(suite);
    suite.p.kill("SIGKILL");
    await suite.done;
    // A run of no scenario: it repairs, changes the target for its (empty) run, and puts that back at its end.
    const next = startSuite("--tags", "@no-such-tag");
    expect(await next.done).toBe(0);
    expect(next.output()).toContain(
      "An earlier run of the suite was stopped before it put back what it changed on this target (L1 blocks paused, the built-in provider applications detached, auto-deposit off;",
    );
    await expectPutBack();
  }, 400_000);
});
