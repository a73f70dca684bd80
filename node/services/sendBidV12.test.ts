/**
 * The v1.2 SendBid fields over gRPC in both forms a service can receive field 9 in: left among the extra encoded
 * fields by the v1.1 schema, or decoded into a BidOptions message by the v1.2 schema. Both give the bytes the HTTP
 * route gives for the same options (the bytes the bid digest hashes).
 */
import { describe, expect, test } from "bun:test";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { encodeBidOptions } from "../protocol/bidOptions.ts";
import { InternalError } from "../protocol/grpcCodes.ts";
import { grpcBidOptions } from "./sendBidV12.ts";

const BYTES = encodeBidOptions({
  options: [{ positionConstraint: { anchor: 2, basis: 3, value: -7 } }, {}],
});

describe("grpcBidOptions", () => {
  test("field 9 among the extra encoded fields (v1.1 schema)", () => {
    const data = new BinaryWriter().bytes(BYTES).finish();
    expect(grpcBidOptions({ $unknown: [{ no: 9, wireType: WireType.LengthDelimited, data }] })).toEqual(BYTES);
    expect(grpcBidOptions({ $unknown: [{ no: 8, wireType: WireType.LengthDelimited, data }] })).toBeUndefined();
    expect(grpcBidOptions({})).toBeUndefined();
  });

  test("field 9 decoded into a BidOptions message (v1.2 schema)", () => {
    const message = {
      $typeName: "bidderapi.v1.BidOptions",
      options: [
        {
          $typeName: "bidderapi.v1.BidOption",
          opt: {
            case: "positionConstraint",
            value: { $typeName: "bidderapi.v1.PositionConstraint", anchor: 2, basis: 3, value: -7 },
          },
        },
        { $typeName: "bidderapi.v1.BidOption", opt: { case: undefined } },
      ],
    };
    expect(grpcBidOptions({ bidOptions: message })).toEqual(BYTES);
    expect(grpcBidOptions({ bidOptions: { $typeName: "bidderapi.v1.BidOptions", options: [] } })).toEqual(
      new Uint8Array(0),
    );
  });

  test("bytes that do not decode fail as grpc-go fails a request it cannot unmarshal", () => {
    const data = new BinaryWriter().bytes(Uint8Array.from([0x0a, 0x05])).finish();
    const e = (() => {
      try {
        grpcBidOptions({ $unknown: [{ no: 9, wireType: WireType.LengthDelimited, data }] });
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(InternalError);
    expect((e as Error).message).toMatch(/^grpc: error unmarshalling request: /);
  });
});
