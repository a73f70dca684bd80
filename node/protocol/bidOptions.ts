/**
 * v1.2 bid options (`bidderapi.v1.BidOptions`, upstream-head-delta §1.2): their proto-JSON form in the bidder API and
 * their binary protobuf form, which is what the p2p `Bid.bid_options` carries and what the bid digest hashes.
 *
 *   BidOptions         { repeated BidOption options = 1; }
 *   BidOption          { oneof opt { PositionConstraint position_constraint = 1; } }
 *   PositionConstraint { Anchor anchor = 1; Basis basis = 2; int32 value = 3; }
 *
 * The v1.2.x release line has no other option (the shutterised option came later); an option of an unknown kind is
 * dropped when decoding, as upstream's provider does. Encoding follows proto3: zero scalars are left out, a set
 * option is written even when all its fields are zero, and no options at all encode to zero bytes.
 */
import { MevCommitError } from "../../lib/errors.ts";
import { BodyDecodeError } from "./grpcCodes.ts";
import type { JsonNode } from "./jsonText.ts";

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

export interface BidOption {
  readonly positionConstraint: PositionConstraint;
}

export interface BidOptions {
  readonly options: readonly BidOption[];
}

export class BidOptionsDecodeError extends MevCommitError {}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

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
  for (const opt of o.options) {
    const pc: number[] = [];
    varintField(1, opt.positionConstraint.anchor, pc);
    varintField(2, opt.positionConstraint.basis, pc);
    varintField(3, opt.positionConstraint.value, pc);
    const option: number[] = [];
    lengthDelimited(1, pc, option);
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

/** Decodes the binary form; an option of an unknown kind is dropped. Throws BidOptionsDecodeError. */
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
    if (pc) options.push({ positionConstraint: pc });
    return true;
  });
  return { options };
}

// ---- proto-JSON ----------------------------------------------------------------------------------------------------

/** grpc-gateway's rendering (enum names, unpopulated fields emitted). */
export function bidOptionsToJson(o: BidOptions): { options: { positionConstraint: Record<string, unknown> }[] } {
  return {
    options: o.options.map(({ positionConstraint: pc }) => ({
      positionConstraint: {
        anchor: ANCHORS[pc.anchor] ?? pc.anchor,
        basis: BASES[pc.basis] ?? pc.basis,
        value: pc.value,
      },
    })),
  };
}

function fail(node: JsonNode, what: string): never {
  throw new BodyDecodeError(`proto: (line 1:${node.start + 1}): invalid value for ${what}`, {
    context: { offset: node.start },
  });
}

function entriesOf(node: JsonNode, what: string): Map<string, JsonNode> {
  if (node.kind !== "object") fail(node, what);
  const out = new Map<string, JsonNode>();
  for (const e of node.entries) out.set(e.key, e.value);
  return out;
}

function member(m: Map<string, JsonNode>, jsonName: string, protoName: string): JsonNode | undefined {
  const v = m.get(jsonName) ?? m.get(protoName);
  return v === undefined || v.kind === "null" ? undefined : v;
}

function enumOf(node: JsonNode | undefined, names: readonly string[], what: string): number {
  if (node === undefined) return 0;
  if (node.kind === "string") {
    const i = names.indexOf(node.value);
    if (i < 0) fail(node, `enum ${what}: ${JSON.stringify(node.value)}`);
    return i;
  }
  if (node.kind === "number" && /^-?\d+$/.test(node.raw)) {
    const n = Number(node.raw);
    if (n >= INT32_MIN && n <= INT32_MAX) return n;
  }
  return fail(node, `enum ${what}`);
}

function int32Of(node: JsonNode | undefined, what: string): number {
  if (node === undefined) return 0;
  const raw = node.kind === "number" ? node.raw : node.kind === "string" ? node.value : undefined;
  if (raw === undefined || !/^-?\d+$/.test(raw)) return fail(node, `int32 field ${what}`);
  const n = Number(raw);
  if (n < INT32_MIN || n > INT32_MAX) return fail(node, `int32 field ${what}`);
  return n;
}

/** Decodes the proto-JSON of a BidOptions (camelCase or proto names). Throws BodyDecodeError. */
export function bidOptionsFromJson(node: JsonNode): BidOptions {
  const top = entriesOf(node, "bidderapi.v1.BidOptions");
  const list = member(top, "options", "options");
  if (list === undefined) return { options: [] };
  if (list.kind !== "array") fail(list, "bidderapi.v1.BidOptions.options");
  const options: BidOption[] = [];
  for (const item of list.items) {
    const opt = entriesOf(item, "bidderapi.v1.BidOption");
    const pcNode = member(opt, "positionConstraint", "position_constraint");
    if (pcNode === undefined) continue; // no option set: nothing to carry
    const pc = entriesOf(pcNode, "bidderapi.v1.PositionConstraint");
    options.push({
      positionConstraint: {
        anchor: enumOf(member(pc, "anchor", "anchor"), ANCHORS, "bidderapi.v1.PositionConstraint.Anchor"),
        basis: enumOf(member(pc, "basis", "basis"), BASES, "bidderapi.v1.PositionConstraint.Basis"),
        value: int32Of(member(pc, "value", "value"), "bidderapi.v1.PositionConstraint.value"),
      },
    });
  }
  return { options };
}
