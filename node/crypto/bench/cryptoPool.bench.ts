/**
 * The bid-path crypto on the event loop's thread vs on a worker pool, with no I/O:
 * `bun node/crypto/bench/cryptoPool.bench.ts [bids] [in flight]`. For each setting it runs the crypto of `bids`
 * bids with two providers (bidder signs, each provider verifies and signs, the bidder verifies each commitment)
 * through the BidCrypto interface, `in flight` bids at once, and prints commitments/s, the process's CPU per
 * commitment and the calling thread's busy share (what is left for the rest of a node's work).
 */
import os from "node:os";
import { readFileSync } from "node:fs";
import { initCrypto } from "../../protocol/initCrypto.ts";
import { randomKeyPair } from "../../protocol/bn254.ts";
import { protocolDomains } from "../../protocol/digest.ts";
import { devAccount } from "../../chain/accounts.ts";
import type { Bid } from "../../protocol/types.ts";
import { inlineCrypto, type BidCrypto } from "../bidCrypto.ts";
import { CryptoPool } from "../cryptoPool.ts";

const BIDS = Number(process.argv[2] ?? 2000);
const IN_FLIGHT = Number(process.argv[3] ?? 32);
await initCrypto();
const domains = protocolDomains(17864n, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
const bidderKey = devAccount(0).privateKey;
const providers = [1, 2].map((i) => ({ key: devAccount(i).privateKey, address: devAccount(i).address, nike: randomKeyPair() }));
const now = BigInt(Date.now());

async function oneBid(c: BidCrypto, i: number): Promise<void> {
  const bid: Bid = {
    txHashes: [(BigInt(i) * 0x9e3779b97f4a7c15n + 1n).toString(16).padStart(64, "0").slice(-64)],
    rawTransactions: [],
    amount: 1_000_000_000n + BigInt(i),
    blockNumber: 100n,
    decayStartTimestamp: now,
    decayEndTimestamp: now + 12_000n,
    revertingTxHashes: [],
    slashAmount: 0n,
  };
  const { signedBid, nikeSecret } = await c.signBid(bid, bidderKey, domains.bid);
  await Promise.all(
    providers.map(async (p) => {
      await c.verifyBid(signedBid, domains.bid);
      const m = await c.signCommitment({ signedBid, providerPrivateKey: p.key, providerNikeSecret: p.nike.secret, commitmentDomain: domains.commitment, dispatchTimestamp: now, providerAddress: p.address });
      await c.verifyCommitment({ signedBid, bidderNikeSecret: nikeSecret, providerNikePublicKey: p.nike.publicKey, digest: m.digest, signature: m.signature, commitmentDomain: domains.commitment });
    }),
  );
}

/** CPU time (user + system) of this process's main thread so far, ms (Linux: /proc/self/task/<pid>/stat). */
function mainThreadCpuMs(): number {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

async function measure(name: string, c: BidCrypto): Promise<void> {
  for (let i = 0; i < 50; i++) await oneBid(c, i); // warm-up
  let next = 0;
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpuMs();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < BIDS) await oneBid(c, next++);
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const main = mainThreadCpuMs() - main0;
  const commitments = BIDS * providers.length;
  console.log(
    `${name.padEnd(18)} ${(commitments / wall).toFixed(0).padStart(6)} commitments/s; process CPU ${((cpu.user + cpu.system) / 1000 / commitments).toFixed(2)} ms per commitment; ` +
      `calling thread ${(main / commitments).toFixed(2)} ms per commitment; load average ${os.loadavg()[0]!.toFixed(2)}`,
  );
}

console.log(`${BIDS} bids × ${providers.length} providers, ${IN_FLIGHT} bids in flight, ${os.availableParallelism()} cores`);
await measure("event loop", inlineCrypto);
for (const n of [1, 2]) {
  const pool = new CryptoPool(n);
  await measure(`pool of ${n}`, pool);
  pool.close();
}
