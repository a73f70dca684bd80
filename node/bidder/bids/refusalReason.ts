import { NO_ACTIVE_RECEIVERS } from "../../network/network.ts";

/**
 * Why a provider gave a bid no commitment, as the bidder learns it from the provider's refusal. The provider node's
 * refusals carry fixed messages (node/provider/bids/), the same in-process, over libp2p and from other
 * implementations that follow upstream's wording.
 */
export type RefusalReason =
  | "no_application"
  | "allowance_used"
  | "deposit_missing"
  | "invalid_bid"
  | "protocol_mismatch"
  | "decision_timeout"
  | "rejected_by_application"
  | "bidder_timeout"
  | "canceled"
  | "error";

/** What each reason means, for logs and the explorer. */
export const REFUSAL_TEXT: Record<RefusalReason, string> = {
  no_application: "refused by the node: no provider application attached",
  allowance_used: "refused by the node: the bidder's allowance for the block is used up",
  deposit_missing: "refused by the node: no deposit for the bid's window",
  invalid_bid: "refused by the node: invalid bid",
  protocol_mismatch: "refused: the provider speaks another protocol version",
  decision_timeout: "refused by the node: the application did not decide in time",
  rejected_by_application: "rejected by the provider application",
  bidder_timeout: "no answer within the bidder's bid timeout",
  canceled: "canceled: the client left",
  error: "failed",
};

/** The provider's message: an in-process error's message or a peer's status message. */
export function refusalMessage(e: unknown): string {
  const x = e as { message?: unknown; statusMessage?: unknown } | undefined;
  const m = typeof x?.statusMessage === "string" && x.statusMessage ? x.statusMessage : x?.message;
  return typeof m === "string" ? m : String(e);
}

export function refusalReason(e: unknown): RefusalReason {
  const name = (e as { name?: unknown } | undefined)?.name;
  if (name === "BidTimeoutError") return "bidder_timeout";
  const m = refusalMessage(e);
  if (m === NO_ACTIVE_RECEIVERS) return "no_application";
  if (m.includes("insufficient balance")) return "allowance_used";
  if (m.includes("balance not found")) return "deposit_missing";
  if (m.includes("preconfirmation protocol mismatch") || m.includes("protocol selection failed"))
    return "protocol_mismatch";
  if (m.startsWith("verifying bid") || m.includes("invalid bid")) return "invalid_bid";
  if (m.includes("context deadline exceeded")) return "decision_timeout";
  if (m.includes("bid rejected")) return "rejected_by_application";
  if (m.includes("context canceled") || name === "AbortError") return "canceled";
  return "error";
}
