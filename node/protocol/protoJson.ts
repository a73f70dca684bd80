/**
 * Decoding a JSON object into a flat proto message the way grpc-gateway's protojson does
 * (protobuf-go v1.34, DiscardUnknown): proto names and JSON names both accepted, both spellings
 * of one field → "duplicate field", unknown fields skipped, null = unset, 64-bit integers as JSON
 * numbers or strings, bytes as std or URL-safe base64 with or without padding, enums by name or
 * number (an unknown name is ignored). Errors read like protojson's: `proto: (line L:C): …`;
 * positions are relative to the value's first character, and are left out when the value came
 * from an already-parsed JS object.
 */
import { BodyDecodeError } from "./grpcCodes.ts";
import type { JsonNode, JsonObjectNode } from "./jsonText.ts";
import { lineColumn } from "./jsonText.ts";

export type ProtoFieldKind = "string" | "int64" | "uint64" | "int32" | "bytes" | "enum" | "uint64Value";

export interface ProtoFieldSpec {
  /** Proto field name (snake_case). */
  readonly name: string;
  /** JSON name (lowerCamelCase). */
  readonly jsonName: string;
  readonly kind: ProtoFieldKind;
  readonly repeated?: boolean;
  /** Enum value names → numbers. */
  readonly enumValues?: Readonly<Record<string, number>>;
  /** Further accepted keys (our own leniency, e.g. the seed's `decayDispatchTimestamp`). */
  readonly aliases?: readonly string[];
}

export type ProtoScalar = string | bigint | number | Uint8Array;
/** Decoded values by proto name; a missing key means unset (null or absent). */
export type ProtoValues = Record<string, ProtoScalar | ProtoScalar[] | undefined>;

/** Where the decoded node came from, for error positions. */
export interface JsonSource {
  readonly text: string;
  /** Offset of the message's first character (protojson counts from the raw message start). */
  readonly base: number;
}

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;
const INT32_MIN = -(1n << 31n);
const INT32_MAX = (1n << 31n) - 1n;

/** protojson's error texts with positions, for decoders of nested messages built on this module (bidOptions.ts). */
export class Decoder {
  constructor(readonly source: JsonSource | undefined) {}

  private where(offset: number): string {
    if (!this.source || offset < 0) return "";
    const { line, column } = lineColumn(this.source.text, this.source.base, offset);
    return `(line ${line}:${column}): `;
  }

  error(offset: number, message: string): BodyDecodeError {
    return new BodyDecodeError(`proto: ${this.where(offset)}${message}`, { context: { offset } });
  }

  syntaxError(offset: number, message: string): BodyDecodeError {
    const where = this.where(offset);
    const head = where ? `syntax error ${where}` : "syntax error: ";
    return new BodyDecodeError(`proto: ${head}${message}`, { context: { offset } });
  }

  rawOf(node: JsonNode): string {
    switch (node.kind) {
      case "object":
        return "{";
      case "array":
        return "[";
      default:
        return node.raw;
    }
  }

  invalid(node: JsonNode, typeName: string): BodyDecodeError {
    return this.error(node.start, `invalid value for ${typeName} type: ${this.rawOf(node)}`);
  }
}

/**
 * Integer value of a JSON number literal (or the number inside a JSON string, as protojson allows),
 * or undefined when it is not an integer or has more than 40 digits: "1e3" → 1000, "1.0" → 1, "1.5" → undefined.
 */
export function integerOfNumberLiteral(raw: string): bigint | undefined {
  const m = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(raw);
  if (!m) return undefined;
  const [, sign, intPart, frac = "", expText = "0"] = m;
  const exp = Number(expText);
  if (!Number.isSafeInteger(exp) || exp > 400 || exp < -400) return undefined;
  let digits = intPart! + frac;
  const scale = exp - frac.length;
  if (scale >= 0) digits += "0".repeat(scale);
  else {
    const cut = digits.length + scale;
    const dropped = cut > 0 ? digits.slice(cut) : digits;
    if (/[^0]/.test(dropped)) return undefined;
    digits = cut > 0 ? digits.slice(0, cut) : "0";
  }
  // Every field decoded here is at most 64 bits: a longer literal is out of range, refused before BigInt (O(n²)).
  if (digits.replace(/^0+/, "").length > 40) return undefined;
  const v = BigInt(digits);
  return sign === "-" ? -v : v;
}

