import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "viem";
import { encodeBidOptions } from "../protocol/bidOptions.ts";
import { signBid, verifyBid } from "../protocol/bidSigning.ts";
import { verifyCommitment } from "../protocol/commitmentSigning.ts";
import { initCrypto } from "../protocol/initCrypto.ts";
import type { ProtocolVersion } from "../protocol/protocolVersion.ts";
import { rulesOf } from "../protocol/rules.ts";
import type { Bid, SignedBid } from "../protocol/types.ts";
import { committingProvider } from "../testing/committingProvider.ts";
import { Libp2pPeers, sampleBid } from "../testing/libp2pPeers.ts";
import { TEST_DOMAINS, TEST_KEYS } from "../testing/testIdentities.ts";
import { setLogSink } from "../util/log.ts";
import type { Libp2pNetwork } from "./libp2pNetwork.ts";
import { PeerStatusError } from "./wire/streamMsg.ts";

/**
 * Two real libp2p nodes per pair of protocol versions, on loopback: a bid (with options in v1.2) crosses the wire
 * and is verified by the provider against the digest of its own version; nodes of different versions handshake but
 * refuse each other's bids with a reason logged on both sides.
 */
const OPTIONS = encodeBidOptions({ options: [{ positionConstraint: { anchor: 1, basis: 1, value: 10 } }] });

const logs: string[] = [];
setLogSink((line) => logs.push(line));

interface Pair {
  bidder: Libp2pNetwork;
  provider: Libp2pNetwork;
  /** Bids the provider verified, with the bidder it recovered. */
  received: { bid: SignedBid; bidder: Address }[];
}

const peers = new Libp2pPeers(rulesOf("v1.1"));

async function pair(bidderVersion: ProtocolVersion, providerVersion: ProtocolVersion): Promise<Pair> {
  const received: Pair["received"] = [];
  const provider = peers.node(TEST_KEYS.provider, "provider", { rules: rulesOf(providerVersion) });
  await provider.connectProvider(
    committingProvider({
      onBid: (signed) => received.push({ bid: signed, bidder: verifyBid(signed, TEST_DOMAINS.bid) }),
    }),
  );
  const bidder = peers.node(TEST_KEYS.bidder, "bidder", { rules: rulesOf(bidderVersion) });
  await bidder.connectBidder();
  await bidder.connect(provider.multiaddrs()[0]!);
  await bidder.waitFor(() => bidder.providers().length === 1, 10_000, "the provider");
  return { bidder, provider, received };
}

async function unpair(p: Pair): Promise<void> {
  await p.bidder.stop();
  await p.provider.stop();
}

beforeAll(async () => {
  await initCrypto();
});

afterAll(() => peers.stopAll());

async function sendAndVerify(p: Pair, b: Bid) {
  const { signedBid, nikeSecret } = signBid(b, TEST_KEYS.bidder, TEST_DOMAINS.bid);
  const peer = p.bidder.providers()[0]!;
  const reply = await peer.handleBid(signedBid, p.bidder.address, new AbortController().signal);
  const v = verifyCommitment({
    signedBid,
    bidderNikeSecret: nikeSecret,
    providerNikePublicKey: peer.nikePublicKey,
    digest: reply.digest,
    signature: reply.signature,
    commitmentDomain: TEST_DOMAINS.commitment,
  });
  expect(v.providerAddress).toBe(p.provider.address);
  return p.received.at(-1)!;
}

describe("bids over libp2p per protocol version", () => {
  test("v1.2 to v1.2: bid options cross the wire and enter the provider's digest", async () => {
    const p = await pair("v1.2", "v1.2");
    try {
      const got = await sendAndVerify(p, sampleBid({ bidOptions: OPTIONS }));
      expect(got.bid.bid.bidOptions).toEqual(OPTIONS);
      expect(got.bidder).toBe(p.bidder.address);
      const none = await sendAndVerify(p, sampleBid({ bidOptions: new Uint8Array(0) }));
      expect(none.bid.bid.bidOptions).toEqual(new Uint8Array(0));
    } finally {
      await unpair(p);
    }
  }, 30_000);

  test("v1.1 to v1.1: bids carry no options and keep the v1.1 digest", async () => {
    const p = await pair("v1.1", "v1.1");
    try {
      const got = await sendAndVerify(p, sampleBid());
      expect(got.bid.bid.bidOptions).toBeUndefined();
    } finally {
      await unpair(p);
    }
  }, 30_000);

  for (const [bidderVersion, providerVersion, theirs, ours] of [
    ["v1.1", "v1.2", "3.0.0", "4.0.0"],
    ["v1.2", "v1.1", "4.0.0", "3.0.0"],
  ] as const)
    test(`a ${bidderVersion} bidder and a ${providerVersion} provider handshake, then refuse each bid with a logged reason`, async () => {
      logs.length = 0;
      const p = await pair(bidderVersion, providerVersion);
      try {
        const b = bidderVersion === "v1.2" ? sampleBid({ bidOptions: OPTIONS }) : sampleBid();
        const { signedBid } = signBid(b, TEST_KEYS.bidder, TEST_DOMAINS.bid);
        const peer = p.bidder.providers()[0]!;
        const err = await peer.handleBid(signedBid, p.bidder.address, new AbortController().signal).catch((e) => e);
        expect(err).toBeInstanceOf(PeerStatusError);
        expect((err as PeerStatusError).statusMessage).toBe(
          `preconfirmation protocol mismatch: this provider speaks /mev-commit/preconfirmation/${ours} ` +
            `(protocol ${providerVersion}), the bid came on /mev-commit/preconfirmation/${theirs} (protocol ${bidderVersion})`,
        );
        expect(p.received).toEqual([]);
        const warned = (scope: string) =>
          logs.filter((l) => l.includes("WARN") && l.includes(`[${scope}]`) && l.includes("another protocol version"));
        expect(warned("p2p-provider").length).toBe(1);
        expect(warned("p2p-bidder").length).toBe(1);
        expect(warned("p2p-bidder")[0]).toContain(p.provider.address);
      } finally {
        await unpair(p);
      }
    }, 30_000);
});
