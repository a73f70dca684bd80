/**
 * Every message of the five API services, filled in every field, survives a round trip through an independent
 * protobuf implementation (protobufjs, as @grpc/proto-loader clients use it) that reads the same .proto files: what
 * protoc-gen-es generated and what any client generated from proto/ sees on the wire are one format.
 */
import { describe, expect, test } from "bun:test";
import { create, equals, fromBinary, toBinary, type DescEnum, type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf";
import { UInt64ValueSchema } from "@bufbuild/protobuf/wkt";
import protobuf from "protobufjs";
import { join } from "node:path";
import { file_bidderapi_v1_bidderapi } from "./proto/bidderapi/v1/bidderapi_pb.ts";
import { file_providerapi_v1_providerapi } from "./proto/providerapi/v1/providerapi_pb.ts";
import { file_notificationsapi_v1_notifications } from "./proto/notificationsapi/v1/notifications_pb.ts";
import { file_validatorapi_v1_validatorapi } from "./proto/validatorapi/v1/validatorapi_pb.ts";
import { file_debugapi_v1_debugapi } from "./proto/debugapi/v1/debugapi_pb.ts";

const files = [file_bidderapi_v1_bidderapi, file_providerapi_v1_providerapi, file_notificationsapi_v1_notifications, file_validatorapi_v1_validatorapi, file_debugapi_v1_debugapi];
const protoDir = join(import.meta.dir, "..", "..", "proto");

function scalar(t: ScalarType, n: number): unknown {
  switch (t) {
    case ScalarType.STRING:
      return `s${n}-é`;
    case ScalarType.BOOL:
      return true;
    case ScalarType.BYTES:
      return new Uint8Array([n, 0, 255]);
    case ScalarType.INT64:
      return -(2n ** 60n) - BigInt(n);
    case ScalarType.UINT64:
      return 2n ** 63n + BigInt(n);
    case ScalarType.INT32:
      return -1000 - n;
    default:
      throw new Error(`no sample for scalar type ${t}`);
  }
}

const lastValue = (e: DescEnum) => e.values[e.values.length - 1]!.number;

/** A value for a singular message field: wrappers and Struct are unboxed in protobuf-es. */
function messageValue(m: DescMessage, n: number): unknown {
  if (m.typeName === "google.protobuf.UInt64Value") return 2n ** 63n + BigInt(n);
  if (m.typeName === "google.protobuf.StringValue") return `w${n}`;
  if (m.typeName === "google.protobuf.Struct") return { a: 1.5, b: "x", c: [true, null], d: { e: "f" } };
  return sample(m);
}

function fieldValue(f: DescField): unknown {
  switch (f.fieldKind) {
    case "scalar":
      return scalar(f.scalar, f.number);
    case "enum":
      return lastValue(f.enum);
    case "message":
      return messageValue(f.message, f.number);
    case "list":
      if (f.listKind === "scalar") return [scalar(f.scalar, f.number), scalar(f.scalar, f.number + 1)];
      if (f.listKind === "enum") return [lastValue(f.enum)];
      return [0, 1].map((i) => (f.message.typeName === "google.protobuf.UInt64Value" ? create(UInt64ValueSchema, { value: BigInt(i + 7) }) : sample(f.message)));
    case "map":
      return { "7": f.mapKind === "message" ? sample(f.message) : f.mapKind === "enum" ? lastValue(f.enum) : scalar(f.scalar, f.number), "42": f.mapKind === "message" ? sample(f.message) : f.mapKind === "enum" ? lastValue(f.enum) : scalar(f.scalar, 2) };
  }
}

function sample(m: DescMessage): never {
  const init: Record<string, unknown> = {};
  for (const f of m.fields) init[f.localName] = fieldValue(f);
  return create(m, init as never) as never;
}

function messagesOf(ms: readonly DescMessage[]): DescMessage[] {
  return ms.flatMap((m) => [m, ...messagesOf(m.nestedMessages)]);
}

const root = new protobuf.Root();
// Well-known types come from protobufjs's own copies (protobuf.common), ours from proto/.
root.resolvePath = (_origin, target) => (target.startsWith("google/protobuf/") ? target : join(protoDir, target));
root.loadSync(files.map((f) => f.proto.name), { keepCase: true });

describe("every API message round-trips through protobufjs reading proto/", () => {
  for (const m of messagesOf(files.flatMap((f) => f.messages))) {
    test(m.typeName, () => {
      const original = sample(m);
      const bytes = toBinary(m, original);
      const type = root.lookupType(m.typeName);
      const decoded = type.decode(bytes);
      const longKeyMaps = m.fields.filter((f) => f.fieldKind === "map" && (f.mapKey === ScalarType.UINT64 || f.mapKey === ScalarType.INT64));
      if (longKeyMaps.length === 0) {
        const back = fromBinary(m, type.encode(decoded).finish());
        expect(equals(m, back, original)).toBe(true);
      } else {
        // protobufjs keeps 64-bit map keys as 8-byte hashes and cannot re-encode them (a protobufjs limitation):
        // check what it decoded instead.
        for (const f of longKeyMaps) {
          const got = (decoded as unknown as Record<string, Record<string, unknown>>)[f.name]!;
          const keys = Object.keys(got).map((k) => protobuf.util.LongBits.fromHash(k).toNumber(true));
          expect(keys.map(String).sort()).toEqual(Object.keys((original as Record<string, object>)[f.localName]!).sort());
        }
      }
      if (m.fields.length > 0) expect(bytes.length).toBeGreaterThan(0);
    });
  }
});
