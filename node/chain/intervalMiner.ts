import { logger } from "../util/log.ts";

/**
 * Mines a block on a local chain every `intervalMs` (evm_mine), start to start, one request at a time.
 *
 * Why not Anvil's own `--block-time`: Anvil 1.7.1 raises the number of past states it keeps in memory to 1,500 when
 * the block time is under 2 s, whatever `--prune-history N` says, and each kept state is a copy of the whole state:
 * under load its memory grew by ~0.8 MB a block and kept growing (docs/performance.md). Mined from outside, the
 * chain keeps exactly the states `--prune-history` asks for.
 */
export class IntervalMiner {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private failures = 0;
  private readonly log = logger("miner");

  constructor(
    private readonly rpcUrl: string,
    private readonly intervalMs: number,
    private readonly name: string,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(this.intervalMs);
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    const started = performance.now();
    try {
      const r = await fetch(this.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "evm_mine", params: [] }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await r.json()) as { error?: { message: string } };
      if (body.error) throw new Error(body.error.message);
      if (this.failures) this.log.info("mining again", { chain: this.name, after: this.failures });
      this.failures = 0;
    } catch (e) {
      // The chain is stopping, or stalled for a moment: try again at the next tick; say so once.
      if (this.running && this.failures++ === 0) this.log.warn("mining a block failed; retrying every interval", { chain: this.name, error: (e as Error).message });
    }
    this.schedule(Math.max(0, this.intervalMs - (performance.now() - started)));
  }
}
