/**
 * EventPoller against a real Anvil behind a JSON-RPC server that refuses eth_getLogs over more than 8 blocks, as
 * public RPC servers refuse ranges or answers that are too large: the follower asks for fewer blocks at a time and
 * still hands over every event in order, instead of asking for the same range for ever.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Address, createPublicClient, type Hex, http, keccak256, toHex } from "viem";
import { NodeStore } from "../store/db.ts";
import { setLogSink } from "../util/log.ts";
import { freePort } from "../util/ports.ts";
import { devAccount } from "./accounts.ts";
import { type AnvilChain, startAnvil } from "./anvil.ts";
import { chainClients, localChain } from "./clients.ts";
import { EventPoller } from "./eventPoller.ts";

const MAX_RANGE = 8n;
const pingAbi = [{ type: "event", name: "Ping", inputs: [], anonymous: false }] as const;
// A contract whose every call emits Ping(): runtime PUSH32 topic, PUSH1 0, PUSH1 0, LOG1, STOP; the init code
// copies those 38 bytes to memory and returns them.
const runtime = `7f${keccak256(toHex("Ping()")).slice(2)}60006000a100`;
const initCode = `0x602680600b6000396000f3${runtime}` as Hex;

let chain: AnvilChain;
let proxy: ReturnType<typeof Bun.serve>;
const asked: { from: bigint; to: bigint; refused: boolean; topics: unknown }[] = [];
/** Every JSON-RPC method the proxy was asked, in order. */
const methods: string[] = [];

beforeAll(async () => {
  chain = await startAnvil({ name: "events", port: await freePort(), chainId: 31997, mining: "auto" });
  proxy = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = (await req.json()) as {
        id: number;
        method: string;
        params: { fromBlock: Hex; toBlock: Hex; topics?: unknown }[];
      };
      methods.push(body.method);
      if (body.method === "eth_getLogs") {
        const from = BigInt(body.params[0]!.fromBlock);
        const to = BigInt(body.params[0]!.toBlock);
        const refused = to - from + 1n > MAX_RANGE;
        asked.push({ from, to, refused, topics: body.params[0]!.topics });
        if (refused)
          return Response.json({
            jsonrpc: "2.0",
            id: body.id,
            error: { code: -32005, message: `query exceeds max block range ${MAX_RANGE}` },
          });
      }
      return fetch(chain.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    },
  });
}, 30_000);

afterAll(async () => {
  proxy?.stop(true);
  await chain?.stop();
});

test("a refused eth_getLogs range is split until the server answers; every event arrives once, in order", async () => {
  const c = chainClients(localChain(chain.chainId, chain.rpcUrl), devAccount(15).privateKey as Hex);
  // Deployed outside the pipeline (its requests always have a recipient); the pipeline reads the nonce again after.
  const deployed = await c.publicClient.waitForTransactionReceipt({
    hash: await c.walletClient.sendTransaction({ data: initCode, gas: 200_000n }),
  });
  const contract = deployed.contractAddress as Address;
  // 40 blocks with a Ping each, then 100 empty ones.
  const pings: bigint[] = [];
  for (let i = 0; i < 40; i++)
    pings.push((await c.txs.receipt(await c.txs.send({ to: contract, gas: 50_000n }), 20_000)).blockNumber);
  await c.publicClient.request({ method: "anvil_mine" as never, params: ["0x64"] as never });
  const head = await c.publicClient.getBlockNumber({ cacheTime: 0 });

  const poller = new EventPoller({
    client: createPublicClient({ transport: http(`http://127.0.0.1:${proxy.port}`, { retryCount: 0 }) }),
    contracts: [{ address: contract, abi: pingAbi }],
    intervalMs: 20,
  });
  const seen: bigint[] = [];
  poller.on("Ping", (e) => void seen.push(e.blockNumber));
  await poller.start(0n);
  const synced = await Promise.race([poller.sync().then(() => true), Bun.sleep(30_000).then(() => false)]);
  poller.stop();

  expect(
    synced,
    `not synced after 30 s; ranges asked: ${asked.length}, the last ${JSON.stringify(asked.slice(-3), (_, v) => (typeof v === "bigint" ? v.toString() : v))}`,
  ).toBe(true);
  expect(poller.handledThrough).toBeGreaterThanOrEqual(head);
  expect(seen).toEqual(pings);
  expect(asked.some((a) => a.refused)).toBe(true);
  expect(asked.filter((a) => !a.refused).every((a) => a.to - a.from + 1n <= MAX_RANGE)).toBe(true);
  // Each refusal halves the range asked (~140 blocks at first), not the 2,000-block maximum: 4 refusals, not 8.
  expect(asked.filter((a) => a.refused).length).toBeLessThanOrEqual(5);
  // Only the followed events' logs are asked for (topic 0 among theirs).
  expect(asked.every((a) => JSON.stringify(a.topics) === JSON.stringify([[keccak256(toHex("Ping()"))]]))).toBe(true);
}, 60_000);

