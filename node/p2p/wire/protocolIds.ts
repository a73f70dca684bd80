/**
 * Protocol IDs of the mev-commit streams (p2p.md "Host"): `/mev-commit/<name>/<version>`. An incoming ID is served
 * when its name matches, its major version equals ours and its minor version is not above ours (upstream's
 * matchProtocolIDWithSemver in pkg/p2p/libp2p/libp2p.go). The handshake and preconfirmation versions differ per
 * protocol version (PROTOCOL_PROFILES); HANDSHAKE and PRECONFIRMATION are v1.1's.
 */
import { PROTOCOL_VERSIONS, type ProtocolVersion, profileOf } from "../../protocol/protocolVersion.ts";

export interface ProtocolSpec {
  readonly name: string;
  readonly version: string;
}

export const HANDSHAKE: ProtocolSpec = { name: "handshake", version: "10.0.0" };
export const DISCOVERY: ProtocolSpec = { name: "discovery", version: "2.0.0" };
export const KEY_EXCHANGE: ProtocolSpec = { name: "keyexchange", version: "1.0.0" };
export const PRECONFIRMATION: ProtocolSpec = { name: "preconfirmation", version: "3.0.0" };

export function handshakeSpec(version: ProtocolVersion): ProtocolSpec {
  return { name: "handshake", version: profileOf(version).p2p.handshake };
}

export function preconfirmationSpec(version: ProtocolVersion): ProtocolSpec {
  return { name: "preconfirmation", version: profileOf(version).p2p.preconfirmation };
}

/** The preconfirmation protocols of the other versions: what a node of `version` hears from nodes it cannot serve. */
export function otherPreconfirmationSpecs(
  version: ProtocolVersion,
): { version: ProtocolVersion; spec: ProtocolSpec }[] {
  const ours = preconfirmationSpec(version).version;
  return PROTOCOL_VERSIONS.filter((v) => preconfirmationSpec(v).version !== ours).map((v) => ({
    version: v,
    spec: preconfirmationSpec(v),
  }));
}

export function protocolId(p: ProtocolSpec): string {
  return `/mev-commit/${p.name}/${p.version}`;
}

const SEMVER = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

function majorMinor(version: string): [number, number] | undefined {
  const m = SEMVER.exec(version);
  return m ? [Number(m[1]), Number(m[2] ?? 0)] : undefined;
}

/** Whether a peer asking for `incoming` may be served by our handler of `supported`. */
export function matchesProtocol(incoming: string, supported: ProtocolSpec): boolean {
  const parts = incoming.split("/");
  if (parts.length !== 4 || parts[0] !== "" || parts[2] !== supported.name) return false;
  const theirs = majorMinor(parts[3]!);
  const ours = majorMinor(supported.version);
  if (!theirs || !ours) return false;
  return theirs[0] === ours[0] && ours[1] >= theirs[1];
}
