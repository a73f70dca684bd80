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
