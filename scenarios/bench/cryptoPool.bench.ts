/**
 * The bid-path crypto on the event loop's thread vs on a worker pool, with no I/O:
 * `bun scenarios/bench/cryptoPool.bench.ts [bids] [in flight]`. For each setting it runs the crypto of `bids`
 * bids with two providers (bidder signs, each provider verifies and signs, the bidder verifies each commitment)
 * through the BidCrypto interface, `in flight` bids at once, and prints commitments/s, the process's CPU per
 * commitment and the calling thread's busy share (what is left for the rest of a node's work).
 */
import os from "node:os";
import { type BidCrypto, inlineCrypto } from "../../node/crypto/bidCrypto.ts";
import { CryptoPool } from "../../node/crypto/cryptoPool.ts";
import { bidCryptoVia } from "./cryptoWork.ts";
import { mainThreadCpuMs } from "./health.ts";

const BIDS = Number(process.argv[2] ?? 2000);
const IN_FLIGHT = Number(process.argv[3] ?? 32);
const PROVIDERS = 2;
const oneBid = await bidCryptoVia(PROVIDERS);

async function measure(name: string, c: BidCrypto): Promise<void> {
  for (let i = 0; i < 50; i++) await oneBid(c, i); // warm-up
  let next = 0;
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpuMs() ?? NaN;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < BIDS) await oneBid(c, next++);
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const main = (mainThreadCpuMs() ?? NaN) - main0;
  const commitments = BIDS * PROVIDERS;
  console.log(
    `${name.padEnd(18)} ${(commitments / wall).toFixed(0).padStart(6)} commitments/s; process CPU ${((cpu.user + cpu.system) / 1000 / commitments).toFixed(2)} ms per commitment; ` +
      `calling thread ${(main / commitments).toFixed(2)} ms per commitment; load average ${os.loadavg()[0]!.toFixed(2)}`,
  );
}

console.log(`${BIDS} bids × ${PROVIDERS} providers, ${IN_FLIGHT} bids in flight, ${os.availableParallelism()} cores`);
// The pool's workers are unref'd (they must not keep a node's process alive). On Bun 1.4.5 an event loop held by
// nothing but promises that unref'd workers settle does not sleep: it spins at ~95 % of a core until the answers
// come, which takes that core from the workers and makes the pool look costly. A
// node always has its servers holding its loop; this timer stands in for them.
const hold = setInterval(() => {}, 60_000);
await measure("event loop", inlineCrypto);
for (const n of [1, 2]) {
  const pool = new CryptoPool(n);
  await measure(`pool of ${n}`, pool);
  pool.close();
}
clearInterval(hold);
