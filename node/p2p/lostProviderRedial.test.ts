// A bidder whose link to a provider dies (a partition, a dropped connection) while both stay connected to the
// bootnode: nobody announces the provider again, so the bidder must dial it again itself. The fault soak found a
// bidder that never got a provider back after such a drop (docs/fault-soak.md).
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Libp2p } from "libp2p";
import { initCrypto } from "../protocol/initCrypto.ts";
import { rulesOf } from "../protocol/rules.ts";
import { committingProvider } from "../testing/committingProvider.ts";
import { Libp2pPeers } from "../testing/libp2pPeers.ts";
import { TEST_KEYS } from "../testing/testIdentities.ts";
import { setLogSink } from "../util/log.ts";
import type { Libp2pNetwork } from "./libp2pNetwork.ts";

const logs: string[] = [];
setLogSink((line) => logs.push(line));

const peers = new Libp2pPeers(rulesOf("v1.1"));
let boot: Libp2pNetwork, bidder: Libp2pNetwork, provider: Libp2pNetwork;
/** The node's libp2p host (private: the test drops a link the way the network would). */
const hostOf = (n: Libp2pNetwork) => (n as unknown as { host: Libp2p }).host;

beforeAll(async () => {
  await initCrypto();
  boot = peers.node(TEST_KEYS.bootnode, "bootnode");
  await boot.start();
  provider = peers.node(TEST_KEYS.provider, "provider", { bootnodes: boot.multiaddrs(), bootstrapIntervalMs: 300 });
  bidder = peers.node(TEST_KEYS.bidder, "bidder", { bootnodes: boot.multiaddrs(), bootstrapIntervalMs: 300 });
  await provider.connectProvider(committingProvider());
  await bidder.connectBidder(bidder.address);
  await bidder.waitFor(() => bidder.providers().length === 1, 20_000, "the provider");
}, 30_000);

afterAll(() => peers.stopAll());

test("a provider whose link to the bidder dropped is dialled again, while the bootnode announces nobody", async () => {
  await hostOf(provider).hangUp(hostOf(bidder).peerId);
  await bidder.waitFor(() => bidder.providers().length === 0, 20_000, "the link to drop");
  // Both still hold their link to the bootnode: no peer list names the provider to the bidder again.
  expect(boot.providers().map((p) => p.address)).toEqual([provider.address]);
  await bidder.waitFor(() => bidder.providers().length === 1, 20_000, "the provider to be dialled again");
  expect(logs.some((l) => l.includes("dialling a lost provider again"))).toBe(true);
}, 60_000);
