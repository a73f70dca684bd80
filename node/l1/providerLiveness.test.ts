import { expect, test } from "bun:test";
import type { Address } from "viem";
import { ConfigError, type DevnetConfig, parseDevnetArgs } from "../devnet/config.ts";
import { ProviderLiveness } from "./providerLiveness.ts";
import { WinnerSchedule } from "./winnerSchedule.ts";

/**
 * The rule that keeps a provider with nothing answering for it out of the winner schedule: silent for `blocks` L1
 * blocks and the least time, it is skipped in its turn; heard from again, it is back. The devnet's own nodes stay in.
 */
const OWN = "0x00000000000000000000000000000000000000a0" as Address;
const FOREIGN = "0x00000000000000000000000000000000000000b0" as Address;
const OTHER = "0x00000000000000000000000000000000000000c0" as Address;

function setup(blocks = 3) {
  let now = 0;
  const liveness = new ProviderLiveness({
    blocks,
    nodeOf: (a) => (a === OWN ? "provider-0" : undefined),
    minSilenceMs: 1_000,
    now: () => now,
  });
  const schedule = new WinnerSchedule([OWN, FOREIGN, OTHER]);
  schedule.setEligible((p) => liveness.isLive(p));
  let head = 0n;
  /** Mines one block `ms` after the last: who won it. OTHER sends a heartbeat with every block. */
  const mine = (ms = 1_000): Address | undefined => {
    now += ms;
    const winner = schedule.take();
    liveness.heard(OTHER, ++head);
    liveness.onBlock(head, [OWN, FOREIGN, OTHER]);
    return winner;
  };
  return { liveness, mine, head: () => head };
}

test("a silent foreign provider is skipped in its turn after the blocks run out; heard from again, it wins again", () => {
  const { liveness, mine, head } = setup(3);
  // FOREIGN first seen at block 1: in until block 4 (3 blocks later).
  expect([mine(), mine(), mine()]).toEqual([OWN, FOREIGN, OTHER]);
  expect(liveness.isLive(FOREIGN)).toBe(true);
  expect(mine()).toBe(OWN);
  expect(liveness.isLive(FOREIGN)).toBe(false);
  expect(liveness.describe(FOREIGN)).toEqual({
    live: false,
    reason: "silent: no bundle or heartbeat since L1 block 1 (3 blocks or more)",
    lastHeardBlock: 1n,
  });
  expect(mine()).toBe(OTHER); // FOREIGN's turn: skipped
  expect([mine(), mine()]).toEqual([OWN, OTHER]);
  liveness.heard(FOREIGN, head());
  expect(liveness.isLive(FOREIGN)).toBe(true);
  expect([mine(), mine(), mine()]).toEqual([OWN, FOREIGN, OTHER]);
});

test("the devnet's own node never leaves; a burst of blocks faster than the least silence leaves nobody out", () => {
  const { liveness, mine } = setup(2);
  for (let i = 0; i < 10; i++) mine(10);
  expect(liveness.describe(FOREIGN).live).toBe(true);
  expect(liveness.isLive(FOREIGN)).toBe(true);
  mine(2_000);
  expect(liveness.isLive(FOREIGN)).toBe(false);
  expect(liveness.isLive(OWN)).toBe(true);
  expect(liveness.describe(OWN).reason).toBe("the devnet's node provider-0");
});

test("with 0 blocks the check is off: every provider stays in", () => {
  const { liveness, mine } = setup(0);
  const winners = Array.from({ length: 30 }, () => mine(5_000));
  expect(winners.slice(-3)).toEqual([OWN, FOREIGN, OTHER]);
  expect(liveness.isLive(FOREIGN)).toBe(true);
});

test("a named winner wins even when out; nobody eligible gives no winner", () => {
  const schedule = new WinnerSchedule([FOREIGN, OTHER]);
  schedule.setEligible(() => false);
  expect(schedule.peek()).toBeUndefined();
  expect(schedule.take()).toBeUndefined();
  schedule.setNextWinner(FOREIGN);
  expect(schedule.take()).toBe(FOREIGN);
});

test("--provider-liveness-blocks: default 32, 0 turns the check off, anything else is a clear error", () => {
  expect((parseDevnetArgs([]) as DevnetConfig).providerLivenessBlocks).toBe(32);
  expect((parseDevnetArgs(["--provider-liveness-blocks", "0"]) as DevnetConfig).providerLivenessBlocks).toBe(0);
  expect(() => parseDevnetArgs(["--provider-liveness-blocks", "-1"])).toThrow(ConfigError);
  expect(() => parseDevnetArgs(["--provider-liveness-blocks", "soon"])).toThrow(/provider-liveness-blocks/);
});
