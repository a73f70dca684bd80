/**
 * SendBid's v1.2 fields over gRPC (upstream-head-delta §1.2, §1.4): the request's `bid_options` (bidderapi.v1.Bid
 * field 9), a BidOptions message as the v1.2 schema decodes it, becomes the bytes the bid is signed over
 * (node/protocol/bidOptions.ts), and each streamed Commitment echoes them as its `bid_options` (field 14). Over HTTP
 * the route decodes and renders the options itself (node/api/bidder/bids.ts).
 */
import { create } from "@bufbuild/protobuf";
import type * as bidderPb from "../gen/proto/bidderapi/v1/bidderapi_pb.ts";
import * as bidderV12Pb from "../gen/proto/v1.2/bidderapi/v1/bidderapi_pb.ts";
import { decodeBidOptions, encodeBidOptions } from "../protocol/bidOptions.ts";

/**
 * The request's options in their canonical binary encoding; undefined when the request did not set the field. An
 * option of a kind this version does not know stays an empty option (as decodeBidOptions reads one).
 */
export function bidOptionsBytes(message: bidderV12Pb.BidOptions | undefined): Uint8Array | undefined {
  if (message === undefined) return undefined;
  return encodeBidOptions({
    options: message.options.map(({ opt }) =>
      opt.case === "positionConstraint"
        ? { positionConstraint: { anchor: opt.value.anchor, basis: opt.value.basis, value: opt.value.value } }
        : {},
    ),
  });
}

/** The message of options in their binary encoding (bytes bidOptionsBytes gave, so they decode). */
export function bidOptionsMessage(bytes: Uint8Array): bidderV12Pb.BidOptions {
  return create(bidderV12Pb.BidOptionsSchema, {
    options: decodeBidOptions(bytes).options.map(({ positionConstraint: pc }) => ({
      opt: pc
        ? {
            case: "positionConstraint" as const,
            value: {
              anchor: pc.anchor as bidderV12Pb.PositionConstraint_Anchor,
              basis: pc.basis as bidderV12Pb.PositionConstraint_Basis,
              value: pc.value,
            },
          }
        : { case: undefined },
    })),
  });
}

/** v1.2's Commitment: v1.1's fields, and the request's options echoed (the field is unset when it had none). */
export function commitmentV12(c: bidderPb.Commitment, bidOptions: Uint8Array | undefined): bidderV12Pb.Commitment {
  const { $typeName: _typeName, $unknown: _unknown, ...fields } = c;
  return create(bidderV12Pb.CommitmentSchema, {
    ...fields,
    ...(bidOptions === undefined ? {} : { bidOptions: bidOptionsMessage(bidOptions) }),
  });
}
