import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "viem";
import type { PeerEvent } from "../network/network.ts";
import { signBid } from "../protocol/bidSigning.ts";
import { publicKeyOf } from "../protocol/bn254.ts";
import { signCommitment, verifyCommitment } from "../protocol/commitmentSigning.ts";
import { protocolDomains } from "../protocol/digest.ts";
import { FailedPreconditionError } from "../protocol/grpcCodes.ts";
import { initCrypto } from "../protocol/initCrypto.ts";
import type { Bid } from "../protocol/types.ts";
import { until } from "../util/deadline.ts";
import { setLogSink } from "../util/log.ts";
import { Libp2pNetwork } from "./libp2pNetwork.ts";
import type { WarmStreams } from "./warmStreams.ts";
import { PRECONFIRMATION, protocolId } from "./wire/protocolIds.ts";
import { PeerStatusError } from "./wire/streamMsg.ts";

/** Four nodes on loopback: a bootnode, a bidder, a staked provider and one without stake. */
const KEYS = {
  bootnode: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9ad8cfee0ab8c",
  bidder: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  provider: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  unstaked: "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
} as const;
const domains = protocolDomains(17864n, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
const NIKE = 987654321n;

/** The bidder's pool of streams opened ahead to its one provider (private: the test reaches into it). */
const warmOf = (n: Libp2pNetwork): WarmStreams => {
  const peers = (n as unknown as { peers: Map<string, { type: string; warm?: WarmStreams }> }).peers;
  const warm = [...peers.values()].find((p) => p.type === "provider")?.warm;
  if (!warm) throw new Error("no streams opened ahead yet");
  return warm;
};

const logs: string[] = [];
setLogSink((line) => logs.push(line));

let staked: Set<string>;
const nets: Libp2pNetwork[] = [];
const make = (key: `0x${string}`, peerType: "bootnode" | "bidder" | "provider", bootnodes: string[] = []) => {
  const n = new Libp2pNetwork({
    nodeKey: key,
    peerType,
    listen: ["/ip4/127.0.0.1/tcp/0"],
    bootnodes,
    isStaked: async (a: Address) => staked.has(a.toLowerCase()),
  });
  nets.push(n);
  return n;
};
const bid = (): Bid => ({
  txHashes: ["aa".repeat(32)],
  rawTransactions: [],
  amount: 10n ** 15n,
  blockNumber: 7n,
  decayStartTimestamp: 1n,
  decayEndTimestamp: 2n,
  revertingTxHashes: [],
  slashAmount: 0n,
});

let boot: Libp2pNetwork, bidder: Libp2pNetwork, provider: Libp2pNetwork;
const bidderEvents: [string, PeerEvent][] = [];
let reject = false;

beforeAll(async () => {
  await initCrypto();
  boot = make(KEYS.bootnode, "bootnode");
  await boot.start();
  staked = new Set([
    new Libp2pNetwork({
      nodeKey: KEYS.provider,
      peerType: "provider",
      listen: [],
      isStaked: async () => true,
    }).address.toLowerCase(),
  ]);
  provider = make(KEYS.provider, "provider", boot.multiaddrs());
  bidder = make(KEYS.bidder, "bidder", boot.multiaddrs());
  bidder.onPeer((e, p) => bidderEvents.push([e, p]));
  await provider.connectProvider({
    address: provider.address,
    nikePublicKey: publicKeyOf(NIKE),
    handleBid: async (signed) => {
      if (reject) throw new FailedPreconditionError("bid rejected");
      const c = signCommitment({
        signedBid: signed,
        providerPrivateKey: KEYS.provider,
        providerNikeSecret: NIKE,
        commitmentDomain: domains.commitment,
        dispatchTimestamp: 42n,
      });
      return { digest: c.digest, signature: c.signature, dispatchTimestamp: 42n };
    },
  });
  await bidder.connectBidder(bidder.address);
}, 30_000);

afterAll(async () => {
  for (const n of nets) await n.stop();
});

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
    const { signedBid, nikeSecret } = signBid(bid(), KEYS.bidder, domains.bid);
    const p = bidder.providers()[0]!;
    const reply = await p.handleBid(signedBid, bidder.address, new AbortController().signal);
    const v = verifyCommitment({
      signedBid,
      bidderNikeSecret: nikeSecret,
      providerNikePublicKey: p.nikePublicKey,
      digest: reply.digest,
      signature: reply.signature,
      commitmentDomain: domains.commitment,
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
    const { signedBid } = signBid(bid(), KEYS.bidder, domains.bid);
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
    const { signedBid } = signBid(bid(), KEYS.bidder, domains.bid);
    const reply = await bidder.providers()[0]!.handleBid(signedBid, bidder.address, new AbortController().signal);
    expect(reply.dispatchTimestamp).toBe(42n);
  }, 30_000);

  test("a provider's refusal comes back as its status", async () => {
    reject = true;
    try {
      const { signedBid } = signBid(bid(), KEYS.bidder, domains.bid);
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
    const unstaked = make(KEYS.unstaked, "provider", boot.multiaddrs());
    await unstaked.connectProvider({
      address: unstaked.address,
      nikePublicKey: publicKeyOf(5n),
      handleBid: async () => {
        throw new Error("unused");
      },
    });
    // Straight to the bidder as well as through the bootnode: both check the stake and hang up.
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

  test("a provider that leaves is reported disconnected, and found again when it comes back", async () => {
    await provider.disconnectProvider(provider.address);
    // Deadlines that hold on a loaded 2-core machine; the waits end at the peer event, not at the deadline.
    await bidder.waitFor(() => bidder.providers().length === 0, 20_000, "the provider to leave");
    expect(bidderEvents.at(-1)).toEqual(["disconnected", { type: "provider", address: provider.address }]);
    await provider.connectProvider({
      address: provider.address,
      nikePublicKey: publicKeyOf(NIKE),
      handleBid: async () => {
        throw new FailedPreconditionError("bid rejected");
      },
    });
    await bidder.waitFor(() => bidder.providers().length === 1, 30_000, "the provider to come back");
    expect(bidderEvents.at(-1)).toEqual(["connected", { type: "provider", address: provider.address }]);
  }, 60_000);
});
