/**
 * SendBid's v1.2 bid options between the v1.2 gRPC messages and the bytes the bid is signed over: the request's
 * BidOptions message gives the bytes the HTTP route gives for the same options, and a commitment echoes them as
 * field 14 of the v1.2 Commitment, byte for byte.
 */
import { describe, expect, test } from "bun:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import * as bidderPb from "../gen/proto/bidderapi/v1/bidderapi_pb.ts";
import * as bidderV12Pb from "../gen/proto/v1.2/bidderapi/v1/bidderapi_pb.ts";
import { encodeBidOptions } from "../protocol/bidOptions.ts";
import { decodeBidRequestText } from "../protocol/bidValidation.ts";
import { rulesOf } from "../protocol/rules.ts";
import { bidOptionsBytes, bidOptionsMessage, commitmentV12 } from "./bidOptionsMessages.ts";

const OPTIONS = {
  options: [
    { positionConstraint: { anchor: 2, basis: 3, value: -7 } },
    {},
    { positionConstraint: { anchor: 0, basis: 0, value: 0 } },
    { positionConstraint: { anchor: 9, basis: 1, value: 5 } },
  ],
};
const BYTES = encodeBidOptions(OPTIONS);

/** A v1.2 Bid as a gRPC client sends it, decoded by the v1.2 schema as the node's server decodes it. */
function requestOptions(bytes: Uint8Array | undefined): bidderV12Pb.BidOptions | undefined {
  const w = new BinaryWriter().tag(2, 2).string("1");
  if (bytes !== undefined) w.tag(9, 2).bytes(bytes);
  return fromBinary(bidderV12Pb.BidSchema, w.finish()).bidOptions;
}

describe("bidOptionsBytes", () => {
  test("the request's BidOptions message gives the bytes it was sent with", () => {
    expect(bidOptionsBytes(requestOptions(BYTES))).toEqual(BYTES);
    expect(bidOptionsBytes(requestOptions(new Uint8Array(0)))).toEqual(new Uint8Array(0));
    expect(bidOptionsBytes(requestOptions(undefined))).toBeUndefined();
  });

  test("the same options over HTTP give the same bytes", () => {
    const json = JSON.stringify({
      amount: "1",
      bidOptions: {
        options: [{ positionConstraint: { anchor: "ANCHOR_BOTTOM", basis: "BASIS_GAS_PERCENTILE", value: -7 } }, {}],
      },
    });
    const overHttp = decodeBidRequestText(json, rulesOf("v1.2")).bidOptions;
    const message = create(bidderV12Pb.BidOptionsSchema, {
      options: [
        {
          opt: {
            case: "positionConstraint",
            value: {
              anchor: bidderV12Pb.PositionConstraint_Anchor.BOTTOM,
              basis: bidderV12Pb.PositionConstraint_Basis.GAS_PERCENTILE,
              value: -7,
            },
          },
        },
        {},
      ],
    });
    expect(bidOptionsBytes(message)).toEqual(overHttp!);
  });

  test("an option of a kind v1.2 does not know is an empty option, its unknown field dropped", () => {
    // BidOption field 2 (a later release's option kind) with a 1-byte body.
    const unknownKind = Uint8Array.from([0x0a, 0x03, 0x12, 0x01, 0x00]);
    expect(bidOptionsBytes(requestOptions(unknownKind))).toEqual(Uint8Array.from([0x0a, 0x00]));
  });
});

describe("commitmentV12", () => {
  const c = create(bidderPb.CommitmentSchema, {
    txHashes: ["ab".repeat(32)],
    bidAmount: "7",
    blockNumber: 12n,
    providerAddress: "cd".repeat(20),
    dispatchTimestamp: 3n,
    slashAmount: "7",
  });

  test("v1.1's fields, then the options as field 14 exactly as sent", () => {
    const v11 = toBinary(bidderPb.CommitmentSchema, c);
    const field14 = new BinaryWriter().tag(14, 2).bytes(BYTES).finish();
    expect(toBinary(bidderV12Pb.CommitmentSchema, commitmentV12(c, BYTES))).toEqual(
      Uint8Array.from([...v11, ...field14]),
    );
    expect(toBinary(bidderV12Pb.BidOptionsSchema, bidOptionsMessage(BYTES))).toEqual(Uint8Array.from(BYTES));
  });

  test("empty options are a present, empty field 14; none leave it out", () => {
    const v11 = toBinary(bidderPb.CommitmentSchema, c);
    expect(toBinary(bidderV12Pb.CommitmentSchema, commitmentV12(c, new Uint8Array(0)))).toEqual(
      Uint8Array.from([...v11, 0x72, 0x00]),
    );
    const none = commitmentV12(c, undefined);
    expect(none.bidOptions).toBeUndefined();
    expect(toBinary(bidderV12Pb.CommitmentSchema, none)).toEqual(v11);
    expect(none.$typeName).toBe("bidderapi.v1.Commitment");
  });
});
