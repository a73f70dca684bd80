/**
 * A devnet that hosts nodes it did not start (`--no-nodes`): it writes a target file without nodes, its contract
 * addresses are distinct across both chains, and a bidder and a provider node started elsewhere (here: our node
 * classes on their own in-process network, standing in for another implementation) use it end to end. The provider
 * registers through its own stake API with its BLS key (the devnet's stand-in verifier accepts it), joins the winner
 * schedule, its application posts the bundle it committed to (`POST /sim/v1/bundles`), it wins the block, and the
 * commitment is opened and settled. A provider registered with no key gets the devnet's builder key.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { type Address, createPublicClient, type Hex, http, parseEther, parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccount, ROLES } from "../chain/accounts.ts";
import { chainClients, localChain } from "../chain/clients.ts";
import { blockTrackerAbi, providerRegistryAbi } from "../chain/contracts.ts";
import { builderKeyFor } from "../chain/deploy.ts";
import { transact } from "../chain/transact.ts";
import { call } from "../clients/http.ts";
import { NdjsonStream } from "../clients/ndjson.ts";
import type { DevnetTarget } from "../clients/target.ts";
import { InProcessNetwork } from "../network/network.ts";
import { BidderNode } from "../nodes/bidderNode.ts";
import { ProviderNode } from "../nodes/providerNode.ts";
import { initCrypto } from "../protocol/initCrypto.ts";
import { windowOfBlock } from "../protocol/windows.ts";
import { acceptAll } from "../providerApp/policies.ts";
import { ProviderAgent } from "../providerApp/providerAgent.ts";
import { L1ValidatorChain } from "../validators/optInRegistry.ts";
import { ValidatorService } from "../validators/validatorService.ts";
import { FOREIGN_MIN_BLOCK_INTERVAL_MS } from "./config.ts";
import { type LocalDevnet, startLocalDevnet } from "./localDevnet.ts";
import { NoNodesError } from "./startDevnet.ts";

let local: LocalDevnet;
let bidder: BidderNode;
let provider: ProviderNode;
let agent: ProviderAgent;
const PROVIDER_KEY = devAccount(ROLES.firstProvider);
const PLAIN_PROVIDER = devAccount(ROLES.firstProvider + 1);
const BUYER = devAccount(12); // signs the L1 transaction the bid commits to
const BLS_KEY: Hex = `0x${"a1".repeat(48)}`;
const BLS_SIG: Hex = `0x${"b2".repeat(96)}`;

beforeAll(async () => {
  local = await startLocalDevnet({ nodes: false }, "reports/foreign-nodes-devnet.log");
  const d = local.devnet;
  await initCrypto();
  // "Foreign" nodes: started apart from the devnet, on a network of their own, knowing only chains and contracts.
  const network = new InProcessNetwork();
  const settlementChain = localChain(d.chains.settlement.chainId, d.chains.settlement.rpcUrl);
  const validators = new ValidatorService({
    chain: new L1ValidatorChain({ rpcUrl: d.chains.l1.rpcUrl, registry: d.validatorRegistry! }),
    publish: () => {},
  });
  const common = { settlementChain, contracts: d.contracts, network, validators, rules: d.config.rules };
  bidder = new BidderNode({
    ...common,
    privateKey: devAccount(ROLES.bidder).privateKey,
    storePath: `${d.dir.root}/foreign-bidder.db`,
    bidTimeoutMs: 10_000,
  });
  provider = new ProviderNode({
    ...common,
    index: 0,
    privateKey: PROVIDER_KEY.privateKey,
    storePath: `${d.dir.root}/foreign-provider.db`,
    decisionTimeoutMs: 10_000,
  });
  await bidder.start({ host: "127.0.0.1", httpPort: 0, rpcPort: 0 });
  await provider.start({ host: "127.0.0.1", httpPort: 0, rpcPort: 0 });
  agent = new ProviderAgent(provider.url, acceptAll());
  await agent.start();
}, 120_000);

afterAll(async () => {
  await agent?.stop();
  await Promise.allSettled([bidder?.stop(), provider?.stop()]);
  await local?.stop();
});

const control = (path: string, body?: unknown) =>
  call(body === undefined ? "GET" : "POST", `${local.devnet.controlUrl}${path}`, body === undefined ? {} : { body });

describe("--no-nodes", () => {
  test("the target file has chains, contracts, control and beacon, and no nodes", () => {
    const t = JSON.parse(readFileSync(local.devnet.dir.targetFile, "utf8")) as DevnetTarget;
    expect(t.bidderUrl).toBeUndefined();
    expect(t.providerUrls).toBeUndefined();
    expect(t.capabilities).toEqual(["sim-control", "beacon"]);
    expect(t.controlUrl).toBe(local.devnet.controlUrl);
    expect(t.beaconUrl).toBe(local.devnet.beaconUrl);
    expect(Object.keys(t.contracts).sort()).toEqual([
      "bidderRegistry",
      "blockTracker",
      "oracle",
      "preconfManager",
      "providerRegistry",
    ]);
    expect(() => local.devnet.target()).toThrow(NoNodesError);
  });

  test("no contract address is shared by the L1 and the settlement chain", async () => {
    const d = local.devnet;
    const settlement = Object.values(d.contracts).map((a) => a.toLowerCase());
    expect(settlement).not.toContain(d.validatorRegistry!.toLowerCase());
    const l1 = createPublicClient({ transport: http(d.chains.l1.rpcUrl) });
    // Block numbers keep seven digits (upstream orders blocks as text).
    expect((await l1.getBlock({ blockTag: "earliest" })).number).toBe(1_000_000n);
    await d.mine(1); // the registry's deployment lands in the first block
    expect(await l1.getCode({ address: d.validatorRegistry! })).not.toBe("0x");
    for (const a of Object.values(d.contracts)) expect(await l1.getCode({ address: a as Address })).toBeUndefined();
  });

  test("node controls answer FailedPrecondition: the devnet runs no nodes", async () => {
    const r = await control("/sim/v1/providers/0/stop", {});
    expect(r.status).toBe(400);
    expect((r.json as { code: number; message: string }).message).toContain("--no-nodes");
    const f = await control("/sim/v1/faults", { node: "bidder", fail: "open" });
    expect((f.json as { code: number }).code).toBe(9);
    const s = (await control("/sim/v1/status")).json as { nodes: unknown[] };
    expect(s.nodes).toEqual([]);
  });
});

describe("providers registered by anyone", () => {
  test("a provider node stakes through its own API with its BLS key and joins the winner schedule under that key", async () => {
    const url = `${provider.url}/v1/provider/stake/${parseEther("20")}?bls_public_keys=${BLS_KEY}&bls_signatures=${BLS_SIG}`;
    const r = await call("POST", url);
    expect(r.status).toBe(200);
    expect((r.json as { blsPublicKeys: string[] }).blsPublicKeys).toEqual([BLS_KEY.slice(2)]);
    await local.devnet.directory.sync();
    const s = (await control("/sim/v1/status")).json as {
      registeredProviders: { address: string; builderKey: string; node: string | null }[];
    };
    const entry = s.registeredProviders.find((p) => p.address.toLowerCase() === provider.address.toLowerCase());
    expect(entry).toEqual({
      address: provider.address,
      builderKey: BLS_KEY,
      inSchedule: true,
      schedule: "registered: not seen by the block driver yet",
      lastHeardBlock: null,
      builder: "honest",
      node: null,
    } as never);
  });

  test("POST /sim/v1/heartbeat keeps a registered provider in the winner schedule and says why; an unknown one is refused", async () => {
    const head = await local.devnet.driver.blockNumber();
    const r = await control("/sim/v1/heartbeat", { provider: provider.address });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      provider: provider.address,
      inSchedule: true,
      schedule: `last heard from (bundle or heartbeat) or first seen registered at L1 block ${head}`,
      lastHeardBlock: head.toString(),
    });
    const unknown = await control("/sim/v1/heartbeat", { provider: PLAIN_PROVIDER.address });
    expect(unknown.status).toBe(400);
    expect((unknown.json as { message: string }).message).toBe(
      `no provider registered in ProviderRegistry with address ${PLAIN_PROVIDER.address}`,
    );
    const bad = await control("/sim/v1/heartbeat", { provider: "0x12" });
    expect((bad.json as { message: string }).message).toBe("provider is not an address: 0x12");
  });

  test("a provider registered with no key gets the devnet's builder key; blocks go round-robin and are recorded with their winners", async () => {
    const d = local.devnet;
    const plain = chainClients(
      localChain(d.chains.settlement.chainId, d.chains.settlement.rpcUrl),
      PLAIN_PROVIDER.privateKey,
    );
    await transact(
      plain,
      {
        address: d.contracts.providerRegistry,
        abi: providerRegistryAbi,
        functionName: "registerAndStake",
        value: parseEther("15"),
      },
      "register",
    );
    await d.directory.sync();
    expect(d.directory.list()).toEqual([provider.address, PLAIN_PROVIDER.address]);
    expect(d.directory.builderKeyOf(PLAIN_PROVIDER.address)).toBe(builderKeyFor(PLAIN_PROVIDER.address));
    const settlement = createPublicClient({ transport: http(d.chains.settlement.rpcUrl) });
    expect(
      await settlement.readContract({
        address: d.contracts.providerRegistry,
        abi: providerRegistryAbi,
        functionName: "getEoaFromBLSKey",
        args: [builderKeyFor(PLAIN_PROVIDER.address)],
      }),
    ).toBe(PLAIN_PROVIDER.address);
    const t0 = performance.now();
    const mined = await d.mine(3);
    // --no-nodes paces blocks (1 s apart by default) so that nodes that poll for events keep up.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(2 * FOREIGN_MIN_BLOCK_INTERVAL_MS - 50);
    const winners = mined.map((b) => b.winner);
    expect(new Set(winners)).toEqual(new Set([provider.address, PLAIN_PROVIDER.address]));
    await d.mine(1); // oracle lag 1: the three blocks are recorded now
    for (const b of mined)
      expect(
        await settlement.readContract({
          address: d.contracts.blockTracker,
          abi: blockTrackerAbi,
          functionName: "getBlockWinner",
          args: [b.number],
        }),
      ).toBe(b.winner);
  }, 30_000);

  test("a provider that unstakes leaves the winner schedule (nobody builds its blocks) and stays in the directory", async () => {
    const d = local.devnet;
    const plain = chainClients(
      localChain(d.chains.settlement.chainId, d.chains.settlement.rpcUrl),
      PLAIN_PROVIDER.privateKey,
    );
    await transact(
      plain,
      { address: d.contracts.providerRegistry, abi: providerRegistryAbi, functionName: "unstake" },
      "unstake",
    );
    await d.directory.sync();
    expect(d.directory.list()).toEqual([provider.address, PLAIN_PROVIDER.address]);
    expect(d.directory.schedule()).toEqual([provider.address]);
    const status = await d.status();
    expect(status.registeredProviders.map((p) => [p.address, p.inSchedule])).toEqual([
      [provider.address, true],
      [PLAIN_PROVIDER.address, false],
    ]);
    const mined = await d.mine(3);
    expect(mined.map((b) => b.winner)).toEqual([provider.address, provider.address, provider.address]);
  }, 30_000);
});

describe("POST /sim/v1/bundles", () => {
  async function signedTx(nonceOffset = 0): Promise<Hex> {
    const d = local.devnet;
    const l1 = createPublicClient({ transport: http(d.chains.l1.rpcUrl) });
    const account = privateKeyToAccount(BUYER.privateKey);
    const nonce = await l1.getTransactionCount({ address: account.address, blockTag: "latest" });
    return account.signTransaction({
      type: "eip1559",
      chainId: d.chains.l1.chainId,
      nonce: nonce + nonceOffset,
      to: account.address,
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: parseGwei("20"),
      maxPriorityFeePerGas: parseGwei("1"),
    });
  }

  test("refuses unknown providers, past blocks and bytes that are no transaction", async () => {
    const head = await local.devnet.driver.blockNumber();
    const tx = await signedTx();
    const unknown = await control("/sim/v1/bundles", {
      provider: devAccount(9).address,
      blockNumber: String(head + 2n),
      rawTransactions: [tx],
    });
    expect(unknown.status).toBe(400);
    expect((unknown.json as { message: string }).message).toContain("no provider registered");
    const past = await control("/sim/v1/bundles", {
      provider: provider.address,
      blockNumber: String(head),
      rawTransactions: [tx],
    });
    expect((past.json as { code: number; message: string }).code).toBe(9);
    expect((past.json as { message: string }).message).toContain("already mined");
    const junk = await control("/sim/v1/bundles", {
      provider: provider.address,
      blockNumber: String(head + 2n),
      rawTransactions: ["0xdeadbeef"],
    });
    expect((junk.json as { message: string }).message).toBe(
      "rawTransactions[0] is not an RLP-encoded signed transaction",
    );
  });

  test("a foreign provider's commitment: its application posts the bundle, it wins the block, the commitment is opened and settled", async () => {
    const d = local.devnet;
    const head = await d.driver.blockNumber();
    const block = head + 2n;
    const dep = await call(
      "POST",
      `${bidder.url}/v1/bidder/deposit/${parseEther("10")}?window_number=${windowOfBlock(block)}`,
    );
    expect(dep.status).toBe(200);
    const tx = await signedTx();
    const now = Date.now();
    const body = {
      rawTransactions: [tx.slice(2)],
      amount: "1000000000000000",
      blockNumber: block.toString(),
      decayStartTimestamp: String(now),
      decayEndTimestamp: String(now + 60_000),
    };
    const lines = await (await NdjsonStream.open("POST", `${bidder.url}/v1/bidder/bid`, body)).all();
    const commitment = lines.find((l) => "result" in l) as
      | { result: { commitmentDigest: string; providerAddress: string } }
      | undefined;
    expect(commitment?.result.providerAddress.toLowerCase()).toBe(provider.address.slice(2).toLowerCase());
    // The provider application tells the devnet's builder what it committed to (its node's store is not the devnet's).
    const posted = await control("/sim/v1/bundles", {
      provider: provider.address,
      blockNumber: block.toString(),
      rawTransactions: body.rawTransactions,
      bidAmount: body.amount,
    });
    expect(posted.status).toBe(200);
    expect(((await control("/sim/v1/status")).json as { postedBundles: number }).postedBundles).toBe(1);
    await d.mine(1, PLAIN_PROVIDER.address);
    const [won] = await d.mine(1, provider.address);
    expect(won!.number).toBe(block);
    const l1 = createPublicClient({ transport: http(d.chains.l1.rpcUrl) });
    const included = await l1.getBlock({ blockNumber: block });
    expect(included.transactions).toHaveLength(1);
    expect(((await control("/sim/v1/status")).json as { postedBundles: number }).postedBundles).toBe(0);
    let text = "";
    for (let i = 0; i < 40 && !text.includes('"status":"settled"'); i++) {
      await d.mine(1);
      text = JSON.stringify((await call("GET", `${bidder.url}/v1/bidder/get_bid_info?block_number=${block}`)).json);
      await Bun.sleep(100);
    }
    // Settled with a reward: the provider included the bundle in its block.
    expect(text).toContain('"status":"settled"');
    expect(text).toContain(`"providerAddress":"${provider.address.slice(2).toLowerCase()}"`);
  }, 60_000);
});
