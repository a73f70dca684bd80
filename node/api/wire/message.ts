import { type DescMessage, type JsonValue, type MessageShape, toJson } from "@bufbuild/protobuf";
import { unaryResponse } from "./errors.ts";

/**
 * A proto message as grpc-gateway renders it (protojson with EmitUnpopulated): camelCase names, every field
 * present, 64-bit integers as strings, bytes as standard base64, enums by name, wrappers and Structs as plain JSON.
 */
export function messageJson<D extends DescMessage>(schema: D, message: MessageShape<D>): JsonValue {
  return toJson(schema, message, { alwaysEmitImplicit: true });
}

/** A unary success whose body is the message in grpc-gateway's JSON. */
export function messageResponse<D extends DescMessage>(schema: D, message: MessageShape<D>): Response {
  return unaryResponse(messageJson(schema, message));
}
