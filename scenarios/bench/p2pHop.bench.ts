/**
 * The libp2p hop alone: `bun scenarios/bench/p2pHop.bench.ts [--bids N] [--in-flight C]`. A bootnode, a bidder and
 * two providers (Libp2pNetwork on loopback, one event loop, as in the devnet) whose providers answer every bid at
 * once with a fixed commitment: no application, no commitment signing, no chain. Each bid is signed once and sent
 * to both providers; it prints both replies' p50/p99, the process's CPU per bid, and the socket writes and bytes
 * per bid (what the libp2p stack costs per frame). Profile it with `bun --cpu-prof --cpu-prof-dir=DIR …` and
 * scenarios/bench/profileAreas.ts.
 */
import net from "node:net";
import os from "node:os";
import { exitOnCliErrors, integerFlag, parseCliArgs } from "../../lib/cli.ts";
import type { CommitmentReply } from "../../node/network/network.ts";
import { signBid } from "../../node/protocol/bidSigning.ts";
import { publicKeyOf } from "../../node/protocol/bn254.ts";
import { initCrypto } from "../../node/protocol/initCrypto.ts";
import { DEFAULT_PROTOCOL_VERSION } from "../../node/protocol/protocolVersion.ts";
import { rulesOf } from "../../node/protocol/rules.ts";
import { Libp2pPeers, sampleBid } from "../../node/testing/libp2pPeers.ts";
import { TEST_DOMAINS, TEST_KEYS } from "../../node/testing/testIdentities.ts";
import { setLogSink } from "../../node/util/log.ts";
import { pct } from "./common.ts";

exitOnCliErrors();
const { values } = parseCliArgs({
  options: {
    bids: { type: "string", default: "2000" },
    "in-flight": { type: "string", default: "1,8" },
    warmup: { type: "string", default: "100" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log("Usage: bun scenarios/bench/p2pHop.bench.ts [--bids N] [--in-flight 1,8] [--warmup W]");
  process.exit(0);
}
const N = integerFlag("bids", values.bids!);
const LEVELS = values["in-flight"]!.split(",").map((v) => integerFlag("in-flight", v.trim()));
const WARMUP = integerFlag("warmup", values.warmup!);

setLogSink(() => {});
await initCrypto();

let writes = 0;
let bytes = 0;
const write = net.Socket.prototype.write;
net.Socket.prototype.write = function (this: net.Socket, ...args: Parameters<net.Socket["write"]>) {
  writes++;
  bytes += (args[0] as Uint8Array).length ?? 0;
  return write.apply(this, args);
} as net.Socket["write"];

const peers = new Libp2pPeers(rulesOf(DEFAULT_PROTOCOL_VERSION));
const boot = peers.node(TEST_KEYS.bootnode, "bootnode");
await boot.start();
const bidder = peers.node(TEST_KEYS.bidder, "bidder", { bootnodes: boot.multiaddrs() });
const providers = [TEST_KEYS.provider, TEST_KEYS.otherProvider].map((key) =>
  peers.node(key, "provider", { bootnodes: boot.multiaddrs() }),
);
const reply: CommitmentReply = {
  digest: new Uint8Array(32).fill(1),
  signature: new Uint8Array(65).fill(2),
  dispatchTimestamp: 1n,
};
for (const p of providers)
  await p.connectProvider({ address: p.address, nikePublicKey: publicKeyOf(5n), handleBid: async () => reply });
await bidder.connectBidder();
await bidder.waitFor(() => bidder.providers().length === providers.length, 30_000, "the providers");

const { signedBid } = signBid(sampleBid(), TEST_KEYS.bidder, TEST_DOMAINS.bid);
const oneBid = () =>
  Promise.all(bidder.providers().map((p) => p.handleBid(signedBid, bidder.address, AbortSignal.timeout(10_000))));

for (let i = 0; i < WARMUP; i++) await oneBid();
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
for (const inFlight of LEVELS) {
  await Bun.sleep(200);
  writes = 0;
  bytes = 0;
  const latencies: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < N) {
        const t = performance.now();
        await oneBid();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  latencies.sort((a, b) => a - b);
  console.log(
    `${inFlight} in flight, ${N} bids to ${providers.length} providers: both replies p50 ${pct(latencies, 50).toFixed(2)} ms, ` +
      `p99 ${pct(latencies, 99).toFixed(2)} ms; ${(N / seconds).toFixed(0)} bids/s; CPU ${((cpu.user + cpu.system) / 1000 / N).toFixed(2)} ms per bid; ` +
      `${(writes / N).toFixed(1)} socket writes and ${(bytes / N).toFixed(0)} bytes per bid; load average ${load()}`,
  );
}
await peers.stopAll();
process.exit(0);
