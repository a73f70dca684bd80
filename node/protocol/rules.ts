/**
 * The rules of each protocol version: what every part of the node needs to know about the version it runs, as pure
 * facts (the way go-ethereum computes a `Rules` per fork and hands it down). Built once where the version is parsed
 * (node/devnet/config.ts `parseDevnetArgs`, node/role/roleConfig.ts `parseRoleArgs`) and passed to every node,
 * service, tracker, settler, route and gRPC server as a required `rules` field; code asks `rules.deposits`, never
 * the version's name. `version` stays for display and for the tables keyed by it (contracts, ABIs, API versions).
 * Facts: ../shared/reference/upstream-head-delta.md (§5 lists every switch point). Pure data; no I/O.
 */
import type { ProtocolVersion } from "../../lib/protocolVersion.ts";

export interface ProtocolRules {
  /** The version's name: for logs, banners, the target file and the tables keyed by version. Never compared. */
  readonly version: ProtocolVersion;
  /** The upstream code this version follows. */
  readonly upstream: string;
  /** Where a bidder's money sits: per 10-block window, or per (bidder, provider). */
  readonly deposits: "window" | "provider";
  /** Whether BlockTracker counts 10-block windows (the oracle skips commitments of windows too far behind). */
  readonly windows: boolean;
  /** The libp2p protocol versions (`/mev-commit/<name>/<version>`) that differ between versions. */
  readonly p2p: { readonly handshake: string; readonly preconfirmation: string };
  /**
   * Whether bids carry `bid_options` (wire field 12, API `bidOptions`, and keccak256 of it in the bid digest). The
   * opening of a commitment carries them too: PreconfManager recomputes the digest the bid was signed over.
   */
  readonly bidOptions: boolean;
  /** What an empty `slash_amount` on a bid means: zero, or the bid's amount. */
  readonly emptySlashAmount: "zero" | "bidAmount";
  /** Notification topics added to the pinned ten. */
  readonly addedTopics: readonly string[];
  /** The BidderRegistry event that gives a slashed bid back to the bidder, which the bidder's tracker follows. */
  readonly refundEvent: "FundsRetrieved" | "FundsUnlocked";
  /**
   * What ProviderRegistry.slash takes from the provider's stake for the bidder: the decayed bid plus the slash
   * amount (the penalty a percent of the decayed bid), or the slash amount alone (the penalty a percent of it; the
   * bid goes back from the bidder's escrow).
   */
  readonly slashPays: "decayedPlusSlashAmount" | "slashAmount";
  /** The settlement chain's hard fork: `prague` where bidders delegate to the deposit manager (EIP-7702). */
  readonly settlementHardfork: "prague" | undefined;
  /** Whether BidderRegistry has a bidder withdrawal period (`--bidder-withdrawal-period` applies). */
  readonly withdrawalPeriod: boolean;
  /** Whether the oracle can slash unmet bid-option position constraints (`--bid-options-slash-enabled` applies). */
  readonly bidOptionsSlash: boolean;
  /** Whether bidders have the EIP-7702 deposit manager (`--enable-deposit-manager` applies). */
  readonly depositManager: boolean;
}

export const PROTOCOL_RULES: Readonly<Record<ProtocolVersion, ProtocolRules>> = {
  "v1.1": {
    version: "v1.1",
    upstream: "5f1068d1",
    deposits: "window",
    windows: true,
    p2p: { handshake: "10.0.0", preconfirmation: "3.0.0" },
    bidOptions: false,
    emptySlashAmount: "zero",
    addedTopics: [],
    refundEvent: "FundsRetrieved",
    slashPays: "decayedPlusSlashAmount",
    settlementHardfork: undefined,
    withdrawalPeriod: false,
    bidOptionsSlash: false,
    depositManager: false,
  },
  "v1.2": {
    version: "v1.2",
    upstream: "v1.2.5",
    deposits: "provider",
    windows: false,
    p2p: { handshake: "10.0.0", preconfirmation: "4.0.0" },
    bidOptions: true,
    emptySlashAmount: "bidAmount",
    addedTopics: ["other_provider_won_block", "transaction_settled", "transaction_payment"],
    refundEvent: "FundsUnlocked",
    slashPays: "slashAmount",
    settlementHardfork: "prague",
    withdrawalPeriod: true,
    bidOptionsSlash: true,
    depositManager: true,
  },
};

/** The rules of a parsed version: called where the version is parsed, then handed down. */
export function rulesOf(version: ProtocolVersion): ProtocolRules {
  return PROTOCOL_RULES[version];
}

/** Every version's rules, in PROTOCOL_VERSIONS order (what a node hears from peers of the other versions). */
export function allRules(): readonly ProtocolRules[] {
  return Object.values(PROTOCOL_RULES);
}
