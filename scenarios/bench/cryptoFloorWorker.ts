/** A worker of the crypto floor (cryptoFloor.ts): runs the crypto of bids for `ms` and answers how many. */
import { bidCrypto } from "./cryptoWork.ts";

declare const self: Worker;

self.onmessage = async (e: MessageEvent<{ providers: number; ms: number }>) => {
  const work = await bidCrypto(e.data.providers);
  for (let i = 0; i < 20; i++) work.run(i); // warm-up: JIT, wasm tables
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < e.data.ms) work.run(n++);
  self.postMessage({ bids: n, ms: performance.now() - t0 });
};
