import { describe, expect, test } from "bun:test";
import { type Abi, type AbiFunction, encodeFunctionData } from "viem";
import { bidderRegistryAbi, blockTrackerAbi, oracleAbi, preconfManagerAbi, providerRegistryAbi } from "./contracts.ts";
import { simpleCallEncoder } from "./simpleCallEncoder.ts";

const fn = (inputs: string[]): AbiFunction => ({
  type: "function",
  name: "f",
  stateMutability: "nonpayable",
  inputs: inputs.map((type, i) => ({ name: `a${i}`, type })),
  outputs: [],
});

const hex = (bytes: number) =>
  `0x${Array.from({ length: bytes }, (_, i) => ((i * 37 + bytes) & 0xff).toString(16).padStart(2, "0")).join("")}`;

function randomValue(type: string, i: number): unknown {
  if (type === "bool") return i % 2 === 0;
  if (type === "address") return hex(20);
  if (type === "bytes") return hex([0, 1, 31, 32, 33, 65, 100][i % 7]!);
  const bytesN = /^bytes(\d+)$/.exec(type);
  if (bytesN) return hex(Number(bytesN[1]));
  const bits = BigInt(/^uint(\d+)$/.exec(type)![1]!);
  const max = (1n << bits) - 1n;
  return [0n, 1n, max, max / 3n][i % 4];
}

describe("simpleCallEncoder", () => {
  test("encodes as viem does: every simple parameter type, dynamic bytes of every padding, mixed orders", () => {
    const shapes = [
      ["bytes32", "bytes", "uint64"],
      ["uint256", "address", "bool"],
      ["bytes", "bytes", "uint8", "bytes4"],
      ["bytes", "uint256", "bytes", "address"],
      ["bytes1"],
      [],
    ];
    for (const inputs of shapes)
      for (let i = 0; i < 8; i++) {
        const f = fn(inputs);
        const args = inputs.map((t, k) => randomValue(t, i + k));
        expect(simpleCallEncoder(f)!(args)).toBe(encodeFunctionData({ abi: [f], functionName: "f", args } as never));
      }
  });

  test("every function of the protocol's contracts that it takes encodes as viem does", () => {
    let taken = 0;
    for (const abi of [preconfManagerAbi, bidderRegistryAbi, providerRegistryAbi, blockTrackerAbi, oracleAbi] as Abi[])
      for (const f of abi.filter((x): x is AbiFunction => x.type === "function")) {
        const enc = simpleCallEncoder(f);
        if (!enc) continue;
        taken++;
        const args = f.inputs.map((p, k) => randomValue(p.type, k));
        expect(enc(args)).toBe(encodeFunctionData({ abi: [f], functionName: f.name, args } as never));
      }
    expect(taken).toBeGreaterThan(10);
  });

  test("a type it does not write (string, arrays, tuples, signed) leaves the function to viem", () => {
    for (const t of ["string", "uint256[]", "int256", "bytes32[2]"]) expect(simpleCallEncoder(fn([t]))).toBeUndefined();
    expect(
      simpleCallEncoder({
        ...fn([]),
        inputs: [{ name: "t", type: "tuple", components: [{ name: "x", type: "uint256" }] }],
      }),
    ).toBeUndefined();
  });

  test("a value it cannot check is left to viem (undefined), so viem's error is the one raised", () => {
    const enc = simpleCallEncoder(fn(["bytes32", "bytes", "uint64", "address", "bool"]))!;
    const ok = [hex(32), hex(3), 5n, hex(20), true];
    expect(enc(ok)).toBeDefined();
    const bad: unknown[][] = [
      [hex(31), ...ok.slice(1)], // bytes32 too short
      [hex(32).toUpperCase().replace("0X", "0x"), ...ok.slice(1)], // upper case: viem keeps the case
      [ok[0], "0xabc", ...ok.slice(2)], // odd hex
      [ok[0], ok[1], 1n << 64n, ok[3], ok[4]], // above uint64
      [ok[0], ok[1], -1n, ok[3], ok[4]],
      [ok[0], ok[1], 5, ok[3], ok[4]], // a number, not a bigint
      [ok[0], ok[1], ok[2], `0xAbCd${"00".repeat(18)}`, ok[4]], // checksummed address: viem validates it
      [ok[0], ok[1], ok[2], ok[3], 1],
      ok.slice(1), // too few
    ];
    for (const args of bad) expect(enc(args)).toBeUndefined();
  });
});
