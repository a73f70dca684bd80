import type { Abi, Address, Log, PublicClient } from "viem";
import { decodeEventLog } from "viem";
import { logger } from "../util/log.ts";
import type { NodeStore } from "../store/db.ts";

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
      const head = await this.o.client.getBlockNumber({ cacheTime: 0 });
      if (head > this.cursor) {
        const from = this.cursor + 1n;
        const to = head - from > 2000n ? from + 2000n : head;
        const logs = await this.o.client.getLogs({ address: this.o.contracts.map((c) => c.address), fromBlock: from, toBlock: to });
        for (const l of logs) await this.dispatch(l);
        this.cursor = to;
        if (this.o.store && this.o.cursorKey) this.o.store.setKv(this.o.cursorKey, to.toString());
      }
    } catch (e) {
      this.log.warn("event poll failed; retrying", { error: e });
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
