import { describe, expect, test } from "bun:test";
import { keccak256 } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { parseBidRequestText as parseTextWith, parseBidRequest as parseWith } from "./bidValidation.ts";
import { BodyDecodeError, InvalidArgumentError } from "./grpcCodes.ts";
import { rulesOf } from "./rules.ts";

const V11 = rulesOf("v1.1");
const parseBidRequest = (body: unknown) => parseWith(body, V11);
const parseBidRequestText = (text: string, version: "v1.1" | "v1.2" = "v1.1") => parseTextWith(text, rulesOf(version));

const H1 = "fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7";
const H2 = "71C1348F2D7FF7E814F9C3617983703435EA7446DE420AEAC488BF1DE35737E8";
const valid = { txHashes: [H1], amount: "1000", blockNumber: "12", decayStartTimestamp: 100, decayEndTimestamp: "200" };

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).code).toBe(3);
    return (err as Error).message;
  }
  throw new Error("expected an InvalidArgumentError");
}

describe("decoding (api-behaviour §0.2)", () => {
  test("JSON names, numbers as strings or numbers, normalisation", () => {
    const bid = parseBidRequest({ ...valid, txHashes: [H1, `0x${H2}`], revertingTxHashes: [`0x${H2}`] });
    expect(bid.txHashes).toEqual([H1, H2.toLowerCase()]);
    expect(bid.revertingTxHashes).toEqual([H2.toLowerCase()]);
    expect(bid.amount).toBe(1000n);
    expect(bid.blockNumber).toBe(12n);
    expect(bid.decayStartTimestamp).toBe(100n);
    expect(bid.decayEndTimestamp).toBe(200n);
    expect(bid.slashAmount).toBe(0n);
    expect(bid.rawTransactions).toEqual([]);
  });

  test("proto names are accepted too, unknown fields ignored", () => {
    const bid = parseBidRequest({
      tx_hashes: [H1],
      amount: "5",
      block_number: 3,
      decay_start_timestamp: "1",
      decay_end_timestamp: 2,
      reverting_tx_hashes: [],
      slash_amount: "7",
      whatever: { nested: true },
    });
    expect(bid.blockNumber).toBe(3n);
    expect(bid.slashAmount).toBe(7n);
  });

  test("both spellings of one field is a duplicate field error", () => {
    const msg = messageOf(() => parseBidRequest({ ...valid, block_number: 5 }));
    expect(msg).toBe('proto: duplicate field "block_number"');
    const text = `{"blockNumber": 1,\n "block_number": 2}`;
    expect(messageOf(() => parseBidRequestText(text))).toBe('proto: (line 2:2): duplicate field "block_number"');
    expect(messageOf(() => parseBidRequestText('{"amount":"1","amount":"2"}'))).toBe(
      'proto: (line 1:15): duplicate field "amount"',
    );
  });

  test("wrong JSON types give protojson-like errors", () => {
    const err = (() => {
      try {
        parseBidRequestText('{"amount": {"x": 1}}');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(BodyDecodeError);
    expect((err as Error).message).toBe("proto: (line 1:12): invalid value for string type: {");
    expect(messageOf(() => parseBidRequest({ ...valid, amount: 5 }))).toBe("proto: invalid value for string type: 5");
    expect(messageOf(() => parseBidRequestText('{"blockNumber": "abc"}'))).toBe(
      'proto: (line 1:17): invalid value for int64 type: "abc"',
    );
    expect(messageOf(() => parseBidRequestText('{"blockNumber": 1.5}'))).toBe(
      "proto: (line 1:17): invalid value for int64 type: 1.5",
    );
    expect(messageOf(() => parseBidRequestText('{"blockNumber": 9223372036854775808}'))).toContain(
      "invalid value for int64 type",
    );
    expect(messageOf(() => parseBidRequestText('{"txHashes": "abc"}'))).toBe(
      'proto: syntax error (line 1:14): unexpected token "abc"',
    );
    expect(messageOf(() => parseBidRequestText("[1]"))).toBe("proto: syntax error (line 1:1): unexpected token [");
  });

  test("int64 accepts exponent forms and exact big values from text", () => {
    const bid = parseBidRequestText(
      `{"txHashes":["${H1}"],"amount":"1","blockNumber":1e3,"decayStartTimestamp":9007199254740993,"decayEndTimestamp":"9223372036854775807"}`,
    );
    expect(bid.blockNumber).toBe(1000n);
    expect(bid.decayStartTimestamp).toBe(9007199254740993n);
    expect(bid.decayEndTimestamp).toBe(9223372036854775807n);
  });

  test("JSON syntax errors use encoding/json wording; trailing data is ignored; empty body = defaults", () => {
    expect(messageOf(() => parseBidRequestText('{"amount": x}'))).toBe(
      "invalid character 'x' looking for beginning of value",
    );
    expect(messageOf(() => parseBidRequestText('{"amount": "1"'))).toBe("unexpected EOF");
    expect(
      parseBidRequestText(
        `{"txHashes":["${H1}"],"amount":"1","blockNumber":1,"decayStartTimestamp":1,"decayEndTimestamp":1} trailing`,
      ).amount,
    ).toBe(1n);
    expect(messageOf(() => parseBidRequestText("  "))).toStartWith("validating bid: validation error:");
  });

  test("null means unset", () => {
    expect(parseBidRequest({ ...valid, slashAmount: null, revertingTxHashes: null }).slashAmount).toBe(0n);
  });
});

describe("protovalidate (§1.1 rules)", () => {
  test("an empty body lists every violation in declaration order", () => {
    expect(messageOf(() => parseBidRequest({}))).toBe(
      "validating bid: validation error:\n" +
        " - amount: amount must be a valid integer. [amount]\n" +
        " - block_number: block_number must be a valid integer. [block_number]\n" +
        " - decay_start_timestamp: decay_start_timestamp must be a valid integer. [decay_start_timestamp]\n" +
        " - decay_end_timestamp: decay_end_timestamp must be a valid integer. [decay_end_timestamp]",
    );
  });

  test("each field message", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ txHashes: ["xyz"] }, " - tx_hashes: tx_hashes must be a valid array of transaction hashes. [tx_hashes]"],
      [{ txHashes: [`0X${H1}`] }, " - tx_hashes: tx_hashes must be a valid array of transaction hashes. [tx_hashes]"],
      [{ amount: "0" }, " - amount: amount must be a valid integer. [amount]"],
      [{ amount: "01" }, " - amount: amount must be a valid integer. [amount]"],
      [{ amount: "1.5" }, " - amount: amount must be a valid integer. [amount]"],
      [{ blockNumber: 0 }, " - block_number: block_number must be a valid integer. [block_number]"],
      [
        { decayStartTimestamp: 0 },
        " - decay_start_timestamp: decay_start_timestamp must be a valid integer. [decay_start_timestamp]",
      ],
      [
        { decayEndTimestamp: "0" },
        " - decay_end_timestamp: decay_end_timestamp must be a valid integer. [decay_end_timestamp]",
      ],
      [
        { revertingTxHashes: [H1.slice(1)] },
        " - reverting_tx_hashes: reverting_tx_hashes must be an array of valid transaction hashes. [reverting_tx_hashes]",
      ],
      [
        { rawTransactions: ["zz"] },
        " - raw_transactions: raw_transactions must be an array of valid raw transactions. [raw_transactions]",
      ],
      [{ slashAmount: "-1" }, " - slash_amount: slash_amount must be a valid integer. [slash_amount]"],
      [{ slashAmount: "abc" }, " - slash_amount: slash_amount must be a valid integer. [slash_amount]"],
    ];
    for (const [patch, line] of cases) {
      expect(messageOf(() => parseBidRequest({ ...valid, ...patch }))).toBe(
        `validating bid: validation error:\n${line}`,
      );
    }
  });

  test("several violations are all listed", () => {
    expect(messageOf(() => parseBidRequest({ ...valid, txHashes: ["x"], amount: "0", slashAmount: "x" }))).toBe(
      "validating bid: validation error:\n" +
        " - tx_hashes: tx_hashes must be a valid array of transaction hashes. [tx_hashes]\n" +
        " - amount: amount must be a valid integer. [amount]\n" +
        " - slash_amount: slash_amount must be a valid integer. [slash_amount]",
    );
  });

  test("runtime errors replace the violations found so far", () => {
    expect(
      messageOf(() => parseBidRequest({ ...valid, txHashes: ["x"], blockNumber: -1, decayStartTimestamp: -5 })),
    ).toBe("validating bid: runtime error: error evaluating block_number: unsigned integer overflow");
    expect(messageOf(() => parseBidRequest({ ...valid, decayEndTimestamp: "-1" }))).toBe(
      "validating bid: runtime error: error evaluating decay_end_timestamp: unsigned integer overflow",
    );
    expect(messageOf(() => parseBidRequest({ ...valid, amount: "0", slashAmount: "18446744073709551616" }))).toBe(
      "validating bid: runtime error: error evaluating slash_amount: type conversion error from 'string' to 'uint'",
    );
    expect(parseBidRequest({ ...valid, slashAmount: "18446744073709551615" }).slashAmount).toBe(18446744073709551615n);
  });
});

