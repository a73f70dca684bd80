import { type Address, createPublicClient, createTestClient, type Hex, http, zeroAddress } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { logger } from "../util/log.ts";
import { SerialQueue } from "../util/serial.ts";
import { WinnerSchedule } from "./winnerSchedule.ts";

export interface MinedBlock {
  number: bigint;
  hash: Hex;
  winner: Address;
  timestamp: bigint;
}

/** Runs before a block is mined, with the block's number and winner: the winner's builder sends its bundle. */
export type BeforeMineHook = (blockNumber: bigint, winner: Address) => Promise<void>;
/** Runs after a block is mined; `mine` resolves only when every hook is done (deterministic tests). */
export type AfterMineHook = (block: MinedBlock) => Promise<void>;

export class L1DriverError extends MevCommitError {}

/**
 * Mines L1 blocks on an Anvil chain with manual mining: on an interval, or on request. Before each block it picks
 * the winning provider and sets it as the block's coinbase.
 */
export class L1BlockDriver {
  readonly schedule: WinnerSchedule;
  private readonly queue = new SerialQueue();
  private readonly test;
  private readonly client;
  private readonly before: BeforeMineHook[] = [];
  private readonly after: AfterMineHook[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly log = logger("l1");

  /**
   * Least time (ms) between two blocks, however fast they are asked for (default 0). Foreign nodes learn blocks by
   * polling: a winner must get to open its commitments before later blocks let the bidder open them, and before its
   * block is more than upstream's 10 blocks behind (it then skips it), as with real block times.
   */
  minIntervalMs = 0;
  private lastMinedAt = 0;

  constructor(rpcUrl: string, providers: Address[]) {
    const transport = http(rpcUrl, { retryCount: 0 });
    this.test = createTestClient({ mode: "anvil", transport });
    this.client = createPublicClient({ transport });
    this.schedule = new WinnerSchedule(providers);
  }

  onBeforeMine(hook: BeforeMineHook): void {
    this.before.push(hook);
  }

  onAfterMine(hook: AfterMineHook): void {
    this.after.push(hook);
  }

  async blockNumber(): Promise<bigint> {
    return this.client.getBlockNumber({ cacheTime: 0 });
  }

  /** Mines n blocks one by one; `winner` names the winner of the first of them. */
  mine(n = 1, winner?: Address): Promise<MinedBlock[]> {
    return this.queue.run(async () => {
      if (winner) this.schedule.setNextWinner(winner);
      const out: MinedBlock[] = [];
      for (let i = 0; i < n; i++) out.push(await this.mineOne());
      return out;
    });
  }

  private async mineOne(): Promise<MinedBlock> {
    const wait = this.lastMinedAt + this.minIntervalMs - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    const number = (await this.blockNumber()) + 1n;
    const winner = this.schedule.take() ?? zeroAddress;
    await this.test.setCoinbase({ address: winner });
    for (const hook of this.before) await hook(number, winner);
    await this.test.mine({ blocks: 1 });
    const block = await this.client.getBlock({ blockNumber: number });
    if (block.miner.toLowerCase() !== winner.toLowerCase())
      throw new L1DriverError(`block ${number} was mined with coinbase ${block.miner}, expected ${winner}`);
    this.lastMinedAt = performance.now();
    const mined: MinedBlock = { number, hash: block.hash!, winner, timestamp: block.timestamp };
    this.log.debug("mined", { block: number, winner, txs: block.transactions.length });
    for (const hook of this.after) await hook(mined);
    return mined;
  }

  /** Seconds between the blocks mined on their own (0: only when asked). */
  get intervalSeconds(): number {
    return this.timer ? this.interval : 0;
  }
  private interval = 0;

  /** Mines a block every `seconds` (0 = never) until stop(). */
  startInterval(seconds: number): void {
    this.stopInterval();
    if (seconds <= 0) return;
    this.interval = seconds;
    this.timer = setInterval(() => {
      this.mine(1).catch((e) => this.log.error("interval mining failed", { error: e }));
    }, seconds * 1000);
  }

  stopInterval(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Waits for in-flight mining to finish. */
  async drain(): Promise<void> {
    await this.queue.run(async () => {});
  }
}
