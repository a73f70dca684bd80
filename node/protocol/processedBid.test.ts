import { describe, expect, test } from "bun:test";
import { bytesToHex } from "./bytes.ts";
import { BodyDecodeError, UnknownError } from "./grpcCodes.ts";
import { parseProcessedBid, parseProcessedBidsText } from "./processedBid.ts";

const digest = new Uint8Array(32).map((_, i) => i * 7 + 250);
const std = Buffer.from(digest).toString("base64");
const url = Buffer.from(digest).toString("base64url");

describe("one decision", () => {
  test("base64 std / url-safe, with or without padding", () => {
    for (const s of [std, std.replace(/=+$/, ""), url, `${url}=`]) {
      expect(bytesToHex(parseProcessedBid({ bidDigest: s, status: "STATUS_ACCEPTED" }).bidDigest)).toBe(
        bytesToHex(digest),
      );
    }
  });

  test("status by name or number; proto and JSON names; dispatch as number or string", () => {
    expect(parseProcessedBid({ bid_digest: std, status: 2, dispatch_timestamp: "17" })).toEqual({
      bidDigest: digest,
      status: 2,
      dispatchTimestamp: 17n,
    });
    expect(parseProcessedBid({ bidDigest: std, status: "STATUS_REJECTED", dispatchTimestamp: 5 }).status).toBe(2);
  });

  test("the seed’s decayDispatchTimestamp is an alias of dispatchTimestamp", () => {
    expect(parseProcessedBid({ bidDigest: std, status: 1, decayDispatchTimestamp: 1234 }).dispatchTimestamp).toBe(
      1234n,
    );
    expect(() =>
      parseProcessedBid({ bidDigest: std, status: 1, decayDispatchTimestamp: 1, dispatchTimestamp: 2 }),
    ).toThrow('proto: duplicate field "dispatchTimestamp"');
  });

  test("missing or zero status: Unknown with the protovalidate text", () => {
    for (const body of [
      { bidDigest: std },
      { bidDigest: std, status: 0 },
      { bidDigest: std, status: "STATUS_BOGUS" },
    ]) {
      try {
        parseProcessedBid(body);
        throw new Error("expected a throw");
      } catch (err) {
        expect(err).toBeInstanceOf(UnknownError);
        expect((err as UnknownError).code).toBe(2);
        expect((err as Error).message).toBe("validation error:\n - status: value must be in list [1, 2] [enum.in]");
      }
    }
    expect(() => parseProcessedBid({ bidDigest: std, status: 7 })).toThrow(
      "validation error:\n - status: value must be in list [1, 2] [enum.in]\n - status: value must be one of the defined enum values [enum.defined_only]",
    );
  });

  test("bad base64 is a decode error", () => {
    expect(() => parseProcessedBid({ bidDigest: "not base64!", status: 1 })).toThrow(BodyDecodeError);
    expect(() => parseProcessedBid({ bidDigest: "not base64!", status: 1 })).toThrow(
      'proto: invalid value for bytes type: "not base64!"',
    );
  });
});

describe("a body of several decisions", () => {
  test("NDJSON, concatenated and whitespace-separated", () => {
    const a = JSON.stringify({ bidDigest: std, status: "STATUS_ACCEPTED", dispatchTimestamp: "1" });
    const b = JSON.stringify({ bidDigest: url, status: 2 });
    for (const body of [`${a}\n${b}\n`, `${a}${b}`, ` ${a}  \r\n\t${b}`]) {
      const { decisions, error } = parseProcessedBidsText(body);
      expect(error).toBeUndefined();
      expect(decisions.map((d) => d.status)).toEqual([1, 2]);
    }
    expect(parseProcessedBidsText("")).toEqual({ decisions: [] });
  });

  test("decisions before an error stand; the error says where", () => {
    const a = JSON.stringify({ bidDigest: std, status: 1 });
    const r1 = parseProcessedBidsText(`${a}\n{"status": 1,,}\n${a}`);
    expect(r1.decisions.length).toBe(1);
    expect(r1.error).toBeInstanceOf(BodyDecodeError);
    expect(r1.error!.message).toBe("invalid character ',' looking for beginning of object key string");
    expect(r1.error!.context.offset).toBe(a.length + 14);

    const r2 = parseProcessedBidsText(`${a}\n{"bidDigest": "${std}",\n "status": 0}\n${a}`);
    expect(r2.decisions.length).toBe(1);
    expect(r2.error).toBeInstanceOf(UnknownError);

    const r3 = parseProcessedBidsText(`${a}\n{"bidDigest": 5}`);
    expect(r3.error!.message).toBe("proto: (line 1:15): invalid value for bytes type: 5");
  });
});
