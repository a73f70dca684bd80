/**
 * Nonces of chainClients on real automining Anvils: two chains with the same chain id (a second devnet in the same
 * process) each start from their own nonces, and a transaction the chain refused to take leaves no gap behind it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { parseAbi, parseEther } from "viem";
import { freePort } from "../util/ports.ts";
import { devAccount } from "./accounts.ts";
import { type AnvilChain, startAnvil } from "./anvil.ts";
import { chainClients, localChain } from "./clients.ts";
import { transact } from "./transact.ts";

const CHAIN_ID = 31999;
const ACCOUNT = devAccount(11);
let a: AnvilChain;
let b: AnvilChain;

beforeAll(async () => {
  [a, b] = await Promise.all([
    startAnvil({ name: "nonce-a", port: await freePort(), chainId: CHAIN_ID, mining: "auto" }),
    startAnvil({ name: "nonce-b", port: await freePort(), chainId: CHAIN_ID, mining: "auto" }),
  ]);
}, 30_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

// Any call to an EOA succeeds; the ABI only gives transact something to encode.
const noop = { abi: parseAbi(["function ping()"]), functionName: "ping" } as const;
const clients = (c: AnvilChain) => chainClients(localChain(c.chainId, c.rpcUrl), ACCOUNT.privateKey);

test("a second chain with the same chain id starts from its own nonce", async () => {
  const onA = clients(a);
  for (let i = 0; i < 3; i++) await transact(onA, { ...noop, address: devAccount(12).address, gas: 50_000n }, "ping");
  const onB = clients(b);
  const receipt = await transact(onB, { ...noop, address: devAccount(12).address, gas: 50_000n }, "ping");
  expect(receipt.status).toBe("success");
  expect(await onB.publicClient.getTransactionCount({ address: ACCOUNT.address })).toBe(1);
}, 30_000);

test("a transaction the chain refuses leaves no nonce gap", async () => {
  const c = clients(a);
  const before = await c.publicClient.getTransactionCount({ address: ACCOUNT.address });
  await expect(
    transact(c, { ...noop, address: devAccount(12).address, value: parseEther("100000000"), gas: 50_000n }, "ping"),
  ).rejects.toThrow();
  const receipt = await transact(c, { ...noop, address: devAccount(12).address, gas: 50_000n }, "ping");
  expect(receipt.status).toBe("success");
  expect(await c.publicClient.getTransactionCount({ address: ACCOUNT.address })).toBe(before + 1);
}, 30_000);