function decodeInteger(d: Decoder, node: JsonNode, typeName: string, min: bigint, max: bigint): bigint {
  let literal: string | undefined;
  if (node.kind === "number") literal = node.raw;
  else if (node.kind === "string" && node.value.trim() === node.value) literal = node.value;
  const v = literal === undefined ? undefined : integerOfNumberLiteral(literal);
  if (v === undefined || v < min || v > max) throw d.invalid(node, typeName);
  return v;
}

function decodeBase64(text: string): Uint8Array | undefined {
  let s = text.replace(/[\r\n]/g, ""); // Go's base64 decoder skips CR and LF
  const urlSafe = /[-_]/.test(s);
  if (urlSafe && /[+/]/.test(s)) return undefined;
  if (s.length % 4 !== 0) {
    if (s.includes("=")) return undefined;
  } else if (/=[^=]/.test(s) || /={3,}$/.test(s)) return undefined;
  s = s.replace(/=+$/, "");
  if (!/^[A-Za-z0-9+/_-]*$/.test(s) || s.length % 4 === 1) return undefined;
  const std = s.replace(/-/g, "+").replace(/_/g, "/");
  try {
    return new Uint8Array(Buffer.from(std, "base64"));
  } catch {
    return undefined;
  }
}

function decodeScalar(d: Decoder, node: JsonNode, spec: ProtoFieldSpec): ProtoScalar | undefined {
  switch (spec.kind) {
    case "string":
      if (node.kind !== "string") throw d.invalid(node, "string");
      return node.value;
    case "int64":
      return decodeInteger(d, node, "int64", INT64_MIN, INT64_MAX);
    case "uint64":
    case "uint64Value":
      return decodeInteger(d, node, "uint64", 0n, UINT64_MAX);
    case "int32":
      return Number(decodeInteger(d, node, "int32", INT32_MIN, INT32_MAX));
    case "bytes": {
      const bytes = node.kind === "string" ? decodeBase64(node.value) : undefined;
      if (!bytes) throw d.invalid(node, "bytes");
      return bytes;
    }
    case "enum": {
      if (node.kind === "string") {
        const v = spec.enumValues?.[node.value];
        return v; // unknown names are discarded (DiscardUnknown): the field stays unset
      }
      if (node.kind === "number") {
        const v = integerOfNumberLiteral(node.raw);
        if (v !== undefined && v >= INT32_MIN && v <= INT32_MAX) return Number(v);
      }
      throw d.invalid(node, "enum");
    }
  }
}

/**
 * Decodes `node` as a message with the given fields. Throws BodyDecodeError (InvalidArgument)
 * with a protojson-like message for a wrong JSON type, an out-of-range integer, or a field given twice.
 */
export function decodeProtoJsonMessage(
  node: JsonNode,
  fields: readonly ProtoFieldSpec[],
  source?: JsonSource,
): ProtoValues {
  const d = new Decoder(source);
  if (node.kind !== "object") throw d.syntaxError(node.start, `unexpected token ${d.rawOf(node)}`);
  const byKey = new Map<string, ProtoFieldSpec>();
  for (const f of fields) {
    for (const alias of f.aliases ?? []) byKey.set(alias, f);
    byKey.set(f.name, f);
    byKey.set(f.jsonName, f);
  }
  const seen = new Set<string>();
  const out: ProtoValues = {};
  for (const entry of (node as JsonObjectNode).entries) {
    const spec = byKey.get(entry.key);
    if (!spec) continue; // unknown field: discarded
    if (seen.has(spec.name)) throw d.error(entry.keyStart, `duplicate field ${entry.keyRaw}`);
    seen.add(spec.name);
    const value = entry.value;
    if (value.kind === "null") continue;
    if (spec.repeated) {
      if (value.kind !== "array") throw d.syntaxError(value.start, `unexpected token ${d.rawOf(value)}`);
      const list: ProtoScalar[] = [];
      for (const item of value.items) {
        const v = decodeScalar(d, item, spec);
        if (v !== undefined) list.push(v);
      }
      out[spec.name] = list;
    } else {
      const v = decodeScalar(d, value, spec);
      if (v !== undefined) out[spec.name] = v;
    }
  }
  return out;
}
