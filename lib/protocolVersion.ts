/**
 * The protocol versions the project speaks, by name: `v1.1` is the pinned interface (upstream 5f1068d1: deposits per
 * 10-block window), `v1.2` upstream's v1.2.x release line (deposits per bidder and provider, the deposit manager, bid
 * options). In lib/ because the node (node/protocol/rules.ts, with the per-version facts) and the
 * conformance suite (features/support/protocolVersion.ts, with which scenarios hold for which version) both need
 * them, and the suite imports nothing of the node it judges.
 */
import { MevCommitError } from "./errors.ts";

export const PROTOCOL_VERSIONS = ["v1.1", "v1.2"] as const;
export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];

/** The version a devnet, a node, a target file or a command uses when none is given. */
export const DEFAULT_PROTOCOL_VERSION: ProtocolVersion = "v1.1";

export class UnknownProtocolVersionError extends MevCommitError {}

export function isProtocolVersion(text: unknown): text is ProtocolVersion {
  return typeof text === "string" && (PROTOCOL_VERSIONS as readonly string[]).includes(text);
}

/** `undefined` (absent) is the default version; anything else must name a known version exactly. */
export function parseProtocolVersion(text: string | undefined): ProtocolVersion {
  if (text === undefined) return DEFAULT_PROTOCOL_VERSION;
  if (isProtocolVersion(text)) return text;
  throw new UnknownProtocolVersionError(
    `unknown protocol version ${JSON.stringify(text)}: expected one of ${PROTOCOL_VERSIONS.join(", ")}`,
    { context: { protocol: text } },
  );
}
