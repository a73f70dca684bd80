import { beforeAll, describe, expect, test } from "bun:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { PeerListSchema } from "../../gen/proto/p2p/discovery/v1/discovery_pb.ts";
import { HandshakeReqSchema, HandshakeRespSchema } from "../../gen/proto/p2p/handshake/v1/handshake_pb.ts";
import { EKMWithSignatureSchema } from "../../gen/proto/p2p/keyexchange/v1/keyexchange_pb.ts";
import {
  BidSchema,
  EncryptedBidSchema,
  EncryptedPreConfirmationSchema,
} from "../../gen/proto/p2p/preconfirmation/v1/preconfirmation_pb.ts";
import { verifyBid } from "../../protocol/bidSigning.ts";
import { publicKeyOf } from "../../protocol/bn254.ts";
import { bytesToHex, hexToBytes, utf8 } from "../../protocol/bytes.ts";
import { signCommitment, verifyCommitment } from "../../protocol/commitmentSigning.ts";
import { protocolDomains } from "../../protocol/digest.ts";
import { initCrypto } from "../../protocol/initCrypto.ts";
import { rulesOf } from "../../protocol/rules.ts";
import { AesGcmError, openAesGcm, sealAesGcm } from "./aesGcm.ts";
import { decodeUnderlay, peerList, peersOf } from "./discovery.ts";
import { EciesError, eciesDecrypt, eciesEncrypt, eciesPublicKeyOf } from "./ecies.ts";
import {
  HandshakeError,
  handshakeRequest,
  handshakeResponse,
  ObservedAddressMismatchError,
  verifyHandshakeRequest,
  verifyHandshakeResponse,
} from "./handshake.ts";
import { SignatureVerificationError } from "./hashSignature.ts";
import { KeyExchangeError, openKeyExchange, parseTimestampMessage, sealKeyExchange } from "./keyExchange.ts";
import { MSGIO_MAX_SIZE, MsgioFrameError, msgioFrame, readMsgioLength, splitMsgioFrames } from "./msgio.ts";
import { ethAddressOfPeer, peerIdOf } from "./peerIdentity.ts";
import {
  bidFromMessage,
  bidToMessage,
  commitmentFromMessage,
  commitmentToMessage,
  decryptBid,
  encryptBid,
} from "./preconfirmation.ts";
import {
  HANDSHAKE,
  handshakeSpec,
  matchesProtocol,
  otherPreconfirmationSpecs,
  PRECONFIRMATION,
  preconfirmationSpec,
  protocolId,
} from "./protocolIds.ts";
import {
  decodeData,
  decodeHeader,
  EMPTY_HEADER,
  encodeData,
  encodeError,
  PeerStatusError,
  StreamMsgError,
} from "./streamMsg.ts";
import * as U from "./upstreamVectors.ts";

const V11 = rulesOf("v1.1");

const { V } = U;
const hex = (s: string) => hexToBytes(s);

beforeAll(async () => {
  await initCrypto();
});

describe("msgio framing", () => {
  test("a 4-byte big-endian length, then the message", () => {
    expect(bytesToHex(msgioFrame(Uint8Array.of(1, 2, 3)))).toBe("00000003010203");
    expect(bytesToHex(msgioFrame(new Uint8Array(0)))).toBe("00000000");
  });
  test("a decoder fed byte by byte waits for the whole prefix", () => {
    expect(() => readMsgioLength(Uint8Array.of(0, 0, 1))).toThrow(RangeError);
    expect(readMsgioLength(Uint8Array.of(0, 0, 1, 0))).toBe(256);
  });
  test("frames above go-msgio's 8 MiB are refused both ways", () => {
    expect(() => readMsgioLength(Uint8Array.of(0, 0x80, 0, 1))).toThrow(MsgioFrameError);
    expect(() => msgioFrame(new Uint8Array(MSGIO_MAX_SIZE + 1))).toThrow(MsgioFrameError);
  });
  test("a buffer splits into whole frames and a rest", () => {
    const buf = Uint8Array.of(...msgioFrame(Uint8Array.of(7)), ...msgioFrame(Uint8Array.of(8, 9)), 0, 0, 0, 5, 1);
    const { frames, rest } = splitMsgioFrames(buf);
    expect(frames.map(bytesToHex)).toEqual(["07", "0809"]);
    expect(bytesToHex(rest)).toBe("0000000501");
  });
});

