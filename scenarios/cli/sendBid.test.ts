/**
 * `npm run bid` against a real devnet (no auto-deposit, no built-in provider application): it exits 1 with one line
 * saying why providers did not commit (no deposit; then, with a deposit, no application attached) and exits 0 once
 * every provider commits.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { parseEther } from "viem";
import { call } from "../../node/clients/http.ts";
import { type LocalDevnet, startLocalDevnet } from "../../node/devnet/localDevnet.ts";
import { windowOfBlock } from "../../node/protocol/windows.ts";
import { acceptAll } from "../../node/providerApp/policies.ts";
import { ProviderAgent } from "../../node/providerApp/providerAgent.ts";
import { runSendBid } from "./runSendBid.ts";

let local: LocalDevnet;

beforeAll(async () => {
  local = await startLocalDevnet({ autodepositAmount: undefined, autoAccept: false }, "reports/send-bid-devnet.log");
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

test("fewer commitments than providers: exit 1 with the reason; every provider committing: exit 0", async () => {
  const block = (await local.devnet.driver.blockNumber()) + 2n;
  let r = await sendBid("--block", String(block));
  expect(r.code).toBe(1);
  expect(oneLine(r.stderr)).toMatch(
    new RegExp(
      `^error: 0 of 2 providers committed; every provider: no deposit for window ${windowOfBlock(block)} .*auto_deposit`,
    ),
  );

  const deposited = await call(
    "POST",
    `${local.devnet.bidder.url}/v1/bidder/deposit/${parseEther("1")}?window_number=${windowOfBlock(block)}`,
  );
  expect(deposited.status).toBe(200);
  r = await sendBid("--block", String(block));
  expect(r.code).toBe(1);
  const line = oneLine(r.stderr);
  expect(line).toStartWith("error: 0 of 2 providers committed; every provider: no provider application is attached");

  const agents = local.devnet.providers.map((p) => new ProviderAgent(p.url, acceptAll()));
  try {
    for (const a of agents) await a.start();
    r = await sendBid("--block", String(block));
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("2 commitment(s) for block");
  } finally {
    for (const a of agents) await a.stop();
  }
}, 120_000);

test("an unknown flag or a target that does not answer: one line, no stack trace, non-zero exit", async () => {
  const r = await sendBid("--bogus");
  expect(r.code).toBe(2);
  expect(oneLine(r.stderr)).toBe("error: unknown option --bogus; run with --help for the options");
  const file = `${local.devnet.dir.root}/unreachable.json`;
  await Bun.write(
    file,
    JSON.stringify({
      ...JSON.parse(await Bun.file(local.devnet.dir.targetFile).text()),
      l1RpcUrl: "http://127.0.0.1:9",
    }),
  );
  const { code, stderr } = await runSendBid(file);
  expect(code).toBe(1);
  expect(oneLine(stderr)).toMatch(
    /^error: cannot reach http:\/\/127\.0\.0\.1:9\/? \(connection refused\); is the devnet running/,
  );
});

test("--protocol must agree with the target file's protocol: one usage line, exit 2, no bid sent", async () => {
  const r = await sendBid("--protocol", "v1.2");
  expect(r.code).toBe(2);
  expect(oneLine(r.stderr)).toBe(
    `error: --protocol v1.2 disagrees with ${local.devnet.dir.targetFile}, which says v1.1 (no "protocol": v1.1); drop --protocol or use a target of v1.2`,
  );
  const unknown = await sendBid("--protocol", "v9");
  expect(unknown.code).toBe(2);
  expect(oneLine(unknown.stderr)).toStartWith('error: --protocol: unknown protocol version "v9"');
});
