/**
 * Query-parameter parsing as grpc-gateway v2.20 does it (`runtime/query.go`, api-behaviour §0.3):
 * a key matches the proto name first, then the JSON name; unknown keys are ignored; a repeated key
 * on a scalar field is `too many values for field "<proto_name>": a, b`; a value that does not
 * parse is `parsing field "<proto_name>": strconv.ParseUint: parsing "abc": invalid syntax`.
 * Integers are parsed with Go's strconv in base 10 (ParseUint for uint64 and UInt64Value wrappers,
 * so `-1` is invalid syntax there). All errors are InvalidArgument.
 *
 * Input is the already-split query: every key with all its values, in order.
 */

import { decimalAtMost } from "./decimal.ts";
import { InvalidArgumentError } from "./grpcCodes.ts";

export type QueryValues = Readonly<Record<string, readonly string[]>>;

export type QueryFieldKind = "int64" | "int32" | "uint64" | "uint64Value" | "bool" | "string";

export interface QueryFieldSpec {
  readonly name: string;
  readonly jsonName: string;
  readonly kind: QueryFieldKind;
}

/**
 * Builds QueryValues from a URLSearchParams (keeps every value of a repeated key). The record has no prototype, so
 * keys such as `__proto__` or `constructor` are plain (unknown, ignored) keys like any other.
 */
export function queryValuesOf(params: URLSearchParams): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null);
  for (const [k, v] of params) (out[k] ??= []).push(v);
  return out;
}

/** Go strconv.Quote for the common (printable ASCII / UTF-8) case. */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** Go strconv.ParseInt / ParseUint(s, 10, bits): the value or the Go error text. */
export function goParseInteger(s: string, signed: boolean, bits: 32 | 64): bigint | string {
  const fn = signed ? "ParseInt" : "ParseUint";
  const re = signed ? /^[+-]?[0-9]+$/ : /^[0-9]+$/;
  if (!re.test(s)) return `strconv.${fn}: parsing ${goQuote(s)}: invalid syntax`;
  const negative = s.startsWith("-");
  const magnitude = decimalAtMost(s.replace(/^[+-]/, ""), 1n << BigInt(bits)); // long strings refused before BigInt
  const v = magnitude === undefined ? undefined : negative ? -magnitude : magnitude;
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
  const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  if (v === undefined || v < min || v > max) return `strconv.${fn}: parsing ${goQuote(s)}: value out of range`;
  return v;
}

function goParseBool(s: string): boolean | string {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(s)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(s)) return false;
  return `strconv.ParseBool: parsing ${goQuote(s)}: invalid syntax`;
}

/** The values given for a field: proto name first, then JSON name; undefined when absent. */
export function queryValuesFor(query: QueryValues, spec: QueryFieldSpec): readonly string[] | undefined {
  const byProto = query[spec.name];
  if (byProto && byProto.length > 0) return byProto;
  const byJson = query[spec.jsonName];
  if (byJson && byJson.length > 0) return byJson;
  return undefined;
}

export type QueryFieldValue = bigint | number | boolean | string;

/** Parses one scalar query field; undefined when the key is absent. Throws InvalidArgumentError. */
export function parseQueryField(query: QueryValues, spec: QueryFieldSpec): QueryFieldValue | undefined {
  const values = queryValuesFor(query, spec);
  if (!values) return undefined;
  if (values.length > 1) {
    throw new InvalidArgumentError(`too many values for field "${spec.name}": ${values.join(", ")}`, {
      context: { field: spec.name },
    });
  }
  const raw = values[0]!;
  let parsed: bigint | boolean | string;
  switch (spec.kind) {
    case "string":
      return raw;
    case "bool":
      parsed = goParseBool(raw);
      if (typeof parsed === "boolean") return parsed;
      break;
    case "int32":
      parsed = goParseInteger(raw, true, 32);
      if (typeof parsed === "bigint") return Number(parsed);
      break;
    case "int64":
      parsed = goParseInteger(raw, true, 64);
      if (typeof parsed === "bigint") return parsed;
      break;
    case "uint64":
    case "uint64Value":
      parsed = goParseInteger(raw, false, 64);
      if (typeof parsed === "bigint") return parsed;
      break;
  }
  throw new InvalidArgumentError(`parsing field "${spec.name}": ${parsed}`, {
    context: { field: spec.name, value: raw },
  });
}
