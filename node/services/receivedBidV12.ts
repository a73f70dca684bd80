/**
 * The fields protocol v1.2 adds to the provider's ReceiveBids message providerapi.v1.Bid (upstream-head-delta §1.5):
 * 10 `bid_options` (providerapi.v1.BidOptions, numbered as bidderapi.v1.BidOptions) and 11 `bidder_address` (the
 * address recovered from the bid signature, EIP-55 with 0x). The generated schema is v1.1's, so the two fields
 * travel as the message's extra encoded fields: protobuf writes them as they are on gRPC, and the HTTP gateway
 * renders them with `v12BidFieldsJson`.
 */
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { Bid } from "../gen/proto/providerapi/v1/providerapi_pb.ts";
import { type BidOptions, bidOptionsToJson, decodeBidOptions, encodeBidOptions } from "../protocol/bidOptions.ts";

const BID_OPTIONS = 10;
const BIDDER_ADDRESS = 11;

export interface V12BidFields {
  /** Undefined when the bid carries none (rendered as null). */
  readonly bidOptions?: BidOptions;
  readonly bidderAddress: string;
}

/** Adds fields 10 and 11 to a ReceiveBids message. An absent bidOptions is not written, as proto3 leaves it out. */
export function withV12BidFields(message: Bid, f: V12BidFields): Bid {
  const extra = [];
  if (f.bidOptions)
    extra.push({
      no: BID_OPTIONS,
      wireType: WireType.LengthDelimited,
      data: new BinaryWriter().bytes(encodeBidOptions(f.bidOptions)).finish(),
    });
  if (f.bidderAddress)
    extra.push({
      no: BIDDER_ADDRESS,
      wireType: WireType.LengthDelimited,
      data: new BinaryWriter().string(f.bidderAddress).finish(),
    });
  message.$unknown = [...(message.$unknown ?? []), ...extra];
  return message;
}

/** Reads fields 10 and 11 of a ReceiveBids message (built here, or decoded off gRPC); "" / undefined when absent. */
export function v12BidFieldsOf(message: Bid): V12BidFields {
  let bidOptions: BidOptions | undefined;
  let bidderAddress = "";
  for (const u of message.$unknown ?? []) {
    if (u.wireType !== WireType.LengthDelimited) continue;
    if (u.no === BID_OPTIONS) bidOptions = decodeBidOptions(new BinaryReader(u.data).bytes());
    else if (u.no === BIDDER_ADDRESS) bidderAddress = new BinaryReader(u.data).string();
  }
  return { bidOptions, bidderAddress };
}

/** grpc-gateway's rendering of the two fields (EmitUnpopulated: an absent bidOptions is null). */
export function v12BidFieldsJson(message: Bid): { bidOptions: unknown; bidderAddress: string } {
  const f = v12BidFieldsOf(message);
  return { bidOptions: f.bidOptions ? bidOptionsToJson(f.bidOptions) : null, bidderAddress: f.bidderAddress };
}
