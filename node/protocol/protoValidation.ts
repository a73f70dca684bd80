/**
 * protovalidate-go v0.6 error texts (api-behaviour §0.7): a ValidationError lists every violation
 * in field declaration order; a CEL evaluation error aborts validation and replaces them.
 */

import { MevCommitError } from "../../lib/errors.ts";
import { decimalAtMost, UINT64_MAX } from "./decimal.ts";

export interface Violation {
  /** Proto field name, e.g. `block_number`. */
  readonly fieldPath: string;
  readonly message: string;
  /** Constraint id, e.g. `block_number` or `enum.in`. */
  readonly constraintId: string;
}

/** `validation error:` followed by one `\n - <field>: <message> [<id>]` per violation. */
export function validationErrorText(violations: readonly Violation[]): string {
  return `validation error:${violations.map((v) => `\n - ${v.fieldPath}: ${v.message} [${v.constraintId}]`).join("")}`;
}

/** `runtime error: error evaluating <id>: <cause>`. */
export function runtimeErrorText(constraintId: string, cause: string): string {
  return `runtime error: error evaluating ${constraintId}: ${cause}`;
}

/** CEL causes (cel-go v0.20). */
export const CEL_UINT_OVERFLOW = "unsigned integer overflow";
export const CEL_STRING_TO_UINT = "type conversion error from 'string' to 'uint'";

/** Thrown inside a validator to abort with a CEL runtime error. */
export class CelRuntimeError extends MevCommitError {
  constructor(
    readonly constraintId: string,
    readonly cause_: string,
  ) {
    super(runtimeErrorText(constraintId, cause_), { context: { constraintId } });
  }
}

/**
 * Runs per-field checks in declaration order and returns the protovalidate text, or undefined when
 * everything passes. Each check returns a violation or undefined, or throws CelRuntimeError.
 */
export function runValidation(checks: ReadonlyArray<() => Violation | Violation[] | undefined>): string | undefined {
  const violations: Violation[] = [];
  try {
    for (const check of checks) {
      const v = check();
      if (Array.isArray(v)) violations.push(...v);
      else if (v) violations.push(v);
    }
  } catch (err) {
    if (err instanceof CelRuntimeError) return err.message;
    throw err;
  }
  return violations.length ? validationErrorText(violations) : undefined;
}

/** CEL `uint(x)` for an int64: negative values overflow. */
export function celUintOfInt(constraintId: string, value: bigint): bigint {
  if (value < 0n) throw new CelRuntimeError(constraintId, CEL_UINT_OVERFLOW);
  return value;
}

/** CEL `uint('digits')`: Go strconv.ParseUint base 10; above 2^64-1 is a conversion error. */
export function celUintOfString(constraintId: string, value: string): bigint {
  const v = /^[0-9]+$/.test(value) ? decimalAtMost(value, UINT64_MAX) : undefined;
  if (v === undefined) throw new CelRuntimeError(constraintId, CEL_STRING_TO_UINT);
  return v;
}
