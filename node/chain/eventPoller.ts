import type { Abi, Address, Log, PublicClient } from "viem";
import { decodeEventLog } from "viem";
import { logger } from "../util/log.ts";
import type { NodeStore } from "../store/db.ts";

/**
 * Blocks handled again when the chain's history changed under a saved cursor (a restart from a state dump older
 * than the cursor, with blocks mined again since): more than a dump interval's worth of blocks at any block time.
 */
const REWIND_ON_DIVERGENCE = 512n;

/** A decoded contract event as subscribers receive it. */
export interface ChainEvent {
  address: Address;
  eventName: string;
  args: Record<string, unknown>;
  blockNumber: bigint;
  logIndex: number;
  transactionHash: string;
}

export type EventHandler = (e: ChainEvent) => void | Promise<void>;

export interface EventPollerOptions {
  client: PublicClient;
  /** The contracts to follow, each with the ABI its logs are decoded with. */
  contracts: { address: Address; abi: Abi }[];
  /** Where the cursor is kept, so a restart resumes after the last handled block (each node has its own). */
  store?: NodeStore;
  cursorKey?: string;
  intervalMs?: number;
}

/**
 * Follows the settlement chain's contract logs in block order and hands each decoded event to the handlers
 * subscribed to its name. Handlers run one at a time, in log order; the cursor advances only after a block range
 * was fully handled, so nothing is skipped across a crash (a handler may see an event twice after a restart and
 * must be idempotent).
 */
export class EventPoller {
  private readonly handlers = new Map<string, EventHandler[]>();
  private readonly waiters = new Set<() => void>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private cursor: bigint;
  private readonly log = logger("events");

  constructor(private readonly o: EventPollerOptions) {
    const saved = o.store && o.cursorKey ? o.store.getKv(o.cursorKey) : undefined;
    this.cursor = saved ? BigInt(saved) : -1n;
  }

  on(eventName: string, handler: EventHandler): () => void {
    const list = this.handlers.get(eventName) ?? [];
    list.push(handler);
    this.handlers.set(eventName, list);
    return () => {
      const l = this.handlers.get(eventName);
      if (l) this.handlers.set(eventName, l.filter((h) => h !== handler));
    };
  }

  /** The last block whose events were all handled. */
  get handledThrough(): bigint {
    return this.cursor;
  }

  /** Starts following from the saved cursor, or from `fromBlock` (default: the first block) on a first start. */
  async start(fromBlock?: bigint): Promise<void> {
    const head = await this.o.client.getBlockNumber({ cacheTime: 0 });
    if (this.cursor < 0n) this.cursor = (fromBlock ?? 0n) - 1n;
    // The chain restarted from a state dump that lacks our last blocks: follow the chain's new history from there.
    if (this.cursor > head) this.cursor = head;
    // It may also have mined again past our cursor meanwhile (interval mining): the block at the cursor is then
    // another one, and the blocks before it may hold events we never saw. Handle them again (handlers are idempotent).
    const savedHash = this.o.store && this.o.cursorKey ? this.o.store.getKv(`${this.o.cursorKey}.hash`) : undefined;
    if (savedHash && this.cursor >= 0n) {
      const block = await this.o.client.getBlock({ blockNumber: this.cursor }).catch(() => undefined);
      if (block?.hash !== savedHash) {
        const back = this.cursor > REWIND_ON_DIVERGENCE ? this.cursor - REWIND_ON_DIVERGENCE : -1n;
        this.log.warn("the chain's history changed since the last run; handling its last blocks again", { from: back + 1n, cursor: this.cursor });
        this.cursor = back;
      }
    }
    this.running = true;
    this.schedule(0);
  }

  /** Handles events again from `block` on (after a restart, to re-check what the chain may have lost). */
  rewindTo(block: bigint): void {
    if (block - 1n < this.cursor) this.cursor = block - 1n;
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Handles everything up to the chain's current head now (tests and request handlers use it to be up to date). */
  async sync(): Promise<void> {
    const head = await this.o.client.getBlockNumber({ cacheTime: 0 });
    while (this.cursor < head) {
      if (this.busy) await new Promise<void>((r) => this.waiters.add(r));
      else await this.tick();
    }
  }

  private busy = false;

  private schedule(ms: number): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const latest = await this.o.client.getBlock({ blockTag: "latest" });
      const head = latest.number!;
      if (head > this.cursor) {
        const from = this.cursor + 1n;
        const to = head - from > 2000n ? from + 2000n : head;
        const logs = await this.o.client.getLogs({ address: this.o.contracts.map((c) => c.address), fromBlock: from, toBlock: to });
        for (const l of logs) await this.dispatch(l);
        this.cursor = to;
        if (this.o.store && this.o.cursorKey) {
          const hash = to === head ? latest.hash : (await this.o.client.getBlock({ blockNumber: to })).hash;
          this.o.store.setKv(this.o.cursorKey, to.toString());
          if (hash) this.o.store.setKv(`${this.o.cursorKey}.hash`, hash);
        }
      }
    } catch (e) {
      // A follower stopped mid-poll (its node stopped or was killed, its store closed) retries nothing.
      if (this.running) this.log.warn("event poll failed; retrying", { error: e });
      else this.log.debug("event poll ended by the stop", { error: e });
    } finally {
      this.busy = false;
      for (const w of [...this.waiters]) {
        this.waiters.delete(w);
        w();
      }
      this.schedule(this.o.intervalMs ?? 100);
    }
  }

  private async dispatch(l: Log): Promise<void> {
    const contract = this.o.contracts.find((c) => c.address.toLowerCase() === l.address.toLowerCase());
    if (!contract) return;
    let decoded;
    try {
      decoded = decodeEventLog({ abi: contract.abi, data: l.data, topics: l.topics });
    } catch {
      return; // an event we do not follow
    }
    const handlers = this.handlers.get(decoded.eventName!);
    if (!handlers?.length) return;
    const event: ChainEvent = {
      address: l.address,
      eventName: decoded.eventName!,
      args: (decoded.args ?? {}) as Record<string, unknown>,
      blockNumber: l.blockNumber!,
      logIndex: l.logIndex!,
      transactionHash: l.transactionHash!,
    };
    for (const h of handlers) {
      try {
        await h(event);
      } catch (e) {
        this.log.error("event handler failed", { event: event.eventName, error: e });
      }
    }
  }
}
