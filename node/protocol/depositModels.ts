/**
 * What code shared by both deposit models (the oracle, the explorer, the tracker) may ask of a deposit model, so that
 * none of it imports the window module (windows.ts): deposits per 10-block window (v1.1) or per provider (v1.2).
 */
import type { ProtocolRules } from "./rules.ts";
import { windowOfBlock } from "./windows.ts";

export interface DepositModel {
  readonly name: "window" | "perProvider";
  /** The deposit window that pays for the bids of an L1 block (block ≥ 1); null where deposits have no windows. */
  windowOfBlock(block: bigint): bigint | null;
}

export const WINDOW_DEPOSITS: DepositModel = { name: "window", windowOfBlock };

export const PER_PROVIDER_DEPOSITS: DepositModel = { name: "perProvider", windowOfBlock: () => null };

/** The deposit model of a protocol version's rules. */
export function depositModelOf(rules: ProtocolRules): DepositModel {
  return rules.deposits === "window" ? WINDOW_DEPOSITS : PER_PROVIDER_DEPOSITS;
}
