/**
 * The protocol versions the project speaks, and what differs between them as pure facts (the way Ethereum clients
 * keep hard forks in a chain config). `v1.1` is the pinned interface (upstream 5f1068d1: deposits per 10-block
 * window); `v1.2` is upstream's v1.2.x release line (deposits per bidder and provider, the EIP-7702 deposit
 * manager, bid options). Facts: ../shared/reference/upstream-head-delta.md (§5 lists every switch point).
 *
 * What differs and needs I/O (contracts and ABIs, the deposit service, the provider's balance check, the API
 * surface) is chosen by `ProtocolVersion` in the folder that does the I/O; this module holds only the pure facts.
 */
import type { ProtocolVersion } from "../../lib/protocolVersion.ts";

export {
  DEFAULT_PROTOCOL_VERSION,
  isProtocolVersion,
  PROTOCOL_VERSIONS,
  type ProtocolVersion,
  parseProtocolVersion,
  UnknownProtocolVersionError,
} from "../../lib/protocolVersion.ts";

/** The pure per-version facts. */
export interface ProtocolProfile {
  readonly version: ProtocolVersion;
  /** The upstream code this version follows. */
  readonly upstream: string;
  /** Where a bidder's money sits: per 10-block window, or per (bidder, provider). */
  readonly deposits: "window" | "provider";
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
}

export const PROTOCOL_PROFILES: Readonly<Record<ProtocolVersion, ProtocolProfile>> = {
  "v1.1": {
    version: "v1.1",
    upstream: "5f1068d1",
    deposits: "window",
    p2p: { handshake: "10.0.0", preconfirmation: "3.0.0" },
    bidOptions: false,
    emptySlashAmount: "zero",
    addedTopics: [],
    refundEvent: "FundsRetrieved",
    slashPays: "decayedPlusSlashAmount",
  },
  "v1.2": {
    version: "v1.2",
    upstream: "v1.2.5",
    deposits: "provider",
    p2p: { handshake: "10.0.0", preconfirmation: "4.0.0" },
    bidOptions: true,
    emptySlashAmount: "bidAmount",
    addedTopics: ["other_provider_won_block", "transaction_settled", "transaction_payment"],
    refundEvent: "FundsUnlocked",
    slashPays: "slashAmount",
  },
};

export function profileOf(version: ProtocolVersion): ProtocolProfile {
  return PROTOCOL_PROFILES[version];
}
