/**
 * Bid options of protocol v1.2 (upstream-head-delta §1.2, §1.4, §2.6) between their API form (protojson of
 * bidderapi.v1.BidOptions, as a client sends it in `bidOptions`) and their bytes: the proto encoding of that message,
 * which the p2p Bid carries as `bid_options` and whose keccak256 is the bid digest's 11th word. The bytes are hashed
 * exactly as carried: nobody re-encodes them. Absent options and a BidOptions with no options are both zero bytes.
 * Beside the generated code it wraps, so that node/protocol (pure, no generated code) stays out of it.
 */
import { fromBinary, fromJson, type JsonValue, toBinary, toJson } from "@bufbuild/protobuf";
import { BidOptionsSchema } from "./proto/v1.2/bidderapi/v1/bidderapi_pb.ts";
import { InvalidArgumentError } from "../protocol/grpcCodes.ts";

/** JSON (camelCase or proto names, enums by name or number) → the proto bytes; `undefined`/null → zero bytes. */
export function encodeBidOptions(json: JsonValue | undefined): Uint8Array {
  if (json === undefined || json === null) return new Uint8Array(0);
  try {
    return toBinary(BidOptionsSchema, fromJson(BidOptionsSchema, json));
  } catch (e) {
    throw new InvalidArgumentError(`marshaling bid options: ${(e as Error).message}`, { cause: e });
  }
}

/** The proto bytes → JSON as grpc-gateway renders it (enums by name); zero bytes → `{"options":[]}`. */
export function decodeBidOptions(bytes: Uint8Array): JsonValue {
  try {
    return toJson(BidOptionsSchema, fromBinary(BidOptionsSchema, bytes), { alwaysEmitImplicit: true });
  } catch (e) {
    throw new InvalidArgumentError(`decoding bid options: ${(e as Error).message}`, { cause: e });
  }
}
