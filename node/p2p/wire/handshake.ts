/**
 * The handshake, the first stream on every connection (p2p.md "Handshake", upstream
 * pkg/p2p/libp2p/internal/handshake): the dialer sends its HandshakeReq, the listener answers a HandshakeResp and
 * its own HandshakeReq, the dialer answers a HandshakeResp. A request is signed over keccak256(peer_type ‖ token);
 * the verifier recovers the signer, requires it to be the address of the connection's peer ID and, for a provider,
 * enough stake (checked by the caller: stake needs the chain). A response must echo our address and peer type.
 */
import { create } from "@bufbuild/protobuf";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { type Address, getAddress } from "viem";
import { MevCommitError } from "../../../lib/errors.ts";
import {
  type HandshakeReq,
  HandshakeReqSchema,
  type HandshakeResp,
  HandshakeRespSchema,
  SerializedKeysSchema,
} from "../../gen/proto/p2p/handshake/v1/handshake_pb.ts";
import type { PeerType } from "../../network/network.ts";
import { decodeG1, encodeG1 } from "../../protocol/bn254.ts";
import { bytesToPrefixedHex, hexToBytes, utf8 } from "../../protocol/bytes.ts";
import type { G1Point } from "../../protocol/types.ts";
import { recoverMessageSigner, signMessageHash } from "./hashSignature.ts";

/** Upstream's default `--secret`; the token is signed but not compared. */
export const DEFAULT_HANDSHAKE_TOKEN = "secret";

const PEER_TYPES: readonly PeerType[] = ["bootnode", "provider", "bidder"];

/** A provider's keys as the handshake carries them. */
export interface ProviderKeys {
  /** ECIES public key, compressed (33 bytes). */
  readonly pkePublicKey: Uint8Array;
  readonly nikePublicKey: G1Point;
}

/** What a verified request tells about the peer. */
export interface HandshakePeer {
  readonly address: Address;
  readonly type: PeerType;
  readonly keys?: ProviderKeys;
}

export class HandshakeError extends MevCommitError {}

/** The request's signer is not the connection's peer (upstream ErrObservedAddressMismatch). */
export class ObservedAddressMismatchError extends HandshakeError {}

/** A provider without enough stake on the ProviderRegistry (upstream ErrInsufficientStake). */
export class InsufficientStakeError extends HandshakeError {
  constructor(readonly provider: Address) {
    super(`insufficient stake: provider ${provider}`);
  }
}

export function handshakeRequest(o: {
  privateKey: Uint8Array | string;
  peerType: PeerType;
  token?: string;
  keys?: ProviderKeys;
}): HandshakeReq {
  const token = o.token ?? DEFAULT_HANDSHAKE_TOKEN;
  if (o.peerType === "provider" && !o.keys) throw new HandshakeError("a provider's handshake carries its keys");
  return create(HandshakeReqSchema, {
    peerType: o.peerType,
    token,
    sig: signMessageHash(o.privateKey, utf8(o.peerType + token)),
    keys: o.keys
      ? create(SerializedKeysSchema, {
          PKEPublicKey: o.keys.pkePublicKey,
          NIKEPublicKey: encodeG1(o.keys.nikePublicKey),
        })
      : undefined,
  });
}

/** Checks a request against the connection's peer address; the stake of a provider is left to the caller. */
export function verifyHandshakeRequest(req: HandshakeReq, peerAddress: Address): HandshakePeer {
  const signer = recoverMessageSigner(utf8(req.peerType + req.token), req.sig);
  if (getAddress(signer) !== getAddress(peerAddress))
    throw new ObservedAddressMismatchError(
      `observed address mismatch: signed by ${signer}, connection from ${peerAddress}`,
    );
  const type = PEER_TYPES.find((t) => t === req.peerType);
  if (!type) throw new HandshakeError(`unknown peer type "${req.peerType}"`);
  if (type !== "provider") return { address: signer, type };
  if (!req.keys) throw new HandshakeError("provider handshake without keys");
  try {
    secp256k1.Point.fromBytes(req.keys.PKEPublicKey);
    return {
      address: signer,
      type,
      keys: { pkePublicKey: req.keys.PKEPublicKey, nikePublicKey: decodeG1(req.keys.NIKEPublicKey) },
    };
  } catch (e) {
    throw new HandshakeError(`provider keys: ${(e as Error).message}`);
  }
}

export function handshakeResponse(peer: HandshakePeer): HandshakeResp {
  return create(HandshakeRespSchema, { observedAddress: hexToBytes(peer.address), peerType: peer.type });
}

/** The answer to our request must name us and our peer type. */
export function verifyHandshakeResponse(resp: HandshakeResp, self: { address: Address; peerType: PeerType }): void {
  if (
    resp.observedAddress.length !== 20 ||
    getAddress(bytesToPrefixedHex(resp.observedAddress)) !== getAddress(self.address)
  )
    throw new HandshakeError("observed address mismatch");
  if (resp.peerType !== self.peerType) throw new HandshakeError("peer type mismatch");
}
