/** Reads at a past block on a real Anvil that keeps no past states (the devnet's settlement chain by default). */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createPublicClient } from "viem";
import { freePort } from "../util/ports.ts";
import { devAccount } from "./accounts.ts";
import { type AnvilChain, startAnvil } from "./anvil.ts";
import { localChain } from "./clients.ts";
import { localHttp } from "./localHttp.ts";
import { atBlockOrLatest, isHeadRace, isPastStateGone } from "./pastState.ts";

let chain: AnvilChain;
beforeAll(async () => {
  chain = await startAnvil({
    name: "past-state",
    port: await freePort(),
    chainId: 31_901,
    mining: "manual",
    emptyFork: { keepStates: 0 },
  });
});
afterAll(() => chain?.stop());

test("a call at a block whose state is gone falls back to latest; the error is recognised", async () => {
  const client = createPublicClient({ chain: localChain(31_901, chain.rpcUrl), transport: localHttp(chain.rpcUrl) });
  const rpc = (method: string) =>
    fetch(chain.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: [] }),
    });
  for (let i = 0; i < 3; i++) await rpc("evm_mine");
  const address = devAccount(0).address;
  const gone = await client.getBalance({ address, blockNumber: 1n }).catch((e: unknown) => e);
  expect(gone).toBeInstanceOf(Error);
  expect(isPastStateGone(gone)).toBe(true);
  const seen: (bigint | undefined)[] = [];
  const balance = await atBlockOrLatest(1n, (blockNumber) => {
    seen.push(blockNumber);
    return client.getBalance({ address, blockNumber });
  });
  expect(seen).toEqual([1n, undefined]);
  expect(balance).toBe(await client.getBalance({ address }));
  // Other errors are not taken for a missing state.
  expect(isPastStateGone(new Error("execution reverted"))).toBe(false);
  await expect(atBlockOrLatest(1n, () => Promise.reject(new Error("execution reverted")))).rejects.toThrow(
    "execution reverted",
  );
});

const mine = (rpcUrl: string) =>
  fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "evm_mine", params: [] }),
  });

test("a read at a block the chain has not made yet waits for it; one at a past block whose state is gone fails at once", async () => {
  const client = createPublicClient({
    chain: localChain(31_901, chain.rpcUrl),
    transport: localHttp(chain.rpcUrl, { retryCount: 0, batch: false }),
    cacheTime: 0,
  });
  const address = devAccount(0).address;
  const head = await client.getBlockNumber();
  const next = client.getBalance({ address, blockNumber: head + 1n });
  await Bun.sleep(60);
  await mine(chain.rpcUrl);
  expect(await next).toBe(await client.getBalance({ address }));

  const asked: string[] = [];
  const counting = createPublicClient({
    transport: localHttp(chain.rpcUrl, { retryCount: 0, batch: false, onFetchRequest: () => void asked.push("x") }),
    cacheTime: 0,
  });
  await expect(counting.getBalance({ address, blockNumber: 1n })).rejects.toThrow(
    /block height is \d+ but requested was 1\b/,
  );
  expect(asked.length).toBe(1);
  expect(
    isHeadRace(new Error("BlockOutOfRangeError: block height is 9 but requested was 8"), {
      method: "eth_call",
      params: [{}, "latest"],
    }),
  ).toBe(true);
  expect(
    isHeadRace(new Error("BlockOutOfRangeError: block height is 9 but requested was 8"), {
      method: "eth_call",
      params: [{}, "0x8"],
    }),
  ).toBe(false);
  expect(
    isHeadRace(new Error("BlockOutOfRangeError: block height is 9 but requested was 10"), {
      method: "eth_getBalance",
      params: ["0x01", "0xa"],
    }),
  ).toBe(true);
  expect(isHeadRace(new Error("execution reverted"), { method: "eth_call", params: [{}, "latest"] })).toBe(false);
});
