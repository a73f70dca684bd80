/**
 * TxPipeline on a real Anvil that mines a block every 200 ms: a burst of transactions goes out back to back and
 * shares blocks; a transaction the chain refuses in the middle of a burst leaves no hole that strands the ones
 * after it; a nonce used behind the pipeline's back is read again.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Hex, parseEther } from "viem";
import { freePort } from "../util/ports.ts";
import { devAccount } from "./accounts.ts";
import { type AnvilChain, startAnvil } from "./anvil.ts";
import { chainClients, localChain } from "./clients.ts";
import { txPipelineFor } from "./txPipeline.ts";

let chain: AnvilChain;

beforeAll(async () => {
  chain = await startAnvil({ name: "txs", port: await freePort(), chainId: 31998, mining: { intervalMs: 200 } });
}, 30_000);

afterAll(async () => {
  await chain?.stop();
});

const to = devAccount(13).address;
const clients = (i: number) => chainClients(localChain(chain.chainId, chain.rpcUrl), devAccount(i).privateKey as Hex);

test("the chain mines a block every interval with no transaction sent (IntervalMiner)", async () => {
  const c = clients(14);
  const from = await c.publicClient.getBlockNumber({ cacheTime: 0 });
  // Generous deadline for a loaded machine: 3 blocks of 200 ms may take a few seconds there.
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await Bun.sleep(100))
    if ((await c.publicClient.getBlockNumber({ cacheTime: 0 })) >= from + 3n) break;
  expect(await c.publicClient.getBlockNumber({ cacheTime: 0 })).toBeGreaterThanOrEqual(from + 3n);
}, 30_000);

test("with an idle interval, no block while nothing is pending, and a transaction is still mined at the next interval", async () => {
  const idle = await startAnvil({
    name: "txs-idle",
    port: await freePort(),
    chainId: 31996,
    mining: { intervalMs: 200, idleIntervalMs: 600_000 },
  });
  try {
    const c = chainClients(localChain(idle.chainId, idle.rpcUrl), devAccount(14).privateKey as Hex);
    const from = await c.publicClient.getBlockNumber({ cacheTime: 0 });
    // Five intervals with nothing pending: a miner that ignored the idle interval would have mined about five blocks.
    await Bun.sleep(1_000);
    expect(await c.publicClient.getBlockNumber({ cacheTime: 0 })).toBe(from);
    const receipt = await c.txs.receipt(await c.txs.send({ to, value: 1n, gas: 21_000n }), 20_000);
    expect(receipt.status).toBe("success");
    expect(receipt.blockNumber).toBe(from + 1n);
  } finally {
    await idle.stop();
  }
}, 60_000);

test("a burst of 60 transactions shares blocks and every one is mined", async () => {
  const c = clients(14);
  const before = await c.publicClient.getTransactionCount({ address: c.account.address });
  const receipts = await Promise.all(
    Array.from({ length: 60 }, () => c.txs.send({ to, value: 1n, gas: 21_000n }).then((h) => c.txs.receipt(h, 30_000))),
  );
  expect(receipts.every((r) => r.status === "success")).toBe(true);
  expect(new Set(receipts.map((r) => r.blockNumber)).size).toBeLessThan(10);
  expect(await c.publicClient.getTransactionCount({ address: c.account.address })).toBe(before + 60);
}, 30_000);

test("a refused transaction in the middle of a burst leaves no hole behind it", async () => {
  const c = clients(15);
  const sends = Array.from({ length: 9 }, (_, i) =>
    c.txs.send({ to, value: i === 4 ? parseEther("1000000") : 1n, gas: 21_000n }),
  );
  const results = await Promise.allSettled(sends);
  expect(results.filter((r) => r.status === "rejected").length).toBe(1);
  // The next transaction (after the pipeline read its nonce again and filled the hole) and every accepted one are mined.
  const next = await c.txs.send({ to, value: 1n, gas: 21_000n });
  const accepted = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const receipts = await Promise.all([...accepted, next].map((h) => c.txs.receipt(h, 30_000)));
  expect(receipts.every((r) => r.status === "success")).toBe(true);
}, 30_000);

test("a nonce used by someone else is read again after the pipeline was idle", async () => {
  const c = clients(16);
  await c.txs.receipt(await c.txs.send({ to, value: 1n, gas: 21_000n }), 30_000);
  // Another sender with the same key (viem's own wallet client) uses the next nonce.
  const other = await c.walletClient.sendTransaction({ to, value: 1n, gas: 21_000n });
  await c.publicClient.waitForTransactionReceipt({ hash: other, pollingInterval: 50 });
  await Bun.sleep(1_100);
  const r = await c.txs.receipt(await c.txs.send({ to, value: 1n, gas: 21_000n }), 30_000);
  expect(r.status).toBe("success");
}, 30_000);

test("sends that arrive while the nonce is read again (after refusals) all get distinct nonces and are mined", async () => {
  const c = clients(17);
  const sends: Promise<PromiseSettledResult<Hex>>[] = [];
  // 200 sends, arriving a few at a time, with a refused one (too much value) every 40: each refusal makes the
  // pipeline read the nonce again while later sends are on their way.
  for (let i = 0; i < 200; i++) {
    sends.push(
      Promise.allSettled([c.txs.send({ to, value: i % 40 === 7 ? parseEther("1000000") : 1n, gas: 21_000n })]).then(
        ([r]) => r!,
      ),
    );
    if (i % 5 === 4) await Bun.sleep(1);
  }
  const results = await Promise.all(sends);
  expect(results.filter((r) => r.status === "rejected").length).toBe(5);
  const accepted = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const receipts = await Promise.all(accepted.map((h) => c.txs.receipt(h, 30_000)));
  expect(receipts.every((r) => r.status === "success")).toBe(true);
  expect(new Set(receipts.map((r) => r.transactionHash)).size).toBe(195);
}, 60_000);

test("a transaction the chain dropped from its pool is sent again, and the ones queued behind it are mined", async () => {
  // A chain of its own that mines only when told, so the pool can be changed between blocks.
  const manual = await startAnvil({ name: "txs-drop", port: await freePort(), chainId: 31997, mining: "manual" });
  try {
    const c = chainClients(localChain(manual.chainId, manual.rpcUrl), devAccount(18).privateKey as Hex);
    txPipelineFor(c.chain, devAccount(18).privateKey as Hex).stuckAfterMs = 300;
    const mine = () => c.publicClient.request({ method: "evm_mine", params: [] } as never);
    const hashes: Hex[] = [];
    for (let i = 0; i < 3; i++) hashes.push(await c.txs.send({ to, value: 1n, gas: 21_000n }));
    // The first leaves the pool (as a restart from an older dump or an eviction would do): the other two wait behind its nonce.
    await c.publicClient.request({ method: "anvil_dropTransaction", params: [hashes[0]] } as never);
    expect(await c.publicClient.request({ method: "eth_getTransactionByHash", params: [hashes[0]!] })).toBeNull();
    await mine();
    expect(await c.publicClient.getTransactionCount({ address: c.account.address, blockTag: "latest" })).toBe(0);
    const receipts = Promise.all(hashes.map((h) => c.txs.receipt(h, 30_000)));
    let done = false;
    void receipts.finally(() => (done = true));
    for (const deadline = Date.now() + 30_000; !done && Date.now() < deadline; await Bun.sleep(100)) await mine();
    expect((await receipts).every((r) => r.status === "success")).toBe(true);
  } finally {
    await manual.stop();
  }
}, 60_000);