describe("protocol IDs", () => {
  test("/mev-commit/<name>/<version>", () => {
    expect(protocolId(HANDSHAKE)).toBe("/mev-commit/handshake/10.0.0");
    expect(protocolId(PRECONFIRMATION)).toBe("/mev-commit/preconfirmation/3.0.0");
  });
  test("same major, minor not above ours (upstream's matchProtocolIDWithSemver)", () => {
    for (const [id, ok] of V.semver) expect({ id, ok: matchesProtocol(id, PRECONFIRMATION) }).toEqual({ id, ok });
    expect(matchesProtocol("/mev-commit/discovery/3.0.0", PRECONFIRMATION)).toBe(false);
    expect(matchesProtocol("/mev-commit/preconfirmation", PRECONFIRMATION)).toBe(false);
  });
  test("per protocol version: handshake 10.0.0 in both, preconfirmation 3.0.0 in v1.1 and 4.0.0 in v1.2", () => {
    expect(protocolId(handshakeSpec(rulesOf("v1.1")))).toBe("/mev-commit/handshake/10.0.0");
    expect(protocolId(handshakeSpec(rulesOf("v1.2")))).toBe("/mev-commit/handshake/10.0.0");
    expect(preconfirmationSpec(rulesOf("v1.1"))).toEqual(PRECONFIRMATION);
    expect(protocolId(preconfirmationSpec(rulesOf("v1.2")))).toBe("/mev-commit/preconfirmation/4.0.0");
    expect(matchesProtocol(protocolId(preconfirmationSpec(rulesOf("v1.2"))), PRECONFIRMATION)).toBe(false);
    expect(otherPreconfirmationSpecs(rulesOf("v1.1")).map((o) => o.version)).toEqual(["v1.2"]);
    expect(otherPreconfirmationSpecs(rulesOf("v1.2")).map((o) => protocolId(o.spec))).toEqual([
      "/mev-commit/preconfirmation/3.0.0",
    ]);
  });
});

