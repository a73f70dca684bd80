/**
 * Stream envelopes (p2p.md "Framing", upstream pkg/p2p/libp2p/stream.go): each message travels as a StreamMsg
 * holding either its encoded bytes (`data`) or a gRPC status (`error`, written by a handler that failed); every
 * stream but the handshake opens with a Header from each side (mev-commit's own streams send empty ones).
 */
import { create, type DescMessage, fromBinary, type MessageShape, toBinary } from "@bufbuild/protobuf";
import { MevCommitError } from "../../../lib/errors.ts";
import { StatusSchema } from "../../gen/proto/google/rpc/status_pb.ts";
import { HeaderSchema, StreamMsgSchema } from "../../gen/proto/p2p/streammsg/v1/streammsg_pb.ts";
import { GrpcCode, grpcCodeName } from "../../protocol/grpcCodes.ts";

/** A peer's handler ended the stream with this status (upstream: status.FromProto(...).Err()). */
export class PeerStatusError extends MevCommitError {
  constructor(
    readonly code: number,
    readonly statusMessage: string,
  ) {
    super(`peer answered ${grpcCodeName(code)}: ${statusMessage}`, { context: { code } });
  }
}

export class StreamMsgError extends MevCommitError {}

export function encodeData<D extends DescMessage>(schema: D, message: MessageShape<D>): Uint8Array {
  return toBinary(
    StreamMsgSchema,
    create(StreamMsgSchema, { body: { case: "data", value: toBinary(schema, message) } }),
  );
}

export function encodeError(code: number, message: string): Uint8Array {
  return toBinary(
    StreamMsgSchema,
    create(StreamMsgSchema, { body: { case: "error", value: create(StatusSchema, { code, message }) } }),
  );
}

/** The message a StreamMsg carries; a carried status becomes a PeerStatusError. */
export function decodeData<D extends DescMessage>(schema: D, bytes: Uint8Array): MessageShape<D> {
  let envelope;
  try {
    envelope = fromBinary(StreamMsgSchema, bytes);
  } catch (e) {
    throw new StreamMsgError(`failed to unmarshal message: ${(e as Error).message}`);
  }
  if (envelope.body.case === "error")
    throw new PeerStatusError(envelope.body.value.code || GrpcCode.Unknown, envelope.body.value.message);
  if (envelope.body.case !== "data") throw new StreamMsgError("message has no data");
  try {
    return fromBinary(schema, envelope.body.value);
  } catch (e) {
    throw new StreamMsgError(`failed to unmarshal ${schema.typeName}: ${(e as Error).message}`);
  }
}

/** Throws the PeerStatusError an envelope carries; a data envelope passes. */
export function throwIfStatus(bytes: Uint8Array): void {
  let envelope;
  try {
    envelope = fromBinary(StreamMsgSchema, bytes);
  } catch (e) {
    throw new StreamMsgError(`failed to unmarshal message: ${(e as Error).message}`);
  }
  if (envelope.body.case === "error")
    throw new PeerStatusError(envelope.body.value.code || GrpcCode.Unknown, envelope.body.value.message);
}

/** mev-commit's streams exchange empty headers; an empty Header encodes to zero bytes. */
export const EMPTY_HEADER = toBinary(HeaderSchema, create(HeaderSchema));

export function decodeHeader(bytes: Uint8Array): Record<string, unknown> {
  try {
    return fromBinary(HeaderSchema, bytes).header;
  } catch (e) {
    throw new StreamMsgError(`failed to unmarshal header: ${(e as Error).message}`);
  }
}
