import { expect, test } from "bun:test";
import { type Hex, parseTransaction, recoverTransactionAddress, serializeTransaction } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { signEip1559 } from "./signTransaction.ts";

const key: Hex = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const account = privateKeyToAccount(key);

test("the same bytes as viem's signed serialization, for many nonces, values and data", async () => {
  for (let i = 0; i < 200; i++) {
    const tx = {
      chainId: i % 2 ? 17864 : 31337,
      nonce: i * 37,
      maxPriorityFeePerGas: i % 5 === 0 ? 0n : BigInt(i) * 1_000_007n,
      maxFeePerGas: 2_000_000_000n + BigInt(i),
      gas: 2_000_000n,
      to: "0x5FbDB2315678afecb367f032d93F642f64180aa3" as const,
      value: i % 3 === 0 ? 0n : BigInt(i) * 10n ** 15n,
      data: (i % 4 === 0 ? "0x" : `0x${"ab".repeat(i)}`) as Hex,
    };
    const ours = signEip1559(tx, key);
    const viem = await account.signTransaction({ type: "eip1559", ...tx });
    expect(ours).toBe(viem);
    expect(await recoverTransactionAddress({ serializedTransaction: ours as never })).toBe(account.address);
  }
});

test("a transaction with no data and no value parses back to its fields", () => {
  const raw = signEip1559(
    { chainId: 1, nonce: 0, maxPriorityFeePerGas: 1n, maxFeePerGas: 2n, gas: 21_000n, to: account.address },
    key,
  );
  const parsed = parseTransaction(raw);
  expect({ nonce: parsed.nonce, gas: parsed.gas, to: parsed.to, value: parsed.value, type: parsed.type }).toEqual({
    nonce: 0,
    gas: 21_000n,
    to: account.address.toLowerCase() as Hex,
    value: undefined,
    type: "eip1559",
  });
  expect(serializeTransaction({ ...parsed } as never)).toBe(raw);
});
