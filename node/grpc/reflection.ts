import { type DescFile, type DescService, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import type { Server } from "@grpc/grpc-js";
import { ReflectionService } from "@grpc/reflection";

/**
 * Server reflection (grpc.reflection.v1 and v1alpha) for the services a node serves, from the descriptors
 * protoc-gen-es generated from proto/: `grpcurl list` and `describe` need no .proto files.
 */
export function addReflection(server: Server, services: DescService[]): void {
  const files = new Map<string, Uint8Array>();
  const add = (f: DescFile) => {
    if (files.has(f.proto.name)) return;
    files.set(f.proto.name, toBinary(FileDescriptorProtoSchema, f.proto));
    f.dependencies.forEach(add);
  };
  for (const s of services) add(s.file);
  // @grpc/reflection reads a proto-loader package definition; only its serialized file descriptors are used.
  const definition = { files: { fileDescriptorProtos: [...files.values()] } };
  new ReflectionService(definition as never, { services: services.map((s) => s.typeName) }).addToServer(server);
}
