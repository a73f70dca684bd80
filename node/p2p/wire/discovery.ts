/**
 * Discovery (p2p.md, upstream pkg/discovery and pkg/topology): a node tells a newly connected peer about the
 * providers it knows, and tells its bidders about a newly connected provider. Each entry is the provider's address
 * and its "underlay", go-libp2p's AddrInfo as JSON: {"ID":"<peer id>","Addrs":["<multiaddr>",…]}.
 */
import { create } from "@bufbuild/protobuf";
import { type Address, getAddress } from "viem";
import { MevCommitError } from "../../../lib/errors.ts";
import { PeerInfoSchema, type PeerList, PeerListSchema } from "../../gen/proto/p2p/discovery/v1/discovery_pb.ts";
import { bytesToPrefixedHex, hexToBytes } from "../../protocol/bytes.ts";

export interface Underlay {
  readonly id: string;
  readonly addrs: readonly string[];
}

export interface DiscoveredPeer {
  readonly address: Address;
  readonly underlay: Underlay;
}

export class UnderlayError extends MevCommitError {}

export function encodeUnderlay(u: Underlay): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ ID: u.id, Addrs: u.addrs }));
}

export function decodeUnderlay(bytes: Uint8Array): Underlay {
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new UnderlayError(`underlay is not JSON: ${(e as Error).message}`);
  }
  const o = v as { ID?: unknown; Addrs?: unknown };
  if (typeof o?.ID !== "string" || !Array.isArray(o.Addrs) || !o.Addrs.every((a) => typeof a === "string"))
    throw new UnderlayError("underlay needs ID and Addrs");
  if (o.Addrs.length === 0) throw new UnderlayError("no addresses");
  return { id: o.ID, addrs: o.Addrs as string[] };
}

export function peerList(peers: readonly DiscoveredPeer[]): PeerList {
  return create(PeerListSchema, {
    peers: peers.map((p) =>
      create(PeerInfoSchema, { ethAddress: hexToBytes(p.address), underlay: encodeUnderlay(p.underlay) }),
    ),
  });
}

/** The entries of a PeerList; unreadable ones are left out (upstream logs and skips a peer it cannot dial). */
export function peersOf(list: PeerList): DiscoveredPeer[] {
  const out: DiscoveredPeer[] = [];
  for (const p of list.peers) {
    if (p.ethAddress.length !== 20) continue;
    try {
      out.push({ address: getAddress(bytesToPrefixedHex(p.ethAddress)), underlay: decodeUnderlay(p.underlay) });
    } catch {
      // skipped
    }
  }
  return out;
}
