import { expect, test } from "bun:test";
import { createPublicClient, http } from "viem";
import { freePort } from "../util/ports.ts";
import { providerStakeCheck } from "./stakeCheck.ts";

test("a stake read that fails without a revert is tried again before it counts as not staked", async () => {
  // Nothing listens at this port: every read fails as a transport error, never as the registry's revert.
  const client = createPublicClient({ transport: http(`http://127.0.0.1:${await freePort()}`, { retryCount: 0 }) });
  const t0 = performance.now();
  expect(
    await providerStakeCheck(
      client,
      "0x0000000000000000000000000000000000000001",
    )("0x0000000000000000000000000000000000000002"),
  ).toBe(false);
  // Four waits of 200, 400, 600 and 800 ms between the five tries.
  expect(performance.now() - t0).toBeGreaterThanOrEqual(1_900);
});
