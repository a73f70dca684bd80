/**
 * SendProcessedBids input (api-behaviour §0.6, §1.4): one provider decision per JSON object, the
 * body being one object or a sequence of them (NDJSON or concatenated), as grpc-gateway's
 * json.Decoder reads a client-streaming body.
 *
 * Fields: `bid_digest`/`bidDigest` (bytes: std or URL-safe base64, padding optional),
 * `status` (`STATUS_ACCEPTED`/1 or `STATUS_REJECTED`/2), `dispatch_timestamp`/`dispatchTimestamp`
 * (int64 ms). Ours: the seed's `decayDispatchTimestamp` is accepted as an alias of
 * dispatchTimestamp (upstream silently drops it and dispatches at 0).
 *
 * Errors: a JSON syntax or type error is BodyDecodeError (InvalidArgument, HTTP 400); a status
 * outside {1, 2} is UnknownError (gRPC 2, HTTP 500) with the protovalidate text, because upstream's
 * stream handler returns the validation error as a plain error.
 */

import { BodyDecodeError, RpcError, UnknownError } from "./grpcCodes.ts";
import { type JsonNode, JsonSyntaxError, nodeFromPlain, readJsonValue } from "./jsonText.ts";
import { decodeProtoJsonMessage, type JsonSource, type ProtoFieldSpec } from "./protoJson.ts";
import { type Violation, validationErrorText } from "./protoValidation.ts";
import type { ProcessedBid } from "./types.ts";
import { PROCESSED_BID_STATUS_NAMES } from "./types.ts";

/** providerapi.v1.BidResponse at 5f1068d1, in declaration order. */
export const PROCESSED_BID_FIELDS: readonly ProtoFieldSpec[] = [
  { name: "bid_digest", jsonName: "bidDigest", kind: "bytes" },
  { name: "status", jsonName: "status", kind: "enum", enumValues: PROCESSED_BID_STATUS_NAMES },
  { name: "dispatch_timestamp", jsonName: "dispatchTimestamp", kind: "int64", aliases: ["decayDispatchTimestamp"] },
];

const DEFINED_STATUSES = new Set(Object.values(PROCESSED_BID_STATUS_NAMES));

/** protovalidate of BidResponse.status (`in: [1, 2]`, `defined_only`). */
export function processedBidStatusViolations(status: number): string | undefined {
  const violations: Violation[] = [];
  if (status !== 1 && status !== 2)
    violations.push({ fieldPath: "status", message: "value must be in list [1, 2]", constraintId: "enum.in" });
  if (!DEFINED_STATUSES.has(status)) {
    violations.push({
      fieldPath: "status",
      message: "value must be one of the defined enum values",
      constraintId: "enum.defined_only",
    });
  }
  return violations.length ? validationErrorText(violations) : undefined;
}

/** The fields of providerapi BidResponse as either transport decoded them. */
export interface ProcessedBidFields {
  readonly bidDigest: Uint8Array;
  readonly status: number;
  readonly dispatchTimestamp: bigint;
}

/** protovalidate of BidResponse: an undefined or unlisted status is UnknownError (upstream's plain stream error). */
export function validateProcessedBid(f: ProcessedBidFields): ProcessedBid {
  const violation = processedBidStatusViolations(f.status);
  if (violation) throw new UnknownError(violation, { context: { status: f.status } });
  return { bidDigest: f.bidDigest, status: f.status as 1 | 2, dispatchTimestamp: f.dispatchTimestamp };
}

/** Decodes and validates one decision given as a JSON node (with its source text for error positions). */
export function parseProcessedBidNode(node: JsonNode, source?: JsonSource): ProcessedBid {
  const v = decodeProtoJsonMessage(node, PROCESSED_BID_FIELDS, source);
  return validateProcessedBid({
    bidDigest: (v.bid_digest as Uint8Array | undefined) ?? new Uint8Array(0),
    status: (v.status as number | undefined) ?? 0,
    dispatchTimestamp: (v.dispatch_timestamp as bigint | undefined) ?? 0n,
  });
}

/** Decodes and validates one decision given as an already-parsed JSON value. */
export function parseProcessedBid(value: unknown): ProcessedBid {
  return parseProcessedBidNode(nodeFromPlain(value));
}

export interface ProcessedBidsParse {
  /** Decisions decoded before the first error, in body order. */
  readonly decisions: ProcessedBid[];
  /** The error that stopped decoding, if any; later objects were not read. */
  readonly error?: RpcError;
}

/**
 * Reads a whole SendProcessedBids body: every object until the end or the first error. As upstream,
 * decisions before an error stand (the caller applies them), and nothing after it is read.
 * An empty body gives no decisions.
 */
export function parseProcessedBidsText(text: string): ProcessedBidsParse {
  const decisions: ProcessedBid[] = [];
  let pos = 0;
  for (;;) {
    while (pos < text.length && " \t\r\n".includes(text[pos]!)) pos++;
    if (pos >= text.length) return { decisions };
    let node: JsonNode;
    try {
      node = readJsonValue(text, pos);
    } catch (err) {
      if (err instanceof JsonSyntaxError) {
        return { decisions, error: new BodyDecodeError(err.message, { context: { offset: err.offset } }) };
      }
      throw err;
    }
    try {
      decisions.push(parseProcessedBidNode(node, { text, base: node.start }));
    } catch (err) {
      if (err instanceof RpcError) return { decisions, error: err };
      throw err;
    }
    pos = node.end;
  }
}
