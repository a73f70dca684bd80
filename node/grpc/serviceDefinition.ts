import { type DescService, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { MethodDefinition, ServiceDefinition } from "@grpc/grpc-js";
import { decodeRequest } from "./requestDecoding.ts";

/**
 * A grpc-js service definition from a service of our generated protos: the paths (`/<package>.<Service>/<Method>`),
 * stream kinds and binary codecs all come from proto/ through protoc-gen-es, so there is no second copy of the wire.
 * Handlers are keyed by the method's proto name (`SendBid`). A request that does not decode reaches its handler as an
 * UndecodableRequest (node/grpc/requestDecoding.ts), so that the call answers grpc-go's status, not grpc-js's.
 */
export function serviceDefinition(service: DescService): ServiceDefinition {
  const def: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const m of service.methods) {
    def[m.name] = {
      path: `/${service.typeName}/${m.name}`,
      requestStream: m.methodKind === "client_streaming" || m.methodKind === "bidi_streaming",
      responseStream: m.methodKind === "server_streaming" || m.methodKind === "bidi_streaming",
      requestSerialize: (x) => Buffer.from(toBinary(m.input, x as never)),
      requestDeserialize: (b: Buffer) => decodeRequest(m, b),
      responseSerialize: (x) => Buffer.from(toBinary(m.output, x as never)),
      responseDeserialize: (b: Buffer) => fromBinary(m.output, b),
      originalName: m.localName,
    };
  }
  return def;
}
