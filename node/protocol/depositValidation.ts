/**
 * Deposit routes (api-behaviour §1.3, §1.9, §1.10, §0.3): the `{amount}` path parameter, the
 * `window_number` / `block_number` query parameters (UInt64Value wrappers), and the
 * WithdrawFromWindows body. Pure functions over already-split inputs; every error is
 * InvalidArgument with upstream's text.
 */

import { decimalAtMost, describeDecimal, UINT256_MAX } from "./decimal.ts";
import { BodyDecodeError, InvalidArgumentError } from "./grpcCodes.ts";
import { type JsonNode, JsonSyntaxError, nodeFromPlain, readFirstJsonValue } from "./jsonText.ts";
import { decodeProtoJsonMessage, type ProtoFieldSpec } from "./protoJson.ts";
import { type Violation, validationErrorText } from "./protoValidation.ts";
import { parseQueryField, type QueryFieldSpec, type QueryValues } from "./queryParams.ts";

export const WINDOW_NUMBER_QUERY: QueryFieldSpec = {
  name: "window_number",
  jsonName: "windowNumber",
  kind: "uint64Value",
};
export const BLOCK_NUMBER_QUERY: QueryFieldSpec = {
  name: "block_number",
  jsonName: "blockNumber",
  kind: "uint64Value",
};

/** A validated Deposit / AutoDeposit request. */
export interface DepositRequest {
  /** Wei, > 0. */
  readonly amount: bigint;
  /** Explicit target window, if given (> 0). */
  readonly windowNumber?: bigint;
  /** Block whose window is targeted, if given (> 0). */
  readonly blockNumber?: bigint;
}

const AMOUNT_RE = /^[1-9][0-9]*$/;

function depositViolations(
  amount: string,
  windowNumber: bigint | undefined,
  blockNumber: bigint | undefined,
): Violation[] {
  const v: Violation[] = [];
  if (!AMOUNT_RE.test(amount))
    v.push({ fieldPath: "amount", message: "amount must be a valid integer.", constraintId: "amount" });
  if (windowNumber !== undefined && windowNumber <= 0n) {
    v.push({
      fieldPath: "window_number",
      message: "window_number must be a positive integer if specified.",
      constraintId: "window_number",
    });
  }
  if (blockNumber !== undefined && blockNumber <= 0n) {
    v.push({
      fieldPath: "block_number",
      message: "block_number must be a positive integer if specified.",
      constraintId: "block_number",
    });
  }
  return v;
}

/** The fields of a DepositRequest as either transport decoded them (the amount still as text). */
export interface DepositRequestFields {
  readonly amount: string;
  readonly windowNumber?: bigint;
  readonly blockNumber?: bigint;
}

const DEPOSIT_PREFIX = {
  deposit: "validating deposit request",
  autoDeposit: "validating auto deposit request",
} as const;

/** Deposit / AutoDeposit validation (protovalidate of bidderapi DepositRequest), whatever the transport. */
export function validateDepositRequest(kind: keyof typeof DEPOSIT_PREFIX, f: DepositRequestFields): DepositRequest {
  const violations = depositViolations(f.amount, f.windowNumber, f.blockNumber);
  const prefix = DEPOSIT_PREFIX[kind];
  if (violations.length) throw new InvalidArgumentError(`${prefix}: ${validationErrorText(violations)}`);
  // Ours: the contract takes msg.value as uint256 (upstream fails later with an Internal error from the chain).
  const amount = decimalAtMost(f.amount, UINT256_MAX);
  if (amount === undefined)
    throw new InvalidArgumentError(
      `${prefix}: amount must fit in a uint256 (at most 2^256-1 wei), got ${describeDecimal(f.amount)}`,
    );
  return {
    amount,
    ...(f.windowNumber !== undefined ? { windowNumber: f.windowNumber } : {}),
    ...(f.blockNumber !== undefined ? { blockNumber: f.blockNumber } : {}),
  };
}

function parseDepositLike(
  kind: keyof typeof DEPOSIT_PREFIX,
  amountPathParam: string,
  query: QueryValues,
): DepositRequest {
  // grpc-gateway fills the message from the query before the handler validates it.
  const windowNumber = parseQueryField(query, WINDOW_NUMBER_QUERY) as bigint | undefined;
  const blockNumber = parseQueryField(query, BLOCK_NUMBER_QUERY) as bigint | undefined;
  return validateDepositRequest(kind, { amount: amountPathParam, windowNumber, blockNumber });
}

/** POST /v1/bidder/deposit/{amount}: `validating deposit request: …`. */
export function parseDepositRequest(amountPathParam: string, query: QueryValues = {}): DepositRequest {
  return parseDepositLike("deposit", amountPathParam, query);
}

/** POST /v1/bidder/auto_deposit/{amount}: `validating auto deposit request: …`. */
export function parseAutoDepositRequest(amountPathParam: string, query: QueryValues = {}): DepositRequest {
  return parseDepositLike("autoDeposit", amountPathParam, query);
}

export const WITHDRAW_FROM_WINDOWS_FIELDS: readonly ProtoFieldSpec[] = [
  { name: "window_numbers", jsonName: "windowNumbers", kind: "uint64Value", repeated: true },
];

/** WithdrawFromWindows validation: at least one window, each > 0. */
export function validateWindowNumbers(windows: bigint[]): bigint[] {
  if (windows.length === 0 || windows.some((w) => w <= 0n)) {
    throw new InvalidArgumentError(
      `validating withdraw from n windows request: ${validationErrorText([
        {
          fieldPath: "window_numbers",
          message: "window_numbers must be a valid array of positive integers.",
          constraintId: "window_numbers",
        },
      ])}`,
    );
  }
  return windows;
}

function windowsOf(node: JsonNode | undefined, text?: string): bigint[] {
  if (!node) return [];
  const v = decodeProtoJsonMessage(
    node,
    WITHDRAW_FROM_WINDOWS_FIELDS,
    text === undefined ? undefined : { text, base: node.start },
  );
  return (v.window_numbers as bigint[] | undefined) ?? [];
}

/** POST /v1/bidder/withdraw_from_windows with an already-parsed body: the windows (each > 0, at least one). */
export function parseWithdrawFromWindowsRequest(body: unknown): bigint[] {
  return validateWindowNumbers(windowsOf(body === undefined ? undefined : nodeFromPlain(body)));
}

/** The windows of a WithdrawFromWindows body text, decoded but not validated (exact uint64s, positions in errors). */
export function decodeWithdrawFromWindowsText(text: string): bigint[] {
  let node: JsonNode | undefined;
  try {
    node = readFirstJsonValue(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new BodyDecodeError(err.message, { context: { offset: err.offset } });
    throw err;
  }
  return windowsOf(node, text);
}

/** The same, validated. */
export function parseWithdrawFromWindowsRequestText(text: string): bigint[] {
  return validateWindowNumbers(decodeWithdrawFromWindowsText(text));
}

/** Withdraw validation: the window, when given, is > 0. */
export function validateWithdrawRequest(windowNumber: bigint | undefined): bigint | undefined {
  if (windowNumber !== undefined && windowNumber <= 0n)
    throw new InvalidArgumentError(
      `validating withdraw request: ${validationErrorText([
        {
          fieldPath: "window_number",
          message: "window_number must be a positive integer if specified.",
          constraintId: "window_number",
        },
      ])}`,
    );
  return windowNumber;
}
