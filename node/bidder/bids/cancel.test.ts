/**
 * A SendBid client that leaves cancels its bid: the providers stop waiting for their applications' decisions and
 * release the bidder's per-block allowance at once (not when the decision timeout runs out).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { parseEther } from "viem";
import { NdjsonStream } from "../../clients/ndjson.ts";
import { type LocalDevnet, startLocalDevnet } from "../../devnet/localDevnet.ts";
import { acceptAll, neverAnswer } from "../../providerApp/policies.ts";
import { ProviderAgent } from "../../providerApp/providerAgent.ts";

let local: LocalDevnet;

beforeAll(async () => {
  local = await startLocalDevnet(
    { autoAccept: false, autodepositAmount: parseEther("10"), decisionTimeoutMs: 60_000, bidTimeoutMs: 60_000 },
    "reports/cancel-test-devnet.log",
  );
}, 120_000);

afterAll(async () => {
  await local?.stop();
});

function bid(block: bigint, amount: bigint, n: number) {
  const now = Date.now();
  return {
    txHashes: [n.toString(16).padStart(64, "0")],
    amount: amount.toString(),
    blockNumber: block.toString(),
    decayStartTimestamp: String(now),
    decayEndTimestamp: String(now + 60_000),
  };
}

test("a client that disconnects cancels its bid and frees the allowance it reserved", async () => {
  const { devnet } = local;
  const block = (await devnet.driver.blockNumber()) + 1n;
  const allowance = parseEther("1"); // 10 ETH deposited in the block's window / 10
  const silent = devnet.providers.map((p) => new ProviderAgent(p.url, neverAnswer()));
  await Promise.all(silent.map((a) => a.start()));

  const stream = await NdjsonStream.open("POST", `${devnet.bidder.url}/v1/bidder/bid`, bid(block, allowance, 1));
  const deadline = Date.now() + 10_000;
  while (silent.some((a) => a.seen.length === 0) && Date.now() < deadline) await Bun.sleep(10);
  expect(silent.map((a) => a.seen.length)).toEqual([1, 1]);
  stream.close();
  await Promise.all(silent.map((a) => a.stop()));

  // The whole allowance of the block is free again: a bid for all of it gets both commitments.
  const accepting = devnet.providers.map((p) => new ProviderAgent(p.url, acceptAll()));
  await Promise.all(accepting.map((a) => a.start()));
  let lines: Awaited<ReturnType<NdjsonStream<unknown>["all"]>> = [];
  for (let tries = 0; tries < 50; tries++) {
    lines = await (
      await NdjsonStream.open("POST", `${devnet.bidder.url}/v1/bidder/bid`, bid(block, allowance, 2 + tries))
    ).all();
    if (lines.length === 2) break;
    await Bun.sleep(20); // the providers may still be unwinding the cancelled bid
  }
  await Promise.all(accepting.map((a) => a.stop()));
  // Without the cancellation the reservation would hold until the 60 s decision timeout, far past these tries.
  expect(lines.filter((l) => "result" in l).length).toBe(2);
}, 60_000);