describe("handler checks after validation", () => {
  const base = { amount: "1", blockNumber: 1, decayStartTimestamp: 1, decayEndTimestamp: 2 };

  test("empty bid / both kinds", () => {
    expect(messageOf(() => parseBidRequest(base))).toBe("empty bid");
    expect(messageOf(() => parseBidRequest({ ...base, txHashes: [H1], rawTransactions: ["00"] }))).toBe(
      "both txHashes and rawTransactions are provided",
    );
  });

  test("raw transaction hex and decode errors", () => {
    expect(messageOf(() => parseBidRequest({ ...base, rawTransactions: ["0xabc"] }))).toBe(
      "decoding raw transaction: encoding/hex: odd length hex string",
    );
    expect(messageOf(() => parseBidRequest({ ...base, rawTransactions: [""] }))).toBe(
      "unmarshaling raw transaction: typed transaction too short",
    );
    expect(messageOf(() => parseBidRequest({ ...base, rawTransactions: ["05aa"] }))).toBe(
      "unmarshaling raw transaction: transaction type not supported",
    );
    expect(messageOf(() => parseBidRequest({ ...base, rawTransactions: ["80"] }))).toBe(
      "unmarshaling raw transaction: rlp: expected input list for types.LegacyTx",
    );
    expect(messageOf(() => parseBidRequest({ ...base, rawTransactions: ["0280"] }))).toBe(
      "unmarshaling raw transaction: rlp: expected input list for types.DynamicFeeTx",
    );
  });

  test("raw transactions are hashed (lower-case, no 0x) and kept as sent", async () => {
    const account = privateKeyToAccount("0x9c0257114eb9399a2985f8e75dad7600c5d89fe3824ffa99ec1c3eb8bf3b0501");
    const common = {
      chainId: 1,
      to: "0x0000000000000000000000000000000000000001",
      value: 1n,
      nonce: 0,
      gas: 21000n,
    } as const;
    const dyn = await account.signTransaction({
      ...common,
      type: "eip1559",
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
    });
    const legacy = await account.signTransaction({ ...common, type: "legacy", gasPrice: 10n });
    const bid = parseBidRequest({ ...base, rawTransactions: [dyn, legacy.slice(2).toUpperCase()] });
    expect(bid.txHashes).toEqual([keccak256(dyn).slice(2), keccak256(legacy).slice(2)]);
    expect(bid.rawTransactions).toEqual([dyn, legacy.slice(2).toUpperCase()]);
    expect(messageOf(() => parseBidRequest({ ...base, rawTransactions: [`${dyn}00`] }))).toBe(
      "unmarshaling raw transaction: rlp: input contains more than one value",
    );
  });
});

