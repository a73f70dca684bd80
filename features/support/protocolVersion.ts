/**
 * Which protocol version a target speaks, and which scenarios hold for it. The names come from lib/protocolVersion.ts,
 * shared with the node (the suite imports nothing of node/ but the devnet launcher): `v1.1` is the pinned interface (deposits per window), `v1.2` upstream's v1.2.x release line (deposits per
 * provider, the deposit manager, bid options). A target file without `"protocol"` speaks v1.1.
 *
 * A scenario holds for every version unless it is tagged with the versions it holds for (`@v1.1`, `@v1.2`, on the
 * scenario or its feature); one that does not hold for the target's version is skipped with the reason.
 */
import { PROTOCOL_VERSIONS, type ProtocolVersion } from "../../lib/protocolVersion.ts";

export {
  DEFAULT_PROTOCOL_VERSION,
  isProtocolVersion,
  PROTOCOL_VERSIONS,
  type ProtocolVersion,
  parseProtocolVersion,
  UnknownProtocolVersionError,
} from "../../lib/protocolVersion.ts";

/** The tag that marks a scenario as holding for one version only. */
export const versionTag = (v: ProtocolVersion): string => `@${v}`;

/** The versions a scenario with these tags holds for: those it is tagged with, or every version. */
export function versionsOf(tags: readonly string[]): ProtocolVersion[] {
  const tagged = PROTOCOL_VERSIONS.filter((v) => tags.includes(versionTag(v)));
  return tagged.length ? tagged : [...PROTOCOL_VERSIONS];
}

/** Why a scenario with these tags is skipped on a target of `version`, or undefined when it holds for it. */
export function versionSkipReason(tags: readonly string[], version: ProtocolVersion): string | undefined {
  const holds = versionsOf(tags);
  if (holds.includes(version)) return undefined;
  return `protocol ${holds.join(", ")} only`;
}

/**
 * What an empty `slash_amount` on a bid becomes on the commitments, the provider's ReceiveBids and the queries: "0"
 * in v1.1, the bid's amount in v1.2 (upstream's bidder API fills it in before the bid leaves the node:
 * p2p/pkg/rpc/bidder/service.go at v1.2.5; upstream-head-delta §1.4).
 */
export function emptySlashAmount(version: ProtocolVersion, bidAmount: string): string {
  return version === "v1.1" ? "0" : bidAmount;
}

/**
 * How the gateway shows a bid's `bidOptions` when the bid carried none: absent in v1.1 (no such field), `null` in
 * v1.2 (grpc-gateway's default JSON marshaler emits unpopulated fields: BidInfo.bid_options and
 * CommitmentInfo.bid_options in p2p/rpc/{bidderapi,providerapi}/v1 at v1.2.5).
 */
export function noBidOptions(version: ProtocolVersion): { bidOptions?: null } {
  return version === "v1.1" ? {} : { bidOptions: null };
}
