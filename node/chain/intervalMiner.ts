import { logger } from "../util/log.ts";
import type { MinerCommand, MinerReport } from "./intervalMinerWorker.ts";

/**
 * Mines a block on a local chain every `intervalMs` (evm_mine), start to start, one request at a time, from a
 * thread of its own (intervalMinerWorker.ts): the chain's clock must not wait on the event loop of the process that
 * started it, which under load is busy with every node's bids (a timer and an HTTP answer there can each wait
 * behind hundreds of bids' work).
 *
 * Why not Anvil's own `--block-time`: Anvil 1.7.1 raises the number of past states it keeps in memory to 1,500 when
 * the block time is under 2 s, whatever `--prune-history N` says, and each kept state is a copy of the whole state:
 * under load its memory grew by ~0.8 MB a block and kept growing (docs/performance.md). Mined from outside, the
 * chain keeps exactly the states `--prune-history` asks for.
 *
 * With `idleIntervalMs`, an interval with no pending transaction mines nothing unless the last block is that old: an
 * in-memory Anvil keeps every block (~4 KiB each, `npm run bench:anvil-memory`), so a devnet left idle at a block
 * every 200 ms would grow by ~70 MiB an hour for empty blocks alone.
 */
export class IntervalMiner {
  private worker: Worker | undefined;
  private readonly log = logger("miner");

  constructor(
    private readonly rpcUrl: string,
    private readonly intervalMs: number,
    private readonly name: string,
    private readonly idleIntervalMs?: number,
  ) {}

  start(): void {
    if (this.worker) return;
    const w = new Worker(new URL("./intervalMinerWorker.ts", import.meta.url).href);
    w.onmessage = (e: MessageEvent<MinerReport>) => {
      if ("failed" in e.data)
        this.log.warn("mining a block failed; retrying every interval", { chain: this.name, error: e.data.failed });
      else this.log.info("mining again", { chain: this.name, after: e.data.recovered });
    };
    w.unref();
    w.postMessage({
      start: { rpcUrl: this.rpcUrl, intervalMs: this.intervalMs, idleIntervalMs: this.idleIntervalMs },
    } satisfies MinerCommand);
    this.worker = w;
  }

  async stop(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (!w) return;
    w.postMessage({ stop: true } satisfies MinerCommand);
    w.terminate();
  }
}
