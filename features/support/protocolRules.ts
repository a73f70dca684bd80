/**
 * The suite's rules of each protocol version: the plain facts its checks and its housekeeping need, written from the
 * reference sheets (upstream-head-delta §1–§6) and never imported from the node, so that a wrong fact is not wrong on
 * both sides. Built once per run where the target is read (`Target.rules`, features/support/target.ts) and asked
 * there (`this.rules.deposits`), never by comparing the version's name: a version added to PROTOCOL_VERSIONS makes
 * `tsc` fail here until its facts are written.
 */
import type { ProtocolVersion } from "../../lib/protocolVersion.ts";

export interface ProtocolRules {
  readonly version: ProtocolVersion;
  /** Where the bidder's money sits: per 10-block window (deposit into a window), or per (bidder, provider). */
  readonly deposits: "window" | "provider";
  /** Whether BlockTracker counts 10-block windows (getCurrentWindow) and the bidder registry keeps deposits by them. */
  readonly windows: boolean;
  /**
   * Whether bids carry bid options: the bid digest's type string ends `,bytes bidOptions` and its struct hash takes
   * keccak256(bidOptions) as an 11th word (upstream-head-delta §2.6), and each commitment carries a `bidOptions` field.
   */
  readonly bidOptions: boolean;
  /** What an empty `slash_amount` on a bid becomes: "0", or the bid's amount (upstream-head-delta §1.4). */
  readonly emptySlashAmount: "zero" | "bidAmount";
  /**
   * How the gateway shows the `bidOptions` of a bid that carried none in GetBidInfo and GetCommitmentInfo: absent (no
   * such field), or `null` (grpc-gateway's default marshaler emits unpopulated fields).
   */
  readonly noBidOptionsShown: "absent" | "null";
  /** Whether the bidder has window auto-deposit (`/v1/bidder/auto_deposit_status`). */
  readonly autoDeposit: boolean;
  /** Whether a bidder's withdrawal waits out a withdrawal period after its request (BidderRegistry v1.2). */
  readonly withdrawalPeriod: boolean;
}

export const PROTOCOL_RULES: Readonly<Record<ProtocolVersion, ProtocolRules>> = {
  "v1.1": {
    version: "v1.1",
    deposits: "window",
    windows: true,
    bidOptions: false,
    emptySlashAmount: "zero",
    noBidOptionsShown: "absent",
    autoDeposit: true,
    withdrawalPeriod: false,
  },
  "v1.2": {
    version: "v1.2",
    deposits: "provider",
    windows: false,
    bidOptions: true,
    emptySlashAmount: "bidAmount",
    noBidOptionsShown: "null",
    autoDeposit: false,
    withdrawalPeriod: true,
  },
};

export function rulesOf(version: ProtocolVersion): ProtocolRules {
  return PROTOCOL_RULES[version];
}

/**
 * What an empty `slash_amount` on a bid becomes on the commitments, the provider's ReceiveBids and the queries: "0"
 * in v1.1, the bid's amount in v1.2 (upstream's bidder API fills it in before the bid leaves the node:
 * p2p/pkg/rpc/bidder/service.go at v1.2.5; upstream-head-delta §1.4).
 */
export function emptySlashAmount(rules: ProtocolRules, bidAmount: string): string {
  return rules.emptySlashAmount === "zero" ? "0" : bidAmount;
}

/**
 * The `bidOptions` of a bid that carried none, as the gateway shows it: absent in v1.1 (no such field), `null` in
 * v1.2 (BidInfo.bid_options and CommitmentInfo.bid_options in p2p/rpc/{bidderapi,providerapi}/v1 at v1.2.5).
 */
export function noBidOptions(rules: ProtocolRules): { bidOptions?: null } {
  return rules.noBidOptionsShown === "null" ? { bidOptions: null } : {};
}
