/**
 * v1.2 bid options (`bidderapi.v1.BidOptions`, upstream-head-delta §1.2): their proto-JSON form in the bidder API and
 * their binary protobuf form, which is what the p2p `Bid.bid_options` carries and what the bid digest hashes.
 *
 *   BidOptions         { repeated BidOption options = 1; }
 *   BidOption          { oneof opt { PositionConstraint position_constraint = 1; } }
 *   PositionConstraint { Anchor anchor = 1; Basis basis = 2; int32 value = 3; }
 *
 * The v1.2.x release line has no other option (the shutterised option came later). A BidOption with no option set
 * (`{}`, or a kind this version does not know) is kept as an empty option, as protobuf keeps it: it encodes to
 * `0a00` and enters the digest; a provider drops it (knownOptions), as upstream's provider copies only the options it
 * knows. Encoding follows proto3: zero scalars are left out, a set option is written even when all its fields are
 * zero, and no options at all encode to zero bytes.
 *
 * The proto-JSON form is read as grpc-gateway's protojson reads it (DiscardUnknown): both spellings of a name, null =
 * unset, an unknown enum name discarded (the field stays 0), and protojson's error texts and positions. upstream
 * v1.2.5's only buf.validate rule here (`BidOptions.options`: every item non-null) holds for any decoded message, and
 * PositionConstraint has no rule, so a bad bidOptions is always one of these decode errors.
 */
import { MevCommitError } from "../../lib/errors.ts";
import type { JsonNode } from "./jsonText.ts";
import { Decoder, decodeProtoJsonMessage, type JsonSource, type ProtoFieldSpec } from "./protoJson.ts";

export const ANCHORS = ["ANCHOR_UNSPECIFIED", "ANCHOR_TOP", "ANCHOR_BOTTOM"] as const;
export const BASES = ["BASIS_UNSPECIFIED", "BASIS_PERCENTILE", "BASIS_ABSOLUTE", "BASIS_GAS_PERCENTILE"] as const;

export interface PositionConstraint {
  /** Enum number (ANCHORS); an unknown number is kept, as proto3 keeps open enums. */
  readonly anchor: number;
  /** Enum number (BASES). */
  readonly basis: number;
  /** int32. */
  readonly value: number;
}

/** One option: a position constraint, or none set (an empty BidOption, or a kind this version does not know). */
export interface BidOption {
  readonly positionConstraint?: PositionConstraint;
}

export interface BidOptions {
  readonly options: readonly BidOption[];
}

export class BidOptionsDecodeError extends MevCommitError {}

// ---- binary --------------------------------------------------------------------------------------------------------

function varint(value: bigint, out: number[]): void {
  let v = BigInt.asUintN(64, value);
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
}

function lengthDelimited(field: number, body: number[], out: number[]): void {
  varint(BigInt((field << 3) | 2), out);
  varint(BigInt(body.length), out);
  out.push(...body);
}

function varintField(field: number, value: number, out: number[]): void {
  if (value === 0) return;
  varint(BigInt(field << 3), out);
  varint(BigInt(value), out); // an int32 below zero is sign-extended to 10 bytes, as protobuf does
}

/** The binary protobuf encoding (the bytes of the wire and of the digest). */
export function encodeBidOptions(o: BidOptions): Uint8Array {
  const out: number[] = [];
  for (const { positionConstraint } of o.options) {
    const option: number[] = [];
    if (positionConstraint) {
      const pc: number[] = [];
      varintField(1, positionConstraint.anchor, pc);
      varintField(2, positionConstraint.basis, pc);
      varintField(3, positionConstraint.value, pc);
      lengthDelimited(1, pc, option);
    }
    lengthDelimited(1, option, out);
  }
  return Uint8Array.from(out);
}

class Reader {
  pos = 0;
  constructor(private readonly b: Uint8Array) {}

  get done(): boolean {
    return this.pos >= this.b.length;
  }

  varint(): bigint {
    let v = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.b.length) throw new BidOptionsDecodeError("truncated varint");
      const byte = this.b[this.pos++]!;
      v |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return BigInt.asUintN(64, v);
    }
    throw new BidOptionsDecodeError("varint too long");
  }

  bytes(): Uint8Array {
    const n = Number(this.varint());
    if (this.pos + n > this.b.length) throw new BidOptionsDecodeError("truncated field");
    const out = this.b.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 2) this.bytes();
    else if (wireType === 1 || wireType === 5) {
      this.pos += wireType === 1 ? 8 : 4;
      if (this.pos > this.b.length) throw new BidOptionsDecodeError("truncated field");
    } else throw new BidOptionsDecodeError(`unsupported wire type ${wireType}`);
  }

  /** Calls `field` for each (number, wire type); the callback reads the value or returns false to skip it. */
  fields(field: (num: number, wireType: number) => boolean): void {
    while (!this.done) {
      const tag = Number(this.varint());
      const num = tag >>> 3;
      const wireType = tag & 7;
      if (num === 0) throw new BidOptionsDecodeError("invalid field number 0");
      if (!field(num, wireType)) this.skip(wireType);
    }
  }
}

