import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "viem";
import { devAccount } from "../chain/accounts.ts";
import type { PeerEvent } from "../network/network.ts";
import { signBid } from "../protocol/bidSigning.ts";
import { publicKeyOf } from "../protocol/bn254.ts";
import { verifyCommitment } from "../protocol/commitmentSigning.ts";
import { FailedPreconditionError } from "../protocol/grpcCodes.ts";
import { initCrypto } from "../protocol/initCrypto.ts";
import { rulesOf } from "../protocol/rules.ts";
import { privateKeyToAddress } from "../protocol/secp256k1.ts";
import { committingProvider } from "../testing/committingProvider.ts";
import { Libp2pPeers, sampleBid } from "../testing/libp2pPeers.ts";
import { TEST_DOMAINS, TEST_KEYS, TEST_NIKE_SECRET } from "../testing/testIdentities.ts";
import { until } from "../util/deadline.ts";
import { setLogSink } from "../util/log.ts";
import type { Libp2pNetwork } from "./libp2pNetwork.ts";
import type { WarmStreams } from "./warmStreams.ts";
import { PRECONFIRMATION, protocolId } from "./wire/protocolIds.ts";
import { PeerStatusError } from "./wire/streamMsg.ts";

/** The bidder's pool of streams opened ahead to its one provider (private: the test reaches into it). */
const warmOf = (n: Libp2pNetwork): WarmStreams => {
  const peers = (n as unknown as { peers: Map<string, { type: string; warm?: WarmStreams }> }).peers;
  const warm = [...peers.values()].find((p) => p.type === "provider")?.warm;
  if (!warm) throw new Error("no streams opened ahead yet");
  return warm;
};

const logs: string[] = [];
setLogSink((line) => logs.push(line));

const staked = new Set([privateKeyToAddress(TEST_KEYS.provider).toLowerCase()]);
/** Four nodes on loopback: a bootnode, a bidder, a staked provider and one without stake. */
const peers = new Libp2pPeers(rulesOf("v1.1"));
const make = (key: `0x${string}`, peerType: "bootnode" | "bidder" | "provider", bootnodes: string[] = []) =>
  peers.node(key, peerType, { bootnodes, isStaked: async (a: Address) => staked.has(a.toLowerCase()) });

let boot: Libp2pNetwork, bidder: Libp2pNetwork, provider: Libp2pNetwork;
const bidderEvents: [string, PeerEvent][] = [];
let reject = false;

beforeAll(async () => {
  await initCrypto();
  boot = make(TEST_KEYS.bootnode, "bootnode");
  await boot.start();
  provider = make(TEST_KEYS.provider, "provider", boot.multiaddrs());
  bidder = make(TEST_KEYS.bidder, "bidder", boot.multiaddrs());
  bidder.onPeer((e, p) => bidderEvents.push([e, p]));
  await provider.connectProvider(
    committingProvider({
      onBid: () => {
        if (reject) throw new FailedPreconditionError("bid rejected");
      },
    }),
  );
  await bidder.connectBidder(bidder.address);
}, 30_000);

afterAll(() => peers.stopAll());

