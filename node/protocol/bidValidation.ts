/**
 * SendBid input: decoding the JSON body (api-behaviour §0.2) and the checks of §1.1, in upstream's
 * order and with its messages, producing a normalised Bid.
 *
 *   1. protovalidate on the bidderapi `Bid` → `validating bid: validation error:\n - <field>: …`
 *      (all violations, declaration order) or `validating bid: runtime error: …` (replaces them)
 *   2. `empty bid`   3. `both txHashes and rawTransactions are provided`
 *   4. `decoding raw transaction: <Go hex error>`   5. `unmarshaling raw transaction: <geth error>`
 *
 * All of these are InvalidArgument (gRPC 3, HTTP 400). A body that is not valid JSON or has a
 * wrong JSON type throws BodyDecodeError (also InvalidArgument) with a protojson-like message.
 *
 * Normalisation (ours): hashes lose `0x` and are lower-cased. Upstream keeps their case in the
 * digest string, but the oracle compares lower-case hashes, so a mixed-case bid could never be
 * rewarded (docs/protocol.md).
 */

import { bidOptionsFromJson, encodeBidOptions } from "./bidOptions.ts";
import { decimalAtMost, describeDecimal, UINT256_MAX } from "./decimal.ts";
import { BodyDecodeError, InvalidArgumentError } from "./grpcCodes.ts";
import { type JsonNode, JsonSyntaxError, nodeFromPlain, readFirstJsonValue } from "./jsonText.ts";
import {
  Decoder,
  decodeProtoJsonMessage,
  type JsonSource,
  type ProtoFieldSpec,
  type ProtoValues,
} from "./protoJson.ts";
import { celUintOfInt, celUintOfString, runValidation, type Violation } from "./protoValidation.ts";
import {
  decodeRawTransactionHex,
  RawTransactionDecodeError,
  RawTransactionHexError,
  transactionHashOf,
} from "./rawTransaction.ts";
import type { ProtocolRules } from "./rules.ts";
import type { Bid } from "./types.ts";

/** bidderapi.v1.Bid at 5f1068d1, in declaration order. */
export const BID_REQUEST_FIELDS: readonly ProtoFieldSpec[] = [
  { name: "tx_hashes", jsonName: "txHashes", kind: "string", repeated: true },
  { name: "amount", jsonName: "amount", kind: "string" },
  { name: "block_number", jsonName: "blockNumber", kind: "int64" },
  { name: "decay_start_timestamp", jsonName: "decayStartTimestamp", kind: "int64" },
  { name: "decay_end_timestamp", jsonName: "decayEndTimestamp", kind: "int64" },
  { name: "reverting_tx_hashes", jsonName: "revertingTxHashes", kind: "string", repeated: true },
  { name: "raw_transactions", jsonName: "rawTransactions", kind: "string", repeated: true },
  { name: "slash_amount", jsonName: "slashAmount", kind: "string" },
];

/** The decoded request before validation (proto3 defaults filled in). */
export interface BidRequest {
  readonly txHashes: readonly string[];
  readonly amount: string;
  readonly blockNumber: bigint;
  readonly decayStartTimestamp: bigint;
  readonly decayEndTimestamp: bigint;
  readonly revertingTxHashes: readonly string[];
  readonly rawTransactions: readonly string[];
  readonly slashAmount: string;
  /** v1.2 (field 9 `bid_options`): the options' binary encoding, present when the request set the field. */
  readonly bidOptions?: Uint8Array;
}

const TX_HASH_RE = /^(0x)?[a-fA-F0-9]{64}$/;
const RAW_TX_RE = /^(0x)?[a-fA-F0-9]*$/;
const AMOUNT_RE = /^[1-9][0-9]*$/;
const DIGITS_RE = /^[0-9]+$/;

function toBidRequest(v: ProtoValues): BidRequest {
  return {
    txHashes: (v.tx_hashes as string[] | undefined) ?? [],
    amount: (v.amount as string | undefined) ?? "",
    blockNumber: (v.block_number as bigint | undefined) ?? 0n,
    decayStartTimestamp: (v.decay_start_timestamp as bigint | undefined) ?? 0n,
    decayEndTimestamp: (v.decay_end_timestamp as bigint | undefined) ?? 0n,
    revertingTxHashes: (v.reverting_tx_hashes as string[] | undefined) ?? [],
    rawTransactions: (v.raw_transactions as string[] | undefined) ?? [],
    slashAmount: (v.slash_amount as string | undefined) ?? "",
  };
}

/** Decodes an already-parsed JSON body (numbers beyond 2^53 have lost precision by then). */
export function decodeBidRequest(body: unknown, rules: ProtocolRules): BidRequest {
  if (body === undefined) return toBidRequest({});
  return decodeBidRequestNode(nodeFromPlain(body), undefined, rules);
}

/**
 * Decodes a request body. v1.1 has no `bidOptions` (an unknown field, discarded as grpc-gateway does); v1.2 reads
 * it (also `bid_options`) as the proto-JSON of BidOptions and keeps its binary encoding.
 */
export function decodeBidRequestNode(node: JsonNode, source: JsonSource | undefined, rules: ProtocolRules): BidRequest {
  const req = toBidRequest(decodeProtoJsonMessage(node, BID_REQUEST_FIELDS, source));
  if (!rules.bidOptions || node.kind !== "object") return req;
  const options = node.entries.filter((e) => e.key === "bidOptions" || e.key === "bid_options");
  if (options.length > 1)
    throw new Decoder(source).error(options[1]!.keyStart, `duplicate field ${options[1]!.keyRaw}`);
  const value = options[0]?.value;
  if (value === undefined || value.kind === "null") return req;
  return { ...req, bidOptions: encodeBidOptions(bidOptionsFromJson(value, source)) };
}

