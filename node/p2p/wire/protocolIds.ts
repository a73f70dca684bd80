/**
 * Protocol IDs of the mev-commit streams (p2p.md "Host"): `/mev-commit/<name>/<version>`. An incoming ID is served
 * when its name matches, its major version equals ours and its minor version is not above ours (upstream's
 * matchProtocolIDWithSemver in pkg/p2p/libp2p/libp2p.go). The handshake and preconfirmation versions differ per
 * protocol version (ProtocolRules.p2p); HANDSHAKE and PRECONFIRMATION are v1.1's.
 */
import type { ProtocolVersion } from "../../protocol/protocolVersion.ts";
import { allRules, type ProtocolRules } from "../../protocol/rules.ts";

export interface ProtocolSpec {
  readonly name: string;
  readonly version: string;
}

export const HANDSHAKE: ProtocolSpec = { name: "handshake", version: "10.0.0" };
export const DISCOVERY: ProtocolSpec = { name: "discovery", version: "2.0.0" };
export const KEY_EXCHANGE: ProtocolSpec = { name: "keyexchange", version: "1.0.0" };
export const PRECONFIRMATION: ProtocolSpec = { name: "preconfirmation", version: "3.0.0" };

export function handshakeSpec(rules: ProtocolRules): ProtocolSpec {
  return { name: "handshake", version: rules.p2p.handshake };
}

export function preconfirmationSpec(rules: ProtocolRules): ProtocolSpec {
  return { name: "preconfirmation", version: rules.p2p.preconfirmation };
}

/** The preconfirmation protocols of the other versions: what a node of `rules` hears from nodes it cannot serve. */
export function otherPreconfirmationSpecs(rules: ProtocolRules): { version: ProtocolVersion; spec: ProtocolSpec }[] {
  const ours = rules.p2p.preconfirmation;
  return allRules()
    .filter((r) => r.p2p.preconfirmation !== ours)
    .map((r) => ({ version: r.version, spec: preconfirmationSpec(r) }));
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
