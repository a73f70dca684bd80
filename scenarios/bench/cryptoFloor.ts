/**
 * The crypto floor, measured in the benchmark's own run on the same cores: the bids' signing and verification
 * work (cryptoWork.ts) with no I/O, in one worker per core at once (so other load on the machine lowers the floor
 * as it lowers the achieved figures), and on one core alone (the crypto on one bid's critical path).
 */
import os from "node:os";
import { bidCrypto } from "./cryptoWork.ts";

export interface CryptoFloor {
  cores: number;
  /** Crypto of one bid with every provider, on one core, ms (median of runs on this thread). */
  bidMs: number;
  /** Crypto on the first commitment's path (bid sign, one bid verify, commitment sign, commitment verify), ms. */
  firstCommitmentMs: number;
  /** Commitments per second all cores computed together. */
  commitmentsPerSec: number;
}

async function allCores(providers: number, cores: number, ms: number): Promise<number> {
  const runs = await Promise.all(
    Array.from({ length: cores }, () => {
      const w = new Worker(new URL("./cryptoFloorWorker.ts", import.meta.url).href);
      return new Promise<{ bids: number; ms: number }>((resolve, reject) => {
        w.onmessage = (e) => {
          resolve(e.data);
          w.terminate();
        };
        w.onerror = (e) => reject(new Error(`crypto floor worker: ${e.message}`));
        w.postMessage({ providers, ms });
      });
    }),
  );
  return runs.reduce((s, r) => s + (r.bids * providers * 1000) / r.ms, 0);
}

export async function measureCryptoFloor(providers: number, ms = 1500): Promise<CryptoFloor> {
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  const work = await bidCrypto(providers);
  const one = await bidCrypto(1);
  const times: number[] = [];
  const firsts: number[] = [];
  for (let i = 0; i < 200; i++) {
    let t = performance.now();
    work.run(i);
    times.push(performance.now() - t);
    t = performance.now();
    one.run(i);
    firsts.push(performance.now() - t);
  }
  const median = (v: number[]) => v.sort((a, b) => a - b)[v.length >> 1]!;
  return {
    cores,
    bidMs: median(times.slice(20)),
    firstCommitmentMs: median(firsts.slice(20)),
    commitmentsPerSec: await allCores(providers, cores, ms),
  };
}
