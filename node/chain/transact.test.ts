import { describe, expect, test } from "bun:test";
import { type Abi, encodeFunctionData } from "viem";
import { preconfManagerAbi } from "./contracts.ts";
import { encodeCall } from "./transact.ts";

describe("encodeCall", () => {
  test("encodes as viem's encodeFunctionData does, the first call and the prepared ones after it", () => {
    const store = [`0x${"ab".repeat(32)}`, `0x${"cd".repeat(65)}`, 1_764_000_000_000n] as const;
    for (let i = 0; i < 3; i++) {
      const args = [store[0], store[1], store[2] + BigInt(i)];
      expect(encodeCall(preconfManagerAbi, "storeUnopenedCommitment", args)).toBe(
        encodeFunctionData({ abi: preconfManagerAbi, functionName: "storeUnopenedCommitment", args } as never),
      );
    }
  });

  test("an overloaded name is encoded for the overload its arguments pick", () => {
    const abi = [
      {
        type: "function",
        name: "f",
        stateMutability: "nonpayable",
        inputs: [{ name: "a", type: "uint256" }],
        outputs: [],
      },
      {
        type: "function",
        name: "f",
        stateMutability: "nonpayable",
        inputs: [
          { name: "a", type: "bytes32" },
          { name: "b", type: "bool" },
        ],
        outputs: [],
      },
    ] as const satisfies Abi;
    const two = [`0x${"11".repeat(32)}`, true];
    expect(encodeCall(abi, "f", [5n])).toBe(encodeFunctionData({ abi, functionName: "f", args: [5n] }));
    expect(encodeCall(abi, "f", two)).toBe(encodeFunctionData({ abi, functionName: "f", args: two } as never));
    expect(encodeCall(abi, "f", two).slice(0, 10)).not.toBe(encodeCall(abi, "f", [5n]).slice(0, 10));
  });
});
