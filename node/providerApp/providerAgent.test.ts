/**
 * Long-lived provider application streams on a real devnet: the built-in applications survive idle periods with
 * their client idle timeout shortened to 1 s (the nodes send keep-alive blank lines), reattach with back-off when
 * their provider node restarts, a provider left without an application is named in the bidder's log, and an
 * application may stream its decisions as the lines of one POST.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { parseEther } from "viem";
import { NdjsonStream } from "../clients/ndjson.ts";
import { type LocalDevnet, startLocalDevnet } from "../devnet/localDevnet.ts";
import { until } from "../util/deadline.ts";
import { acceptAll } from "./policies.ts";
import { ProviderAgent } from "./providerAgent.ts";

const LOG = "reports/provider-agent-test-devnet.log";
let local: LocalDevnet;

beforeAll(async () => {
  local = await startLocalDevnet(
    {
      autoAccept: true,
      autodepositAmount: parseEther("10"),
      streamKeepAliveMs: 300,
      responderIdleTimeoutMs: 1_000,
      bidTimeoutMs: 10_000,
      decisionTimeoutMs: 10_000,
    },
    LOG,
  );
}, 120_000);

afterAll(async () => {
  await local?.stop();
});

let n = 0;
async function commitmentsOfABid(): Promise<string[]> {
  const block = (await local.devnet.driver.blockNumber()) + 1n;
  const now = Date.now();
  const body = {
    txHashes: [(++n).toString(16).padStart(64, "0")],
    amount: "1000",
    blockNumber: block.toString(),
    decayStartTimestamp: String(now),
    decayEndTimestamp: String(now + 60_000),
  };
  const lines = await (
    await NdjsonStream.open<{ providerAddress: string }>("POST", `${local.devnet.bidder.url}/v1/bidder/bid`, body)
  ).all();
  return lines.flatMap((l) => ("result" in l ? [l.result.providerAddress] : []));
}

const logText = () => readFileSync(LOG, "utf8");
const REFUSED = /WARN {2}\[responder-0\] cannot reattach to receive_bids; retrying .*retryInMs=500/;

test("the built-in applications stay attached through 10 s of silence with a 1 s client idle timeout", async () => {
  await Bun.sleep(10_000);
  expect(local.devnet.responderAgents.map((a) => a.reattached)).toEqual([0, 0]);
  expect((await commitmentsOfABid()).length).toBe(2);
}, 30_000);

test("a provider node that restarts: its application logs the lost stream, retries with back-off and reattaches", async () => {
  const p = local.devnet.providers[0]!;
  const agent = local.devnet.responderAgents.find((a) => a.providerUrl === p.url)!;
  const httpPort = Number(new URL(p.url).port);
  const rpcPort = Number(new URL(p.rpcUrl).port);
  await p.stop();
  // The node stays down until the application has been refused once and backed off (its next try 500 ms later).
  await until("the application's refused try (retryInMs=500) in the log", 30_000, () => REFUSED.test(logText()));
  await p.start({ host: local.devnet.config.host, httpPort, rpcPort });
  await until("the application to reattach", 30_000, () => agent.reattached > 0);
  expect(agent.reattached).toBe(1);
  // The restarted node also rejoins the network between nodes (libp2p discovery): bid until the bidder sees it again.
  let committed: string[] = [];
  for (const deadline = Date.now() + 30_000; committed.length < 2 && Date.now() < deadline; await Bun.sleep(200))
    committed = await commitmentsOfABid();
  expect(committed.length).toBe(2);
  const log = logText();
  expect(log).toMatch(/WARN {2}\[responder-0\] receive_bids stream ended; reattaching .*reason=/);
  expect(log).toMatch(REFUSED);
  expect(log).toContain("INFO  [responder-0] receive_bids stream reattached");
  // The built-in applications stream their decisions: the upload the stopped node dropped is no crash on its side.
  expect(log).not.toContain("handler crashed");
}, 120_000);

test("a provider without an application refuses at once; the bidder's log says which one", async () => {
  const p = local.devnet.providers[1]!;
  await local.devnet.responderAgents.find((a) => a.providerUrl === p.url)!.stop();
  const deadline = Date.now() + 5_000;
  while (p.dispatcher.activeReceivers > 0 && Date.now() < deadline) await Bun.sleep(10);
  const t0 = performance.now();
  const committed = await commitmentsOfABid();
  expect(committed).toEqual([local.devnet.providers[0]!.address.toLowerCase().slice(2)]);
  expect(performance.now() - t0).toBeLessThan(10_000); // not the bid timeout: the provider without receivers answered at once
  expect(logText()).toContain(
    `[bidder-bids] provider has no provider application attached (no active receivers): its bids get no commitment provider=${p.address}`,
  );
}, 30_000);

test("an application that streams its decisions over one SendProcessedBids POST gets its commitments", async () => {
  const p = local.devnet.providers[1]!; // without an application since the test above
  const agent = new ProviderAgent(p.url, acceptAll(), { decisions: "stream", log: () => undefined });
  await agent.start();
  try {
    for (let i = 0; i < 3; i++) expect((await commitmentsOfABid()).length).toBe(2);
    expect(agent.decided.length).toBe(3);
    expect(agent.decisionUploads).toBe(1);
  } finally {
    await agent.stop();
  }
  expect(agent.errors).toEqual([]);
}, 30_000);
