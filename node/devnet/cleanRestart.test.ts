/**
 * What a devnet says after a clean restart on its data dir (a real devnet, stopped and started again in-process on
 * the same data dir): the explorer's bids are still listed, the banner shows each provider's stake as the chain holds
 * it (after a stake was added), a provider that registered and unstaked is logged once as out of the winner
 * schedule, and nothing in the log reads like lost data when nothing was lost.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { createWalletClient, encodeFunctionData, http, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccount } from "../chain/accounts.ts";
import { providerRegistryAbi } from "../chain/contracts.ts";
import { registerProvider } from "../chain/deploy.ts";
import { call } from "../clients/http.ts";
import { NdjsonStream } from "../clients/ndjson.ts";
import { until } from "../util/deadline.ts";
import { banner, providerStakes } from "./banner.ts";
import { type LocalDevnet, startLocalDevnet } from "./localDevnet.ts";

const FOREIGN = devAccount(14);
const RESTART_LOG = "reports/clean-restart-devnet-restarted.log";
let local: LocalDevnet;
let dataDir: string;

beforeAll(async () => {
  local = await startLocalDevnet({}, "reports/clean-restart-devnet.log");
  dataDir = local.devnet.dir.root;
}, 120_000);

afterAll(async () => {
  await local?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

interface ScheduleEntry {
  address: string;
  schedule: string;
}

async function scheduleOf(address: string): Promise<string | undefined> {
  const s = (await local.devnet.status()) as unknown as { registeredProviders: ScheduleEntry[] };
  return s.registeredProviders.find((p) => p.address.toLowerCase() === address.toLowerCase())?.schedule;
}

test("after a clean restart: the bids, the stakes on chain, one line per provider, no word of lost history", async () => {
  const d = local.devnet;
  // Past block 256 of the settlement chain, which the oracle's settler looks at again at each start; what follows is
  // in those last blocks, so the event followers hand it again after the restart.
  await d.settlementClient.request({ method: "anvil_mine" as never, params: ["0x12c"] as never });
  // A bid the explorer lists.
  const now = Date.now();
  const lines = await (
    await NdjsonStream.open<{ receivedBidDigest: string }>("POST", `${d.bidder.url}/v1/bidder/bid`, {
      txHashes: ["ab".repeat(32)],
      amount: "1000",
      blockNumber: String((await d.driver.blockNumber()) + 3n),
      decayStartTimestamp: String(now),
      decayEndTimestamp: String(now + 60_000),
    })
  ).all();
  const digest = `0x${lines.flatMap((l) => ("result" in l ? [l.result.receivedBidDigest] : []))[0]}`;
  expect(digest).toMatch(/^0x[0-9a-f]{64}$/);

  // A provider of nobody's node that registers, then unstakes.
  const addresses = d.contracts;
  await registerProvider({
    rpcUrl: d.chains.settlement.rpcUrl,
    addresses,
    providerKey: FOREIGN.privateKey,
    stake: parseEther("20"),
  });
  const wallet = createWalletClient({
    account: privateKeyToAccount(FOREIGN.privateKey),
    transport: http(d.chains.settlement.rpcUrl),
  });
  await wallet.sendTransaction({
    chain: null,
    to: addresses.providerRegistry,
    data: encodeFunctionData({ abi: providerRegistryAbi, functionName: "unstake" }),
    gas: 300_000n,
  });
  await until(
    "the devnet to see the unstake",
    30_000,
    async () => (await scheduleOf(FOREIGN.address))?.startsWith("unstaked") === true,
  );

  // Provider-0 adds 1 ETH to its stake.
  const staked = await call("POST", `${d.providers[0]!.url}/v1/provider/stake/${parseEther("1")}`);
  expect(staked.status).toBe(200);
  const provider0 = d.providers[0]!.address;

  await d.stop();
  local = await startLocalDevnet({ dataDir, fresh: false }, RESTART_LOG);
  const r = local.devnet;

  const bid = await call("GET", `${r.controlUrl}/sim/v1/bids/${digest}`);
  expect(bid.status).toBe(200);
  expect(r.explorer!.sources.bids!.list({ limit: 10 }).map((b) => b.digest)).toContain(digest);

  const text = banner(r, await providerStakes(r));
  expect(text).toMatch(new RegExp(`provider-0 +${provider0} +stake 21 ETH`));

  const log = readFileSync(RESTART_LOG, "utf8");
  const foreign = log.split("\n").filter((l) => l.includes("[providers]") && l.includes(FOREIGN.address));
  expect(foreign).toHaveLength(1);
  expect(foreign[0]).toContain("provider unstaked: out of the winner schedule");
  // Nothing was lost: no event follower says the chain lost blocks (old wording: "the chain's history changed").
  expect(log).not.toContain("handling its last blocks again");
  expect(log).not.toContain("history changed");
  // A clean stop and restart log no warning (docs/devnet.md).
  expect(log.split("\n").filter((l) => / (WARN|ERROR) /.test(l))).toEqual([]);
}, 240_000);
