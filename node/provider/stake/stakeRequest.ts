/**
 * POST /v1/provider/stake/{amount} (api-behaviour §7; upstream providerapi `StakeRequest`): the amount from the
 * path, BLS public keys and their signatures from the repeated query parameters `bls_public_keys` /
 * `blsPublicKeys` and `bls_signatures` / `blsSignatures`. Pure; every error is InvalidArgument with upstream's
 * protovalidate text under `validate stake request: `.
 */

import { decimalAtMost, describeDecimal, UINT256_MAX } from "../../protocol/decimal.ts";
import { InvalidArgumentError } from "../../protocol/grpcCodes.ts";
import { runValidation } from "../../protocol/protoValidation.ts";
import { type QueryFieldSpec, type QueryValues, queryValuesFor } from "../../protocol/queryParams.ts";

export const BLS_PUBLIC_KEYS_QUERY: QueryFieldSpec = {
  name: "bls_public_keys",
  jsonName: "blsPublicKeys",
  kind: "string",
};
export const BLS_SIGNATURES_QUERY: QueryFieldSpec = {
  name: "bls_signatures",
  jsonName: "blsSignatures",
  kind: "string",
};

const AMOUNT_RE = /^[1-9][0-9]*$/;
/** A BLS public key and signature as the request may give them (the OpenAPI document's patterns too). */
export const BLS_KEY_PATTERN = "^(0x)?[a-fA-F0-9]{96}$";
export const BLS_SIGNATURE_PATTERN = "^(0x)?[a-fA-F0-9]{192}$";
const BLS_KEY_RE = new RegExp(BLS_KEY_PATTERN);
const BLS_SIGNATURE_RE = new RegExp(BLS_SIGNATURE_PATTERN);

export interface StakeRequest {
  /** Wei, > 0. */
  readonly amount: bigint;
  /** 48-byte keys, hex with 0x. */
  readonly blsPublicKeys: readonly `0x${string}`[];
  /** 96-byte signatures, hex with 0x, one per key (extra ones are ignored, as upstream). */
  readonly blsSignatures: readonly `0x${string}`[];
}

const prefixed = (h: string): `0x${string}` => `0x${(h.startsWith("0x") ? h.slice(2) : h).toLowerCase()}`;

/** The fields of providerapi StakeRequest as either transport decoded them. */
export interface StakeRequestFields {
  readonly amount: string;
  readonly blsPublicKeys: readonly string[];
  readonly blsSignatures: readonly string[];
}

/** protovalidate of StakeRequest, whatever the transport. */
export function validateStakeRequest(f: StakeRequestFields): StakeRequest {
  const { amount, blsPublicKeys: keys, blsSignatures: signatures } = f;
  const failure = runValidation([
    () =>
      AMOUNT_RE.test(amount)
        ? undefined
        : { fieldPath: "amount", message: "amount must be a valid integer.", constraintId: "amount" },
    () =>
      keys.every((k) => BLS_KEY_RE.test(k))
        ? undefined
        : {
            fieldPath: "bls_public_keys",
            message: "bls_public_key must be a valid 48-byte hex string, with optional 0x prefix.",
            constraintId: "bls_public_key",
          },
    () =>
      signatures.every((s) => BLS_SIGNATURE_RE.test(s))
        ? undefined
        : {
            fieldPath: "bls_signatures",
            message: "bls_signatures must be a valid 96-byte hex string, with optional 0x prefix.",
            constraintId: "bls_signatures",
          },
  ]);
  if (failure) throw new InvalidArgumentError(`validate stake request: ${failure}`);
  // Ours: msg.value is a uint256 (upstream fails later with an Internal error from the chain).
  const wei = decimalAtMost(amount, UINT256_MAX);
  if (wei === undefined)
    throw new InvalidArgumentError(
      `validate stake request: amount must fit in a uint256 (at most 2^256-1 wei), got ${describeDecimal(amount)}`,
    );
  return { amount: wei, blsPublicKeys: keys.map(prefixed), blsSignatures: signatures.map(prefixed) };
}

/** The path amount and the BLS query parameters (repeated keys, proto or JSON names). */
export function stakeRequestFieldsOf(amountPathParam: string, query: QueryValues = {}): StakeRequestFields {
  return {
    amount: amountPathParam,
    blsPublicKeys: [...(queryValuesFor(query, BLS_PUBLIC_KEYS_QUERY) ?? [])],
    blsSignatures: [...(queryValuesFor(query, BLS_SIGNATURES_QUERY) ?? [])],
  };
}

/** Validates the path amount and the BLS query parameters. */
export function parseStakeRequest(amountPathParam: string, query: QueryValues = {}): StakeRequest {
  return validateStakeRequest(stakeRequestFieldsOf(amountPathParam, query));
}
