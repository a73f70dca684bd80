/**
 * The fields protocol v1.2 adds to the bidder's SendBid messages over gRPC (upstream-head-delta §1.2, §1.4): 9
 * `bid_options` on the request bidderapi.v1.Bid and 14 `bid_options` on each streamed Commitment, the request's
 * options echoed. The generated schema is v1.1's: a gRPC request's field 9 arrives among the message's extra encoded
 * fields, and field 14 is written as one. A service of the v1.2 schema decodes field 9 itself, into a BidOptions
 * message; both forms are read. (Over HTTP the route decodes and renders them itself.)
 */
import type { Message } from "@bufbuild/protobuf";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { Commitment } from "../gen/proto/bidderapi/v1/bidderapi_pb.ts";
import {
  type BidOptions,
  decodeBidOptions,
  encodeBidOptions,
  type PositionConstraint,
} from "../protocol/bidOptions.ts";
import { InternalError } from "../protocol/grpcCodes.ts";

const BID_BID_OPTIONS = 9;
const COMMITMENT_BID_OPTIONS = 14;

/** A BidOptions message as protobuf-es decodes it with the v1.2 schema (a oneof is `{ case, value }`). */
interface BidOptionsMessage {
  readonly options?: readonly {
    readonly opt?: { readonly case?: string; readonly value?: Partial<PositionConstraint> };
  }[];
}

function fromMessage(m: BidOptionsMessage): BidOptions {
  return {
    options: (m.options ?? []).map(({ opt }) =>
      opt?.case === "positionConstraint" && opt.value
        ? {
            positionConstraint: {
              anchor: opt.value.anchor ?? 0,
              basis: opt.value.basis ?? 0,
              value: opt.value.value ?? 0,
            },
          }
        : {},
    ),
  };
}

/**
 * The binary BidOptions of a gRPC-decoded request (field 9), in protobuf's canonical encoding; undefined when the
 * field is absent or the request did not come off gRPC. Bytes that do not decode fail as grpc-go fails a request it
 * cannot unmarshal.
 */
export function grpcBidOptions(req: object): Uint8Array | undefined {
  const decoded = (req as { bidOptions?: unknown }).bidOptions;
  if (decoded !== undefined && !(decoded instanceof Uint8Array))
    return encodeBidOptions(fromMessage(decoded as BidOptionsMessage));
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
