/**
 * `npm run bid` against a real devnet when the bid goes nowhere: the bidder's refusal in one line whichever of
 * upstream's two shapes it comes in (the stream's `{"error":{…}}`, or a bare `{"code":…}` for a body the gateway
 * cannot decode: api-behaviour §0.5), and a bid for a block already mined said to be one, before it is sent and as
 * the reason nothing committed (upstream answers it HTTP 200 with an empty stream: §1.1, §2.2 step 8).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type LocalDevnet, startLocalDevnet } from "../../node/devnet/localDevnet.ts";
import { runSendBid } from "./runSendBid.ts";

let local: LocalDevnet;

beforeAll(async () => {
  local = await startLocalDevnet({ autodepositAmount: undefined, autoAccept: false }, "reports/bid-refusals.log");
  await local.devnet.mine(3);
}, 120_000);

afterAll(async () => {
  await local?.stop();
});

const sendBid = (...args: string[]) => runSendBid(local.devnet.dir.targetFile, ...args);

function oneLine(stderr: string): string {
  const lines = stderr.trim().split("\n");
  expect(lines, stderr).toHaveLength(1);
  return lines[0]!;
}

test("a refused bid: one line in either of upstream's shapes, with its status, code and message", async () => {
  // A block number beyond int64: the gateway cannot decode the body (a bare status).
  const bare = await sendBid("--block", "99999999999999999999");
  expect(bare.code).toBe(1);
  expect(oneLine(bare.stderr)).toMatch(
    /^error: the bidder refused the bid \(HTTP 400, InvalidArgument 3\): .*invalid value for int64 type/,
  );
  // An amount of 0: the call's validation refuses it (the stream's error envelope).
  const envelope = await sendBid("--amount", "0");
  expect(envelope.code).toBe(1);
  expect(oneLine(envelope.stderr)).toBe(
    "error: the bidder refused the bid (HTTP 400, InvalidArgument 3): validating bid: validation error: amount: amount must be a valid integer. [amount]",
  );
}, 120_000);

test("a bid for a block already mined: said before it is sent, and as the reason nothing committed", async () => {
  const head = await local.devnet.driver.blockNumber();
  const r = await sendBid("--block", "1");
  expect(r.stdout).toContain(
    `note: block 1 is already mined (the L1 is at block ${head}); the bidder sends the bid anyway, as upstream's does`,
  );
  expect(r.code).toBe(1);
  expect(oneLine(r.stderr)).toMatch(
    new RegExp(
      `^error: 0 of \\d+ providers committed; every provider: block 1 was already mined when the bid was sent \\(the L1 was at block ${head}\\); bid for a later block`,
    ),
  );
}, 120_000);