function decodePositionConstraint(b: Uint8Array): PositionConstraint {
  let anchor = 0;
  let basis = 0;
  let value = 0;
  const r = new Reader(b);
  r.fields((num, wt) => {
    if (wt !== 0 || num > 3) return false;
    const v = Number(BigInt.asIntN(32, r.varint()));
    if (num === 1) anchor = v;
    else if (num === 2) basis = v;
    else value = v;
    return true;
  });
  return { anchor, basis, value };
}

/** Decodes the binary form; an option of an unknown kind is an empty option. Throws BidOptionsDecodeError. */
export function decodeBidOptions(bytes: Uint8Array): BidOptions {
  const options: BidOption[] = [];
  const r = new Reader(bytes);
  r.fields((num, wt) => {
    if (num !== 1 || wt !== 2) return false;
    let pc: PositionConstraint | undefined;
    const o = new Reader(r.bytes());
    o.fields((n, w) => {
      if (n !== 1 || w !== 2) return false;
      pc = decodePositionConstraint(o.bytes());
      return true;
    });
    options.push(pc ? { positionConstraint: pc } : {});
    return true;
  });
  return { options };
}

/** The options a provider shows its application: those of a kind it knows (upstream's provider copies only those). */
export function knownOptions(o: BidOptions): BidOptions {
  return { options: o.options.filter((opt) => opt.positionConstraint !== undefined) };
}

// ---- proto-JSON ----------------------------------------------------------------------------------------------------

/** grpc-gateway's rendering (enum names, unpopulated fields emitted; an empty option is `{}`). */
export function bidOptionsToJson(o: BidOptions): { options: { positionConstraint?: Record<string, unknown> }[] } {
  return {
    options: o.options.map(({ positionConstraint: pc }) =>
      pc
        ? {
            positionConstraint: {
              anchor: ANCHORS[pc.anchor] ?? pc.anchor,
              basis: BASES[pc.basis] ?? pc.basis,
              value: pc.value,
            },
          }
        : {},
    ),
  };
}

const enumValues = (names: readonly string[]) => Object.fromEntries(names.map((n, i) => [n, i]));

const POSITION_CONSTRAINT_FIELDS: readonly ProtoFieldSpec[] = [
  { name: "anchor", jsonName: "anchor", kind: "enum", enumValues: enumValues(ANCHORS) },
  { name: "basis", jsonName: "basis", kind: "enum", enumValues: enumValues(BASES) },
  { name: "value", jsonName: "value", kind: "int32" },
];

/**
 * The one message-typed field of a message object: its value node, or undefined when absent or null. Any other key
 * is discarded; both spellings of the field is protojson's "duplicate field"; a value that is not `kind` is its
 * "unexpected token".
 */
function messageField(
  d: Decoder,
  node: JsonNode,
  names: readonly [json: string, proto: string],
  kind: "object" | "array",
): JsonNode | undefined {
  if (node.kind !== "object") throw d.syntaxError(node.start, `unexpected token ${d.rawOf(node)}`);
  let found: JsonNode | undefined;
  let seen = false;
  for (const e of node.entries) {
    if (!names.includes(e.key)) continue;
    if (seen) throw d.error(e.keyStart, `duplicate field ${e.keyRaw}`);
    seen = true;
    if (e.value.kind === "null") continue;
    if (e.value.kind !== kind) throw d.syntaxError(e.value.start, `unexpected token ${d.rawOf(e.value)}`);
    found = e.value;
  }
  return found;
}

/**
 * Decodes the proto-JSON of a BidOptions (camelCase or proto names) as grpc-gateway does. `source` gives error
 * positions (the request body's text). Throws BodyDecodeError (InvalidArgument) with protojson's text.
 */
export function bidOptionsFromJson(node: JsonNode, source?: JsonSource): BidOptions {
  const d = new Decoder(source);
  const list = messageField(d, node, ["options", "options"], "array");
  if (list === undefined || list.kind !== "array") return { options: [] };
  const options: BidOption[] = [];
  for (const item of list.items) {
    const pcNode = messageField(d, item, ["positionConstraint", "position_constraint"], "object");
    if (pcNode === undefined) {
      options.push({});
      continue;
    }
    const pc = decodeProtoJsonMessage(pcNode, POSITION_CONSTRAINT_FIELDS, source);
    options.push({
      positionConstraint: {
        anchor: (pc.anchor as number | undefined) ?? 0,
        basis: (pc.basis as number | undefined) ?? 0,
        value: (pc.value as number | undefined) ?? 0,
      },
    });
  }
  return { options };
}
