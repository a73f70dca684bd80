/**
 * Hashing a bidder's raw signed transaction (SendBid with `raw_transactions`): hex-decode after
 * stripping `0x`, decode it as a typed or legacy transaction, and take its hash (lower-case hex,
 * no `0x`). Decoding uses viem; the error texts imitate go-ethereum's `Transaction.UnmarshalBinary`
 * for the common cases and fall back to viem's wording otherwise (docs/protocol.md).
 */
import { type Hex, parseTransaction, serializeTransaction, type TransactionSerializable } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { bytesToHex, hexToBytes, InvalidHexError } from "./bytes.ts";
import { keccak256 } from "./keccak.ts";

/** Go `encoding/hex` failure (after the API's regex this is only ever an odd length). */
export class RawTransactionHexError extends MevCommitError {
  constructor(
    readonly raw: string,
    goMessage: string,
  ) {
    super(goMessage, { context: { raw } });
  }
}

/** The bytes are not a transaction. The message imitates go-ethereum's error. */
export class RawTransactionDecodeError extends MevCommitError {
  constructor(
    readonly raw: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, { ...options, context: { raw } });
  }
}

const TYPED_NAMES: Record<number, string> = { 1: "AccessListTx", 2: "DynamicFeeTx", 3: "BlobTx", 4: "SetCodeTx" };

/** Hex-decodes a raw transaction string (optional lower-case `0x`), Go-style errors. */
export function decodeRawTransactionHex(raw: string): Uint8Array {
  const body = raw.startsWith("0x") ? raw.slice(2) : raw;
  try {
    return hexToBytes(body);
  } catch (err) {
    const reason =
      err instanceof InvalidHexError && body.length % 2 !== 0
        ? "encoding/hex: odd length hex string"
        : "encoding/hex: invalid byte";
    throw new RawTransactionHexError(raw, reason);
  }
}

/** Decodes transaction bytes and returns the transaction hash, lower-case hex without `0x`. */
export function transactionHashOf(bytes: Uint8Array, raw = ""): string {
  const first = bytes[0];
  if (first === undefined || (first <= 0x7f && bytes.length <= 1)) {
    throw new RawTransactionDecodeError(raw, "typed transaction too short");
  }
  const typeName = first > 0x7f ? "LegacyTx" : TYPED_NAMES[first];
  if (!typeName) throw new RawTransactionDecodeError(raw, "transaction type not supported");
  const listByte = first > 0x7f ? first : bytes[1]!;
  if (listByte < 0xc0) throw new RawTransactionDecodeError(raw, `rlp: expected input list for types.${typeName}`);
  const hex = `0x${bytesToHex(bytes)}` as Hex;
  let tx: ReturnType<typeof parseTransaction>;
  try {
    tx = parseTransaction(hex);
  } catch (err) {
    const e = err as { name?: string; shortMessage?: string; message?: string };
    if (e.name === "RlpTrailingBytesError")
      throw new RawTransactionDecodeError(raw, "rlp: input contains more than one value", { cause: err });
    throw new RawTransactionDecodeError(raw, `rlp: ${e.shortMessage ?? e.message ?? String(err)}`, { cause: err });
  }
  if (tx.r === undefined || tx.s === undefined) {
    throw new RawTransactionDecodeError(raw, `rlp: too few elements for types.${typeName}`);
  }
  if (tx.type === "eip4844" && "sidecars" in tx && Array.isArray(tx.sidecars) && tx.sidecars.length > 0) {
    // Network form (with blobs): the hash covers the transaction without its sidecars.
    const { sidecars: _sidecars, r, s, v, yParity, ...rest } = tx as typeof tx & { sidecars: unknown };
    const canonical = serializeTransaction(
      { ...(rest as TransactionSerializable), sidecars: false } as TransactionSerializable,
      {
        r: r!,
        s: s!,
        ...(yParity !== undefined ? { yParity } : { v: v! }),
      },
    );
    return bytesToHex(keccak256(hexToBytes(canonical)));
  }
  return bytesToHex(keccak256(bytes));
}

/** Hash of one raw transaction string as the bidder API receives it. */
export function rawTransactionHash(raw: string): string {
  return transactionHashOf(decodeRawTransactionHex(raw), raw);
}