describe("libp2p network of our nodes", () => {
  test("a bidder finds a provider through the bootnode and hands it its key", async () => {
    await bidder.waitFor(() => bidder.providers().length === 1, 10_000, "the provider");
    expect(bidder.providers()[0]!.address).toBe(provider.address);
    expect(
      bidderEvents.filter(([e, p]) => e === "connected" && p.type === "provider").map(([, p]) => p.address),
    ).toEqual([provider.address]);
    await provider.waitFor(() => provider.bidders().length === 1, 5_000, "the bidder");
    expect(provider.bidders()).toEqual([bidder.address]);
  }, 30_000);

  test("a bid travels encrypted and the commitment comes back verified", async () => {
    const { signedBid, nikeSecret } = signBid(sampleBid(), TEST_KEYS.bidder, TEST_DOMAINS.bid);
    const p = bidder.providers()[0]!;
    const reply = await p.handleBid(signedBid, bidder.address, new AbortController().signal);
    const v = verifyCommitment({
      signedBid,
      bidderNikeSecret: nikeSecret,
      providerNikePublicKey: p.nikePublicKey,
      digest: reply.digest,
      signature: reply.signature,
      commitmentDomain: TEST_DOMAINS.commitment,
    });
    expect(v.providerAddress).toBe(provider.address);
    expect(reply.dispatchTimestamp).toBe(42n);
  });

  test("a preconfirmation stream to each provider is open before any bid needs it, and again after a bid", async () => {
    const preconf = protocolId(PRECONFIRMATION);
    const ready = (net: Libp2pNetwork, peer: Address, direction: "inbound" | "outbound") =>
      net.streamsWith(peer).filter((s) => s.protocol === preconf && s.direction === direction).length;
    await until("a stream opened ahead", 10_000, () => ready(bidder, provider.address, "outbound") >= 1);
    await until("the provider serving it", 10_000, () => ready(provider, bidder.address, "inbound") >= 1);
    const { signedBid } = signBid(sampleBid(), TEST_KEYS.bidder, TEST_DOMAINS.bid);
    await bidder.providers()[0]!.handleBid(signedBid, bidder.address, new AbortController().signal);
    await until("a stream opened ahead again", 10_000, () => ready(bidder, provider.address, "outbound") >= 1);
  }, 30_000);

  test("a bid whose stream opened ahead fails as it is written goes once more on a new stream", async () => {
    await until("a stream opened ahead", 10_000, () => warmOf(bidder).readyCount >= 1);
    // The race the bidder cannot see ahead: the provider resets the stream between the take and the write.
    const ready = (warmOf(bidder) as unknown as { ready: { stream: { writeMsg: () => Promise<void> } }[] }).ready;
    for (const r of ready)
      r.stream.writeMsg = async () => {
        throw new Error("stream reset by the provider");
      };
    const { signedBid } = signBid(sampleBid(), TEST_KEYS.bidder, TEST_DOMAINS.bid);
    const reply = await bidder.providers()[0]!.handleBid(signedBid, bidder.address, new AbortController().signal);
    expect(reply.dispatchTimestamp).toBe(42n);
  }, 30_000);

  test("a provider's refusal comes back as its status", async () => {
    reject = true;
    try {
      const { signedBid } = signBid(sampleBid(), TEST_KEYS.bidder, TEST_DOMAINS.bid);
      const err = await bidder
        .providers()[0]!
        .handleBid(signedBid, bidder.address, new AbortController().signal)
        .catch((e) => e);
      expect(err).toBeInstanceOf(PeerStatusError);
      expect((err as PeerStatusError).statusMessage).toBe("bid rejected");
      expect((err as PeerStatusError).code).toBe(9);
    } finally {
      reject = false;
    }
  });

  test("a provider without stake is refused by the bootnode and the bidder", async () => {
    const unstaked = make(TEST_KEYS.otherProvider, "provider", boot.multiaddrs());
    await unstaked.connectProvider({
      address: unstaked.address,
      nikePublicKey: publicKeyOf(5n),
      handleBid: async () => {
        throw new Error("unused");
      },
    });
    // Dialled by hand (an unstaked provider does not dial on its own): both check the stake and hang up.
    expect(await unstaked.connect(boot.multiaddrs()[0]!).catch(() => undefined)).toBeUndefined();
    expect(await unstaked.connect(bidder.multiaddrs()[0]!).catch(() => undefined)).toBeUndefined();
    const refusedBy = (scope: string) =>
      logs.some(
        (l) =>
          l.includes(`[p2p-${scope}] handshake refused`) &&
          l.includes(`insufficient stake: provider ${unstaked.address}`),
      );
    await until("both refusals in the log", 20_000, () => refusedBy("bootnode") && refusedBy("bidder")).catch(() => {});
    expect(refusedBy("bootnode")).toBe(true);
    expect(refusedBy("bidder")).toBe(true);
    expect(unstaked.bidders()).toEqual([]);
    expect(bidder.providers().map((p) => p.address)).toEqual([provider.address]);
    expect(boot.providers().map((p) => p.address)).toEqual([provider.address]);
    await unstaked.stop();
  }, 30_000);

  test("a provider without stake dials nobody until it is staked, then joins at the next bootstrap tick", async () => {
    // Before: it dialled the bootnode at once, was refused and kept out for 2 minutes after it had staked.
    const key = devAccount(12).privateKey;
    const address = privateKeyToAddress(key);
    const late = peers.node(key, "provider", {
      bootnodes: boot.multiaddrs(),
      isStaked: async (a: Address) => staked.has(a.toLowerCase()),
      bootstrapIntervalMs: 500,
    });
    await late.connectProvider({
      address,
      nikePublicKey: publicKeyOf(6n),
      handleBid: async () => {
        throw new Error("unused");
      },
    });
    await until("the wait for stake in the log", 10_000, () =>
      logs.some((l) => l.includes("[p2p-provider] not staked: this provider dials its bootnodes once")),
    );
    await Bun.sleep(1_500);
    expect(logs.some((l) => l.includes(`insufficient stake: provider ${address}`))).toBe(false);
    staked.add(address.toLowerCase());
    await bidder.waitFor(() => bidder.providers().some((p) => p.address === address), 20_000, "the staked provider");
    expect(logs.some((l) => l.includes("[p2p-provider] staked: dialling the bootnodes"))).toBe(true);
    expect(boot.providers().map((p) => p.address)).toContain(address);
    await late.stop();
    await bidder.waitFor(() => !bidder.providers().some((p) => p.address === address), 20_000, "it to leave");
  }, 60_000);

  test("a provider that leaves is reported disconnected, and found again when it comes back", async () => {
    await provider.disconnectProvider(provider.address);
    // Deadlines that hold on a loaded 2-core machine; the waits end at the peer event, not at the deadline.
    await bidder.waitFor(() => bidder.providers().length === 0, 20_000, "the provider to leave");
    expect(bidderEvents.at(-1)).toEqual(["disconnected", { type: "provider", address: provider.address }]);
    await provider.connectProvider({
      address: provider.address,
      nikePublicKey: publicKeyOf(TEST_NIKE_SECRET),
      handleBid: async () => {
        throw new FailedPreconditionError("bid rejected");
      },
    });
    await bidder.waitFor(() => bidder.providers().length === 1, 30_000, "the provider to come back");
    expect(bidderEvents.at(-1)).toEqual(["connected", { type: "provider", address: provider.address }]);
  }, 60_000);
});
