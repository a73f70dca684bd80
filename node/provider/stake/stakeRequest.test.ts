import { describe, expect, test } from "bun:test";
import { InvalidArgumentError } from "../../protocol/grpcCodes.ts";
import { queryValuesOf } from "../../protocol/queryParams.ts";
import { parseStakeRequest } from "./stakeRequest.ts";

const q = (s: string) => queryValuesOf(new URLSearchParams(s));
const KEY = "ab".repeat(48);
const SIG = "cd".repeat(96);

function refusal(amount: string, query = ""): string {
  try {
    parseStakeRequest(amount, q(query));
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidArgumentError);
    return (e as Error).message;
  }
  throw new Error(`${amount} ?${query} was accepted`);
}

describe("parseStakeRequest", () => {
  test("an amount alone", () => {
    expect(parseStakeRequest("1000", q(""))).toEqual({ amount: 1000n, blsPublicKeys: [], blsSignatures: [] });
  });

  test("an amount above uint256 is refused (ours)", () => {
    expect(refusal((1n << 256n).toString())).toBe(
      "validate stake request: amount must fit in a uint256 (at most 2^256-1 wei), got 115792089237…(78 digits)",
    );
  });

  test("keys and signatures in either spelling, with or without 0x, answered with 0x", () => {
    const r = parseStakeRequest(
      "1",
      q(`bls_public_keys=0x${KEY.toUpperCase()}&blsSignatures=${SIG}&bls_public_keys=${KEY}`),
    );
    expect(r.blsPublicKeys).toEqual([`0x${KEY}`, `0x${KEY}`]);
    expect(r.blsSignatures).toEqual([`0x${SIG}`]);
  });

  test("the snake_case key wins over the camelCase one", () => {
    expect(parseStakeRequest("1", q(`bls_public_keys=${KEY}&blsPublicKeys=zz`)).blsPublicKeys).toEqual([`0x${KEY}`]);
  });

  test("amounts that are not positive integers", () => {
    const text = "validate stake request: validation error:\n - amount: amount must be a valid integer. [amount]";
    for (const a of ["0", "01", "-1", "1.5", "abc", ""]) expect(refusal(a)).toBe(text);
  });

  test("bad keys and signatures, every violation listed in field order", () => {
    expect(refusal("0", `bls_public_keys=${KEY.slice(2)}&bls_signatures=00`)).toBe(
      "validate stake request: validation error:" +
        "\n - amount: amount must be a valid integer. [amount]" +
        "\n - bls_public_keys: bls_public_key must be a valid 48-byte hex string, with optional 0x prefix. [bls_public_key]" +
        "\n - bls_signatures: bls_signatures must be a valid 96-byte hex string, with optional 0x prefix. [bls_signatures]",
    );
  });
});
