/**
 * The handshake exchange on its stream (no headers; upstream handshake.go Handshake / Handle). The dialer:
 * write our request, read and check the response, read the peer's request, check it, answer it. The listener:
 * the same in the other order. A provider's stake is checked with `isStaked` (the chain) once its signature holds.
 */
import type { Address } from "viem";
import {
  type HandshakeReq,
  HandshakeReqSchema,
  HandshakeRespSchema,
} from "../../gen/proto/p2p/handshake/v1/handshake_pb.ts";
import type { PeerType } from "../../network/network.ts";
import type { MsgStream } from "../msgStream.ts";
import {
  type HandshakePeer,
  handshakeResponse,
  InsufficientStakeError,
  verifyHandshakeRequest,
  verifyHandshakeResponse,
} from "../wire/handshake.ts";

export interface HandshakeSelf {
  readonly address: Address;
  readonly peerType: PeerType;
  /** Our signed request (built once, as upstream does). */
  readonly request: HandshakeReq;
  readonly isStaked: (provider: Address) => Promise<boolean>;
}

async function checkPeer(req: HandshakeReq, peerAddress: Address, self: HandshakeSelf): Promise<HandshakePeer> {
  const peer = verifyHandshakeRequest(req, peerAddress);
  if (peer.type === "provider" && !(await self.isStaked(peer.address))) throw new InsufficientStakeError(peer.address);
  return peer;
}

export async function dialHandshake(
  s: MsgStream,
  self: HandshakeSelf,
  peerAddress: Address,
  signal: AbortSignal,
): Promise<HandshakePeer> {
  await s.writeMsg(HandshakeReqSchema, self.request, signal);
  verifyHandshakeResponse(await s.readMsg(HandshakeRespSchema, signal), self);
  const peer = await checkPeer(await s.readMsg(HandshakeReqSchema, signal), peerAddress, self);
  await s.writeMsg(HandshakeRespSchema, handshakeResponse(peer), signal);
  return peer;
}

export async function answerHandshake(
  s: MsgStream,
  self: HandshakeSelf,
  peerAddress: Address,
  signal: AbortSignal,
): Promise<HandshakePeer> {
  const peer = await checkPeer(await s.readMsg(HandshakeReqSchema, signal), peerAddress, self);
  await s.writeMsg(HandshakeRespSchema, handshakeResponse(peer), signal);
  await s.writeMsg(HandshakeReqSchema, self.request, signal);
  verifyHandshakeResponse(await s.readMsg(HandshakeRespSchema, signal), self);
  return peer;
}
