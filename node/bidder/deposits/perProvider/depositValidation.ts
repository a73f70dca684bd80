/**
 * Validation of the v1.2 deposit requests (upstream-head-delta §1.3): protovalidate's CEL rules of upstream's v1.2.5
 * bidderapi.proto with their texts, wrapped as InvalidArgument `validating <x> request: <err>`. Pure functions.
 */
import { InvalidArgumentError } from "../../../protocol/grpcCodes.ts";
import { type Violation, validationErrorText } from "../../../protocol/protoValidation.ts";

const AMOUNT = /^[1-9][0-9]*$/;
const ADDRESS = /^(0x)?[a-fA-F0-9]{40}$/;

const amountRule = (field: "amount" | "total_amount", value: string): Violation | undefined =>
  AMOUNT.test(value)
    ? undefined
    : { fieldPath: field, message: `${field} must be a valid integer.`, constraintId: field };

const providerRule = (value: string): Violation | undefined =>
  ADDRESS.test(value)
    ? undefined
    : { fieldPath: "provider", message: "provider must be a valid Ethereum address.", constraintId: "provider" };

/** Every item must be an address; an empty list passes (the handler refuses it afterwards). */
const providersRule = (values: readonly string[]): Violation | undefined =>
  values.every((p) => ADDRESS.test(p))
    ? undefined
    : {
        fieldPath: "providers",
        message: "providers must be a valid array of Ethereum addresses.",
        constraintId: "providers",
      };

function check(what: string, violations: (Violation | undefined)[]): void {
  const found = violations.filter((v): v is Violation => v !== undefined);
  if (found.length) throw new InvalidArgumentError(`validating ${what} request: ${validationErrorText(found)}`);
}

export function validateDepositV12(r: { amount: string; provider: string }): void {
  check("deposit", [amountRule("amount", r.amount), providerRule(r.provider)]);
}

export function validateDepositEvenly(r: { totalAmount: string; providers: readonly string[] }): void {
  check("deposit evenly", [amountRule("total_amount", r.totalAmount), providersRule(r.providers)]);
}

export function validateGetDepositV12(r: { provider: string }): void {
  check("get deposit", [providerRule(r.provider)]);
}

export function validateProvidersList(what: "request withdrawals" | "withdraw", providers: readonly string[]): void {
  check(what, [providersRule(providers)]);
}