test("a poll reads the head's number, and the cursor's block hash from its logs: no block is read while each has an event", async () => {
  const c = chainClients(localChain(chain.chainId, chain.rpcUrl), devAccount(16).privateKey as Hex);
  const deployed = await c.publicClient.waitForTransactionReceipt({
    hash: await c.walletClient.sendTransaction({ data: initCode, gas: 200_000n }),
  });
  const contract = deployed.contractAddress as Address;
  const store = new NodeStore(":memory:");
  const poller = new EventPoller({
    client: createPublicClient({ transport: http(`http://127.0.0.1:${proxy.port}`, { retryCount: 0 }) }),
    contracts: [{ address: contract, abi: pingAbi }],
    store,
    cursorKey: "pings",
    intervalMs: 20,
  });
  const seen: bigint[] = [];
  poller.on("Ping", (e) => void seen.push(e.blockNumber));
  await poller.start(deployed.blockNumber + 1n);
  methods.length = 0;
  for (let i = 0; i < 3; i++) {
    await c.txs.receipt(await c.txs.send({ to: contract, gas: 50_000n }), 20_000);
    await poller.sync();
  }
  await Bun.sleep(200); // ~10 polls with no new block
  poller.stop();

  expect(seen.length).toBe(3);
  expect(poller.handledThrough).toBe(seen[2]!);
  expect(methods.filter((m) => m === "eth_getBlockByNumber")).toEqual([]);
  expect(methods.filter((m) => m === "eth_blockNumber").length).toBeGreaterThan(5);
  const block = await c.publicClient.getBlock({ blockNumber: seen[2]! });
  expect(store.getKv("pings")).toBe(block.number.toString());
  expect(store.getKv("pings.hash")).toBe(block.hash);
  store.close();
}, 60_000);

test("after a restart, a rewind asked for before start is no divergence; a block that changed under the cursor is", async () => {
  const c = chainClients(localChain(chain.chainId, chain.rpcUrl), devAccount(17).privateKey as Hex);
  const deployed = await c.publicClient.waitForTransactionReceipt({
    hash: await c.walletClient.sendTransaction({ data: initCode, gas: 200_000n }),
  });
  const contract = deployed.contractAddress as Address;
  const store = new NodeStore(":memory:");
  const follower = () =>
    new EventPoller({
      client: createPublicClient({ transport: http(chain.rpcUrl) }),
      contracts: [{ address: contract, abi: pingAbi }],
      store,
      cursorKey: "restart",
      intervalMs: 20,
    });
  const first = follower();
  first.on("Ping", () => {});
  await first.start(deployed.blockNumber + 1n);
  for (let i = 0; i < 3; i++) await c.txs.receipt(await c.txs.send({ to: contract, gas: 50_000n }), 20_000);
  await first.sync();
  first.stop();
  const last = first.handledThrough;

  const lines: string[] = [];
  setLogSink((line) => lines.push(line));
  try {
    // The same chain, and the settler's look at the last blocks again (rewindTo before start): nothing was lost.
    const again = follower();
    again.rewindTo(last - 1n);
    await again.start();
    expect(again.handledThrough).toBe(last - 2n);
    again.stop();
    expect(lines.filter((l) => l.includes("[events]"))).toEqual([]);

    // The block the last run handled last is another one now: said, and its last blocks handled again.
    store.setKv("restart.hash", `0x${"00".repeat(32)}`);
    const diverged = follower();
    await diverged.start();
    diverged.stop();
    expect(diverged.handledThrough).toBe(last > 512n ? last - 513n : -1n);
    expect(lines.filter((l) => l.includes("[events]")).join("\n")).toContain(
      `the chain's block where this node stopped is another one now`,
    );
  } finally {
    setLogSink((line) => process.stderr.write(`${line}\n`));
    store.close();
  }
}, 60_000);