/**
 * Decodes the raw body text the way grpc-gateway does: only the first JSON value is read, an empty
 * body means all defaults, syntax errors use encoding/json's wording.
 */
export function decodeBidRequestText(text: string, rules: ProtocolRules): BidRequest {
  let node: JsonNode | undefined;
  try {
    node = readFirstJsonValue(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new BodyDecodeError(err.message, { context: { offset: err.offset } });
    throw err;
  }
  if (!node) return toBidRequest({});
  return decodeBidRequestNode(node, { text, base: node.start }, rules);
}

function each(field: string, message: string, list: readonly string[], re: RegExp): () => Violation | undefined {
  return () => (list.every((s) => re.test(s)) ? undefined : { fieldPath: field, message, constraintId: field });
}

function positive(field: string, value: bigint): () => Violation | undefined {
  return () =>
    celUintOfInt(field, value) > 0n
      ? undefined
      : { fieldPath: field, message: `${field} must be a valid integer.`, constraintId: field };
}

/** protovalidate of bidderapi.v1.Bid: the error text, or undefined when valid. */
export function bidRequestViolations(req: BidRequest): string | undefined {
  return runValidation([
    each("tx_hashes", "tx_hashes must be a valid array of transaction hashes.", req.txHashes, TX_HASH_RE),
    () =>
      AMOUNT_RE.test(req.amount)
        ? undefined
        : { fieldPath: "amount", message: "amount must be a valid integer.", constraintId: "amount" },
    positive("block_number", req.blockNumber),
    positive("decay_start_timestamp", req.decayStartTimestamp),
    positive("decay_end_timestamp", req.decayEndTimestamp),
    each(
      "reverting_tx_hashes",
      "reverting_tx_hashes must be an array of valid transaction hashes.",
      req.revertingTxHashes,
      TX_HASH_RE,
    ),
    each(
      "raw_transactions",
      "raw_transactions must be an array of valid raw transactions.",
      req.rawTransactions,
      RAW_TX_RE,
    ),
    () => {
      const s = req.slashAmount;
      if (s === "") return undefined;
      if (DIGITS_RE.test(s)) {
        celUintOfString("slash_amount", s);
        return undefined;
      }
      return {
        fieldPath: "slash_amount",
        message: "slash_amount must be a valid integer.",
        constraintId: "slash_amount",
      };
    },
  ]);
}

/** Strips `0x` and lower-cases a tx hash. */
export function normaliseTxHash(hash: string): string {
  return (hash.startsWith("0x") ? hash.slice(2) : hash).toLowerCase();
}

/**
 * Runs checks 1–5 of §1.1 on a decoded request and returns the normalised bid. Ours, after protovalidate: the amount
 * must fit the contracts' uint256 (upstream wraps it modulo 2^256 in the digest; docs/divergences.md).
 */
export function validateBidRequest(req: BidRequest, rules: ProtocolRules): Bid {
  const violations = bidRequestViolations(req);
  if (violations)
    throw new InvalidArgumentError(`validating bid: ${violations}`, { context: { check: "protovalidate" } });
  const amount = decimalAtMost(req.amount, UINT256_MAX);
  if (amount === undefined) {
    throw new InvalidArgumentError(
      `validating bid: amount must fit in a uint256 (at most 2^256-1 wei), got ${describeDecimal(req.amount)}`,
      {
        context: { check: "amount-bound" },
      },
    );
  }
  if (req.txHashes.length === 0 && req.rawTransactions.length === 0) throw new InvalidArgumentError("empty bid");
  if (req.txHashes.length > 0 && req.rawTransactions.length > 0) {
    throw new InvalidArgumentError("both txHashes and rawTransactions are provided");
  }
  let txHashes: string[];
  if (req.rawTransactions.length > 0) {
    txHashes = req.rawTransactions.map((raw, index) => {
      let bytes: Uint8Array;
      try {
        bytes = decodeRawTransactionHex(raw);
      } catch (err) {
        if (err instanceof RawTransactionHexError) {
          throw new InvalidArgumentError(`decoding raw transaction: ${err.message}`, {
            context: { index },
            cause: err,
          });
        }
        throw err;
      }
      try {
        return transactionHashOf(bytes, raw);
      } catch (err) {
        if (err instanceof RawTransactionDecodeError) {
          throw new InvalidArgumentError(`unmarshaling raw transaction: ${err.message}`, {
            context: { index },
            cause: err,
          });
        }
        throw err;
      }
    });
  } else {
    txHashes = req.txHashes.map(normaliseTxHash);
  }
  return {
    txHashes,
    rawTransactions: [...req.rawTransactions],
    amount,
    blockNumber: req.blockNumber,
    decayStartTimestamp: req.decayStartTimestamp,
    decayEndTimestamp: req.decayEndTimestamp,
    revertingTxHashes: req.revertingTxHashes.map(normaliseTxHash),
    slashAmount: req.slashAmount !== "" ? BigInt(req.slashAmount) : rules.emptySlashAmount === "zero" ? 0n : amount,
    ...(rules.bidOptions ? { bidOptions: req.bidOptions ?? new Uint8Array(0) } : {}),
  };
}

/** Decodes and validates an already-parsed JSON body. Throws InvalidArgumentError / BodyDecodeError. */
export function parseBidRequest(body: unknown, rules: ProtocolRules): Bid {
  return validateBidRequest(decodeBidRequest(body, rules), rules);
}

/** Decodes and validates the raw body text (exact int64s, duplicate keys, positions in errors). */
export function parseBidRequestText(text: string, rules: ProtocolRules): Bid {
  return validateBidRequest(decodeBidRequestText(text, rules), rules);
}
