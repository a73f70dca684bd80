/**
 * A node's libp2p identity is its secp256k1 node key (p2p.md "Host"), so a peer ID names an Ethereum address:
 * the address of the public key the ID embeds (upstream GetEthAddressFromPeerID, pkg/p2p/libp2p/address.go).
 */
import { privateKeyFromRaw } from "@libp2p/crypto/keys";
import type { PeerId, PrivateKey } from "@libp2p/interface";
import { peerIdFromPrivateKey, peerIdFromString } from "@libp2p/peer-id";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import type { Address } from "viem";
import { MevCommitError } from "../../../lib/errors.ts";
import { hexToBytes } from "../../protocol/bytes.ts";
import { publicKeyToAddress } from "../../protocol/secp256k1.ts";

export class PeerIdentityError extends MevCommitError {}

export function libp2pKeyOf(nodeKey: `0x${string}` | Uint8Array): PrivateKey {
  const raw = typeof nodeKey === "string" ? hexToBytes(nodeKey) : nodeKey;
  if (raw.length !== 32) throw new PeerIdentityError(`node key of ${raw.length} bytes`);
  return privateKeyFromRaw(raw);
}

export function peerIdOf(nodeKey: `0x${string}` | Uint8Array): PeerId {
  return peerIdFromPrivateKey(libp2pKeyOf(nodeKey));
}

/** The Ethereum address of a secp256k1 peer ID (a string or a PeerId). */
export function ethAddressOfPeer(peer: PeerId | string): Address {
  const id = typeof peer === "string" ? peerIdFromString(peer) : peer;
  if (id.type !== "secp256k1" || !id.publicKey)
    throw new PeerIdentityError(`peer ${id.toString()} has no secp256k1 key`);
  const compressed = id.publicKey.raw;
  return publicKeyToAddress(secp256k1.Point.fromBytes(compressed).toBytes(false));
}