describe("stream envelopes", () => {
  test("data and error bodies are upstream's bytes", () => {
    expect(bytesToHex(encodeError(13, "bid rejected"))).toBe(V.streamMsgError);
    const m = create(EncryptedBidSchema, { ciphertext: Uint8Array.of(1, 2, 3) });
    expect(bytesToHex(encodeData(EncryptedBidSchema, m))).toBe(`0a05${bytesToHex(toBinary(EncryptedBidSchema, m))}`);
  });
  test("a carried status surfaces as PeerStatusError with its code", () => {
    const err = (() => {
      try {
        decodeData(EncryptedBidSchema, hex(V.streamMsgError));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(PeerStatusError);
    expect((err as PeerStatusError).code).toBe(13);
    expect((err as PeerStatusError).statusMessage).toBe("bid rejected");
  });
  test("an envelope without a body is refused", () => {
    expect(() => decodeData(EncryptedBidSchema, new Uint8Array(0))).toThrow(StreamMsgError);
    expect(() => decodeData(EncryptedBidSchema, hex(V.streamMsgData))).toThrow(StreamMsgError); // 010203 is no EncryptedBid
  });
  test("headers: empty ones are zero bytes; upstream's map decodes", () => {
    expect(EMPTY_HEADER.length).toBe(0);
    const h = decodeHeader(hex(V.header)) as Record<string, { kind: { case: string; value: unknown } }>;
    expect(h.k?.kind).toEqual({ case: "stringValue", value: "v" });
  });
});

describe("handshake", () => {
  const providerKeys = () => ({
    pkePublicKey: hex(V.eciesPublicKey),
    nikePublicKey: publicKeyOf(U.PROVIDER_NIKE_SECRET),
  });

  test("our requests are upstream's bytes (signature over keccak(peer_type ‖ token), v = 0/1)", () => {
    const p = handshakeRequest({ privateKey: U.PROVIDER_KEY, peerType: "provider", keys: providerKeys() });
    expect(bytesToHex(toBinary(HandshakeReqSchema, p))).toBe(V.handshakeProviderReq);
    const b = handshakeRequest({ privateKey: U.BIDDER_KEY, peerType: "bidder" });
    expect(bytesToHex(toBinary(HandshakeReqSchema, b))).toBe(V.handshakeBidderReq);
  });
  test("upstream's requests verify against the connection's address and give the provider's keys", () => {
    const peer = verifyHandshakeRequest(
      fromBinary(HandshakeReqSchema, hex(V.handshakeProviderReq)),
      U.PROVIDER_ADDRESS,
    );
    expect(peer.address).toBe(U.PROVIDER_ADDRESS);
    expect(peer.type).toBe("provider");
    expect(peer.keys?.nikePublicKey).toEqual(publicKeyOf(U.PROVIDER_NIKE_SECRET));
    expect(bytesToHex(peer.keys!.pkePublicKey)).toBe(V.eciesPublicKey);
    expect(
      verifyHandshakeRequest(fromBinary(HandshakeReqSchema, hex(V.handshakeBidderReq)), U.BIDDER_ADDRESS).type,
    ).toBe("bidder");
  });
  test("a request from another key than the connection's is refused", () => {
    expect(() =>
      verifyHandshakeRequest(fromBinary(HandshakeReqSchema, hex(V.handshakeBidderReq)), U.PROVIDER_ADDRESS),
    ).toThrow(ObservedAddressMismatchError);
  });
  test("a tampered token breaks the signature", () => {
    const req = fromBinary(HandshakeReqSchema, hex(V.handshakeBidderReq));
    req.peerType = "provider";
    expect(() => verifyHandshakeRequest(req, U.BIDDER_ADDRESS)).toThrow(ObservedAddressMismatchError);
    req.sig = req.sig.slice(0, 64);
    expect(() => verifyHandshakeRequest(req, U.BIDDER_ADDRESS)).toThrow(SignatureVerificationError);
  });
  test("a provider's request without keys is refused", () => {
    const req = handshakeRequest({ privateKey: U.PROVIDER_KEY, peerType: "provider", keys: providerKeys() });
    req.keys = undefined;
    expect(() => verifyHandshakeRequest(req, U.PROVIDER_ADDRESS)).toThrow(HandshakeError);
  });
  test("the response echoes the address and type; ours are upstream's bytes", () => {
    const resp = handshakeResponse({ address: U.BIDDER_ADDRESS, type: "bidder" });
    expect(bytesToHex(toBinary(HandshakeRespSchema, resp))).toBe(V.handshakeBidderResp);
    verifyHandshakeResponse(resp, { address: U.BIDDER_ADDRESS, peerType: "bidder" });
    expect(() => verifyHandshakeResponse(resp, { address: U.PROVIDER_ADDRESS, peerType: "bidder" })).toThrow(
      HandshakeError,
    );
    expect(() => verifyHandshakeResponse(resp, { address: U.BIDDER_ADDRESS, peerType: "provider" })).toThrow(
      HandshakeError,
    );
  });
});

describe("AES-GCM (nonce ‖ sealed)", () => {
  test("opens upstream's ciphertext", () => {
    expect(new TextDecoder().decode(openAesGcm(hex(U.AES_KEY), hex(V.aesGcmCiphertext)))).toBe(V.aesPlaintext);
  });
  test("round trip with a fresh nonce each time; a flipped bit fails", () => {
    const a = sealAesGcm(hex(U.AES_KEY), utf8("x"));
    const b = sealAesGcm(hex(U.AES_KEY), utf8("x"));
    expect(bytesToHex(a)).not.toBe(bytesToHex(b));
    expect(openAesGcm(hex(U.AES_KEY), a)).toEqual(utf8("x"));
    a[a.length - 1]! ^= 1;
    expect(() => openAesGcm(hex(U.AES_KEY), a)).toThrow(AesGcmError);
  });
});

describe("ECIES (go-ethereum defaults for secp256k1)", () => {
  test("public key serialisation is upstream's (compressed)", () => {
    expect(bytesToHex(eciesPublicKeyOf(hex(U.ECIES_KEY_1)))).toBe(V.eciesPublicKey);
  });
  test("decrypts go-ethereum's ciphertext with a known key", () => {
    expect(bytesToHex(eciesDecrypt(hex(U.ECIES_KEY_1), hex(V.eciesCiphertext)))).toBe(U.AES_KEY);
  });
  test("deterministic given the ephemeral key and IV; round trip; wrong key or tampering fails", () => {
    const eph = hex("03".repeat(32));
    const iv = hex("04".repeat(16));
    const ct = eciesEncrypt(hex(V.eciesPublicKey), hex(U.AES_KEY), eph, iv);
    expect(bytesToHex(eciesEncrypt(hex(V.eciesPublicKey), hex(U.AES_KEY), eph, iv))).toBe(bytesToHex(ct));
    expect(ct.length).toBe(65 + 16 + 32 + 32);
    expect(bytesToHex(eciesDecrypt(hex(U.ECIES_KEY_1), ct))).toBe(U.AES_KEY);
    expect(() => eciesDecrypt(hex(U.ECIES_KEY_2), ct)).toThrow(EciesError);
    ct[70]! ^= 1;
    expect(() => eciesDecrypt(hex(U.ECIES_KEY_1), ct)).toThrow(EciesError);
  });
});

describe("key exchange", () => {
  const ekm = () => fromBinary(EKMWithSignatureSchema, hex(V.ekmWithSignature));

  test("each provider opens upstream's message with its own ECIES key", () => {
    for (const k of [U.ECIES_KEY_1, U.ECIES_KEY_2])
      expect(
        bytesToHex(
          openKeyExchange(ekm(), { bidder: U.BIDDER_ADDRESS, eciesPrivateKey: hex(k), nowSeconds: V.ekmTimestamp + 5 }),
        ),
      ).toBe(U.AES_KEY);
  });
  test("refused from another peer than the signer, to a key not in it, or after 60 s", () => {
    expect(() =>
      openKeyExchange(ekm(), {
        bidder: U.PROVIDER_ADDRESS,
        eciesPrivateKey: hex(U.ECIES_KEY_1),
        nowSeconds: V.ekmTimestamp,
      }),
    ).toThrow(KeyExchangeError);
    expect(() =>
      openKeyExchange(ekm(), {
        bidder: U.BIDDER_ADDRESS,
        eciesPrivateKey: hex("05".repeat(32)),
        nowSeconds: V.ekmTimestamp,
      }),
    ).toThrow(KeyExchangeError);
    expect(() =>
      openKeyExchange(ekm(), {
        bidder: U.BIDDER_ADDRESS,
        eciesPrivateKey: hex(U.ECIES_KEY_1),
        nowSeconds: V.ekmTimestamp + 61,
      }),
    ).toThrow("more than 1 minute old");
  });
  test("ours opens the same way", () => {
    const sealed = sealKeyExchange({
      bidderPrivateKey: U.BIDDER_KEY,
      bidder: U.BIDDER_ADDRESS,
      aesKey: hex(U.AES_KEY),
      providerKeys: [eciesPublicKeyOf(hex(U.ECIES_KEY_2))],
    });
    expect(bytesToHex(openKeyExchange(sealed, { bidder: U.BIDDER_ADDRESS, eciesPrivateKey: hex(U.ECIES_KEY_2) }))).toBe(
      U.AES_KEY,
    );
  });
  test("timestamp text: five fields", () => {
    expect(parseTimestampMessage(V.aesPlaintext)).toBe(1700000000);
    expect(() => parseTimestampMessage("mev-commit bidder x setup")).toThrow(KeyExchangeError);
    expect(() => parseTimestampMessage("mev-commit bidder x setup soon")).toThrow("invalid timestamp");
  });
});

describe("bids and commitments", () => {
  const domains = () => protocolDomains(U.CHAIN_ID, U.PRECONF_MANAGER);

  test("an upstream bidder's encrypted bid decrypts, re-encodes byte for byte and verifies", () => {
    const bid = decryptBid(hex(U.AES_KEY), fromBinary(EncryptedBidSchema, hex(V.encryptedBid)), V11);
    expect(bytesToHex(toBinary(BidSchema, bidToMessage(bid)))).toBe(V.bidMessage);
    expect(bid.bid.txHashes).toEqual(["0549fc7c57fffbdbfb2cf9d5e0de165fc68dadb5c27c42fdad0bdf506f4eacae", "1a2b"]);
    expect(bid.bid.revertingTxHashes).toEqual([]);
    expect(bid.bid.amount).toBe(10n ** 18n);
    expect(verifyBid(bid, domains().bid)).toBe(U.BIDDER_ADDRESS);
  });
  test("our commitment to it is upstream's EncryptedPreConfirmation, and the bidder's check passes", () => {
    const bid = decryptBid(hex(U.AES_KEY), fromBinary(EncryptedBidSchema, hex(V.encryptedBid)), V11);
    const c = signCommitment({
      signedBid: bid,
      providerPrivateKey: U.PROVIDER_KEY,
      providerNikeSecret: U.PROVIDER_NIKE_SECRET,
      commitmentDomain: domains().commitment,
      dispatchTimestamp: V.dispatchTimestamp,
    });
    const msg = commitmentToMessage(c);
    expect(bytesToHex(toBinary(EncryptedPreConfirmationSchema, msg))).toBe(V.encryptedPreConfirmation);
    const reply = commitmentFromMessage(fromBinary(EncryptedPreConfirmationSchema, hex(V.encryptedPreConfirmation)));
    const verified = verifyCommitment({
      signedBid: bid,
      bidderNikeSecret: V.bidNikeSecret,
      providerNikePublicKey: publicKeyOf(U.PROVIDER_NIKE_SECRET),
      digest: reply.digest,
      signature: reply.signature,
      commitmentDomain: domains().commitment,
    });
    expect(verified.providerAddress).toBe(U.PROVIDER_ADDRESS);
    expect(reply.dispatchTimestamp).toBe(V.dispatchTimestamp);
  });
  test("v1.1's bid bytes are the pinned wire's: the v1.2 field 12 is absent, and empty options encode the same", () => {
    const bid = decryptBid(hex(U.AES_KEY), fromBinary(EncryptedBidSchema, hex(V.encryptedBid)), V11);
    expect(bid.bid.bidOptions).toBeUndefined();
    const empty = { ...bid, bid: { ...bid.bid, bidOptions: new Uint8Array(0) } };
    expect(bytesToHex(toBinary(BidSchema, bidToMessage(empty)))).toBe(V.bidMessage);
  });
  test("v1.2 bid options are field 12 (tag 0x62), read back only by a v1.2 node", () => {
    const bid = decryptBid(hex(U.AES_KEY), fromBinary(EncryptedBidSchema, hex(V.encryptedBid)), V11);
    const options = hex("0a080a0608011001180a");
    const withOptions = { ...bid, bid: { ...bid.bid, bidOptions: options } };
    const bytes = toBinary(BidSchema, bidToMessage(withOptions));
    expect(bytesToHex(bytes)).toBe(`${V.bidMessage}620a${bytesToHex(options)}`);
    expect(bidFromMessage(fromBinary(BidSchema, bytes), rulesOf("v1.2")).bid.bidOptions).toEqual(options);
    expect(bidFromMessage(fromBinary(BidSchema, bytes), rulesOf("v1.1")).bid.bidOptions).toBeUndefined();
    expect(bidFromMessage(fromBinary(BidSchema, hex(V.bidMessage)), rulesOf("v1.2")).bid.bidOptions).toEqual(
      new Uint8Array(0),
    );
  });
  test("a bid sealed under another key does not open", () => {
    const bid = decryptBid(hex(U.AES_KEY), fromBinary(EncryptedBidSchema, hex(V.encryptedBid)), V11);
    const other = encryptBid(hex("11".repeat(32)), bid);
    expect(() => decryptBid(hex(U.AES_KEY), other, V11)).toThrow(AesGcmError);
    expect(decryptBid(hex("11".repeat(32)), other, V11).digest).toEqual(bid.digest);
  });
});

describe("identity and discovery", () => {
  test("the node key is the peer ID (go-libp2p's string) and names the node's address", () => {
    expect(peerIdOf(U.PROVIDER_KEY).toString()).toBe(V.peerId);
    expect(ethAddressOfPeer(V.peerId)).toBe(U.PROVIDER_ADDRESS);
  });
  test("a peer list is upstream's bytes, underlay as go-libp2p's AddrInfo JSON", () => {
    const list = peerList([
      { address: U.PROVIDER_ADDRESS, underlay: { id: V.peerId, addrs: ["/ip4/127.0.0.1/tcp/25001"] } },
    ]);
    expect(bytesToHex(toBinary(PeerListSchema, list))).toBe(V.peerList);
    expect(peersOf(fromBinary(PeerListSchema, hex(V.peerList)))).toEqual([
      { address: U.PROVIDER_ADDRESS, underlay: decodeUnderlay(utf8(V.underlay)) },
    ]);
  });
});
