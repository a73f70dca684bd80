/**
 * Requests whose bytes do not decode as the method's message. grpc-js answers a throwing deserializer itself, with
 * Internal "Error deserializing request"; grpc-go (upstream v1.2.5 builds with 1.67.1, no interceptors) answers
 * Internal with its own text, which differs by the kind of method:
 *
 * - unary (server.go, processUnaryRPC): `grpc: error unmarshalling request: <error>`;
 * - streaming, SendBid and the other server and client streams included (rpc_util.go, recv, through RecvMsg):
 *   `grpc: failed to unmarshal the received message: <error>`.
 *
 * `<error>` is protobuf-go's: `string field contains invalid UTF-8` for a proto3 string that is not UTF-8, and
 * `proto: cannot parse invalid wire-format data` for any other malformed input (protobuf-go may print the space
 * after `proto:` as U+00A0, chosen per binary; the regular space is used here).
 *
 * So the service definition's deserializer never throws: it hands the handler an UndecodableRequest, and the
 * handler (node/grpc/handlers.ts) answers its error.
 */
import { type DescMethod, fromBinary } from "@bufbuild/protobuf";
import { InternalError } from "../protocol/grpcCodes.ts";

/** A request message that did not decode; `error` is the status grpc-go answers for it. */
export class UndecodableRequest {
  constructor(readonly error: InternalError) {}
}

/** protobuf-go's text for what protobuf-es could not decode. */
function protobufGoError(e: unknown): string {
  // TextDecoder's fatal mode (protobuf-es's UTF-8 check of proto3 strings) throws this code.
  if ((e as { code?: unknown }).code === "ERR_ENCODING_INVALID_ENCODED_DATA")
    return "string field contains invalid UTF-8";
  return "proto: cannot parse invalid wire-format data";
}

/** The status grpc-go answers for a request of `method` that did not decode. */
export function unmarshalError(method: DescMethod, e: unknown): InternalError {
  const prefix =
    method.methodKind === "unary"
      ? "grpc: error unmarshalling request"
      : "grpc: failed to unmarshal the received message";
  return new InternalError(`${prefix}: ${protobufGoError(e)}`, {
    cause: e,
    context: { method: method.name, reason: (e as Error).message },
  });
}

/** The request message of `method`, or an UndecodableRequest. */
export function decodeRequest(method: DescMethod, bytes: Uint8Array): unknown {
  try {
    return fromBinary(method.input, bytes);
  } catch (e) {
    return new UndecodableRequest(unmarshalError(method, e));
  }
}

/** The request a handler was given, or the error of one that did not decode (thrown). */
export function decodedRequest<Req>(request: Req | UndecodableRequest): Req {
  if (request instanceof UndecodableRequest) throw request.error;
  return request;
}