describe("amount bounds (ours: the contracts take uint256)", () => {
  const max = ((1n << 256n) - 1n).toString();
  test("2^256-1 is accepted, one more is InvalidArgument with a short message", () => {
    expect(parseBidRequest({ ...valid, amount: max }).amount).toBe((1n << 256n) - 1n);
    const m = messageOf(() => parseBidRequest({ ...valid, amount: (1n << 256n).toString() }));
    expect(m).toBe("validating bid: amount must fit in a uint256 (at most 2^256-1 wei), got 115792089237…(78 digits)");
  });
  test("a 4 MiB amount is refused without converting it", () => {
    const m = messageOf(() => parseBidRequestText(JSON.stringify({ ...valid, amount: "9".repeat(4 << 20) })));
    expect(m).toContain("amount must fit in a uint256");
    expect(m.length).toBeLessThan(200);
  });
  test("slash_amount above uint64 is the CEL conversion error, even when huge", () => {
    expect(messageOf(() => parseBidRequest({ ...valid, slashAmount: (1n << 64n).toString() }))).toBe(
      "validating bid: runtime error: error evaluating slash_amount: type conversion error from 'string' to 'uint'",
    );
    expect(messageOf(() => parseBidRequest({ ...valid, slashAmount: "9".repeat(1 << 20) }))).toContain("slash_amount");
  });
  test("int64 fields as 100,000-digit numbers are range errors", () => {
    expect(() => parseBidRequestText(`{"blockNumber":${"9".repeat(100_000)}}`)).toThrow(BodyDecodeError);
  });
});

describe("per protocol version: bidOptions and the empty slash amount", () => {
  const options = { options: [{ positionConstraint: { anchor: "ANCHOR_TOP", basis: "BASIS_PERCENTILE", value: 10 } }] };

  test("v1.1 discards bidOptions as an unknown field and keeps 0 for an empty slash amount", () => {
    const bid = parseBidRequestText(JSON.stringify({ ...valid, bidOptions: options }), "v1.1");
    expect(bid.bidOptions).toBeUndefined();
    expect(bid.slashAmount).toBe(0n);
  });

  test("v1.2 keeps the options' binary encoding, and an empty slash amount is the bid's amount", () => {
    const bid = parseBidRequestText(JSON.stringify({ ...valid, bidOptions: options, slashAmount: "" }), "v1.2");
    expect(Buffer.from(bid.bidOptions!).toString("hex")).toBe("0a080a0608011001180a");
    expect(bid.slashAmount).toBe(1000n);
  });

  test("v1.2 without options carries empty options (the v1.2 digest); a given slash amount is kept", () => {
    const bid = parseBidRequestText(JSON.stringify({ ...valid, slash_amount: "7" }), "v1.2");
    expect(bid.bidOptions).toEqual(new Uint8Array(0));
    expect(bid.slashAmount).toBe(7n);
  });

  test("v1.2 refuses a malformed bidOptions and a duplicate one", () => {
    expect(() => parseBidRequestText(JSON.stringify({ ...valid, bidOptions: [] }), "v1.2")).toThrow(BodyDecodeError);
    const dup = `{"txHashes":["${H1}"],"amount":"1","blockNumber":1,"decayStartTimestamp":1,"decayEndTimestamp":2,"bidOptions":{},"bid_options":{}}`;
    expect(() => parseBidRequestText(dup, "v1.2")).toThrow(/duplicate field/);
  });
});
