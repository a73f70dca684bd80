/**
 * A node that dies on a libp2p network (Libp2pNetwork.crash: connections aborted, no goodbye) and a new run of it
 * with the same key on another port: its peers see the old run gone at once, the bootnode announces the new run at
 * the address it gives in identify (not its previous run's, which the peer store still held), and the bidder hands
 * the new run its key again, so bids reach it. Generous deadlines: a loaded machine must pass too.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { ProviderPeer } from "../network/network.ts";
import { signBid } from "../protocol/bidSigning.ts";
import { publicKeyOf } from "../protocol/bn254.ts";
import { signCommitment } from "../protocol/commitmentSigning.ts";
import { protocolDomains } from "../protocol/digest.ts";
import { initCrypto } from "../protocol/initCrypto.ts";
import { setLogSink } from "../util/log.ts";
import { Libp2pNetwork } from "./libp2pNetwork.ts";

const KEYS = {
  bootnode: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9ad8cfee0ab8c",
  bidder: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  provider: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
} as const;
const domains = protocolDomains(17864n, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
const NIKE = 987654321n;
setLogSink(() => {});

const nets: Libp2pNetwork[] = [];
const make = (key: `0x${string}`, peerType: "bootnode" | "bidder" | "provider", bootnodes: string[] = []) => {
  const n = new Libp2pNetwork({
    nodeKey: key,
    peerType,
    listen: ["/ip4/127.0.0.1/tcp/0"],
    bootnodes,
    isStaked: async () => true,
    bootstrapIntervalMs: 500,
  });
  nets.push(n);
  return n;
};
const peer = (n: Libp2pNetwork): ProviderPeer => ({
  address: n.address,
  nikePublicKey: publicKeyOf(NIKE),
  handleBid: async (signedBid) => {
    const c = signCommitment({
      signedBid,
      providerPrivateKey: KEYS.provider,
      providerNikeSecret: NIKE,
      commitmentDomain: domains.commitment,
      dispatchTimestamp: 7n,
    });
    return { digest: c.digest, signature: c.signature, dispatchTimestamp: 7n };
  },
});
const port = (addrs: string[]) => Number(/\/tcp\/(\d+)/.exec(addrs[0] ?? "")?.[1]);

let boot: Libp2pNetwork, bidder: Libp2pNetwork, provider: Libp2pNetwork;

beforeAll(async () => {
  await initCrypto();
  boot = make(KEYS.bootnode, "bootnode");
  await boot.start();
  provider = make(KEYS.provider, "provider", boot.multiaddrs());
  bidder = make(KEYS.bidder, "bidder", boot.multiaddrs());
  await provider.connectProvider(peer(provider));
  await bidder.connectBidder();
  await bidder.waitFor(() => bidder.providers().length === 1, 20_000, "the provider");
}, 30_000);

afterAll(async () => {
  for (const n of nets) await n.stop();
});

test("a provider that crashes is gone for its peers at once; its next run, on another port, is found and gets bids", async () => {
  const oldPort = port(provider.multiaddrs());
  await provider.crash();
  await bidder.waitFor(() => bidder.providers().length === 0, 20_000, "the bidder to see the dead provider gone");
  await boot.waitFor(() => boot.providers().length === 0, 20_000, "the bootnode to see the dead provider gone");

  const next = make(KEYS.provider, "provider", boot.multiaddrs());
  await next.connectProvider(peer(next));
  expect(port(next.multiaddrs())).not.toBe(oldPort);
  await bidder.waitFor(() => bidder.providers().length === 1, 20_000, "the bidder to find the provider's next run");
  // The bid is sealed with the bidder's key, which the new run can only have from a new key exchange.
  const { signedBid } = signBid(
    {
      txHashes: ["bb".repeat(32)],
      rawTransactions: [],
      amount: 10n ** 15n,
      blockNumber: 9n,
      decayStartTimestamp: 1n,
      decayEndTimestamp: 2n,
      revertingTxHashes: [],
      slashAmount: 0n,
    },
    KEYS.bidder,
    domains.bid,
  );
  const reply = await bidder.providers()[0]!.handleBid(signedBid, bidder.address, AbortSignal.timeout(20_000));
  expect(reply.dispatchTimestamp).toBe(7n);
}, 60_000);
