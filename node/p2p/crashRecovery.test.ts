/**
 * A node that dies on a libp2p network (Libp2pNetwork.crash: connections aborted, no goodbye) and a new run of it
 * with the same key on another port: its peers see the old run gone at once, the bootnode announces the new run at
 * the address it gives in identify (not its previous run's, which the peer store still held), and the bidder hands
 * the new run its key again, so bids reach it. Generous deadlines: a loaded machine must pass too.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { signBid } from "../protocol/bidSigning.ts";
import { initCrypto } from "../protocol/initCrypto.ts";
import { rulesOf } from "../protocol/rules.ts";
import { committingProvider } from "../testing/committingProvider.ts";
import { Libp2pPeers, sampleBid } from "../testing/libp2pPeers.ts";
import { TEST_DOMAINS, TEST_KEYS } from "../testing/testIdentities.ts";
import { setLogSink } from "../util/log.ts";
import type { Libp2pNetwork } from "./libp2pNetwork.ts";

setLogSink(() => {});

const peers = new Libp2pPeers(rulesOf("v1.1"));
const make = (key: `0x${string}`, peerType: "bootnode" | "bidder" | "provider", bootnodes: string[] = []) =>
  peers.node(key, peerType, { bootnodes, bootstrapIntervalMs: 500 });
const committing = () => committingProvider({ dispatchTimestamp: 7n });
const port = (addrs: string[]) => Number(/\/tcp\/(\d+)/.exec(addrs[0] ?? "")?.[1]);

let boot: Libp2pNetwork, bidder: Libp2pNetwork, provider: Libp2pNetwork;

beforeAll(async () => {
  await initCrypto();
  boot = make(TEST_KEYS.bootnode, "bootnode");
  await boot.start();
  provider = make(TEST_KEYS.provider, "provider", boot.multiaddrs());
  bidder = make(TEST_KEYS.bidder, "bidder", boot.multiaddrs());
  await provider.connectProvider(committing());
  await bidder.connectBidder();
  await bidder.waitFor(() => bidder.providers().length === 1, 20_000, "the provider");
}, 30_000);

afterAll(() => peers.stopAll());

test("a provider that crashes is gone for its peers at once; its next run, on another port, is found and gets bids", async () => {
  const oldPort = port(provider.multiaddrs());
  await provider.crash();
  await bidder.waitFor(() => bidder.providers().length === 0, 20_000, "the bidder to see the dead provider gone");
  await boot.waitFor(() => boot.providers().length === 0, 20_000, "the bootnode to see the dead provider gone");

  const next = make(TEST_KEYS.provider, "provider", boot.multiaddrs());
  await next.connectProvider(committing());
  expect(port(next.multiaddrs())).not.toBe(oldPort);
  await bidder.waitFor(() => bidder.providers().length === 1, 20_000, "the bidder to find the provider's next run");
  // The bid is sealed with the bidder's key, which the new run can only have from a new key exchange.
  const { signedBid } = signBid(
    sampleBid({ txHashes: ["bb".repeat(32)], blockNumber: 9n }),
    TEST_KEYS.bidder,
    TEST_DOMAINS.bid,
  );
  const reply = await bidder.providers()[0]!.handleBid(signedBid, bidder.address, AbortSignal.timeout(20_000));
  expect(reply.dispatchTimestamp).toBe(7n);
}, 60_000);
