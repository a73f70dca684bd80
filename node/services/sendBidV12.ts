/**
 * The fields protocol v1.2 adds to the bidder's SendBid messages over gRPC (upstream-head-delta §1.2, §1.4): 9
 * `bid_options` on the request bidderapi.v1.Bid and 14 `bid_options` on each streamed Commitment, the request's
 * options echoed. The generated schema is v1.1's: a gRPC request's field 9 arrives among the message's extra encoded
 * fields, and field 14 is written as one. (Over HTTP the route decodes and renders them itself.)
 */
import type { Message } from "@bufbuild/protobuf";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { Commitment } from "../gen/proto/bidderapi/v1/bidderapi_pb.ts";
import { decodeBidOptions, encodeBidOptions } from "../protocol/bidOptions.ts";
import { InternalError } from "../protocol/grpcCodes.ts";

const BID_BID_OPTIONS = 9;
const COMMITMENT_BID_OPTIONS = 14;

/**
 * The binary BidOptions of a gRPC-decoded request (field 9), in protobuf's canonical encoding; undefined when the
 * field is absent or the request did not come off gRPC. Bytes that do not decode fail as grpc-go fails a request it
 * cannot unmarshal.
 */
export function grpcBidOptions(req: object): Uint8Array | undefined {
  let found: Uint8Array | undefined;
  for (const u of (req as Partial<Message>).$unknown ?? []) {
    if (u.no !== BID_BID_OPTIONS || u.wireType !== WireType.LengthDelimited) continue;
    try {
      found = encodeBidOptions(decodeBidOptions(new BinaryReader(u.data).bytes()));
    } catch (e) {
      throw new InternalError(`grpc: error unmarshalling request: ${(e as Error).message}`, { cause: e });
    }
  }
  return found;
}

/** Echoes the request's options on a streamed commitment (field 14); nothing when the request had none (null). */
export function withCommitmentBidOptions(message: Commitment, options: Uint8Array | undefined): Commitment {
  if (options === undefined) return message;
  const data = new BinaryWriter().bytes(options).finish();
  message.$unknown = [
    ...(message.$unknown ?? []),
    { no: COMMITMENT_BID_OPTIONS, wireType: WireType.LengthDelimited, data },
  ];
  return message;
}
