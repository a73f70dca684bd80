import type { Abi, AbiEvent, Address, Hex, Log, PublicClient, RpcLog } from "viem";
import { formatLog, toEventSelector, toHex } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import type { NodeStore } from "../store/db.ts";
import { BoundedMap } from "../util/boundedMap.ts";
import { logger } from "../util/log.ts";
import { type EventArgs, eventDecoder } from "./eventDecoder.ts";

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

/** Most blocks one eth_getLogs asks for. */
const MAX_SPAN = 2000n;
/** How long an event handler may run before the follower warns that it holds every later event back. */
const SLOW_HANDLER_MS = 10_000;
/** Answers in a row after which a range shrunk by failures is doubled again. */
const GROW_AFTER = 16;

/** An eth_getLogs that failed; the follower asks again for fewer blocks (already logged where it was caught). */
export class GetLogsError extends MevCommitError {
  constructor(
    readonly from: bigint,
    readonly to: bigint,
    cause: unknown,
  ) {
    super(
      `eth_getLogs for blocks ${from}–${to} failed: ${cause instanceof Error ? cause.message.split("\n")[0] : String(cause)}`,
      { cause, context: { from, to } },
    );
  }
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
 * Arguments of the logs decoded lately, shared by the followers of one process: the nodes of an in-process devnet
 * (bidder, providers, oracle) each read the same commitment events, and decoding is most of a follower's work.
 * Keyed by block hash and log index (a log of a block that was replaced is another key); handlers only read args.
 */
const decodedLogs = new BoundedMap<string, EventArgs>(8192);

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
  /** The cursor the store held when this follower was made: the last block the previous run handled. */
  private readonly savedCursor: bigint | undefined;
  private readonly log = logger("events");
  /**
   * Blocks per eth_getLogs. Halved whenever a query fails: an answer too large for the client or the server (tens of
   * MB under sustained load; public RPC servers refuse more than N results) would otherwise fail on the same range
   * for ever, and the follower would never move on. Grows back after GROW_AFTER answers in a row.
   */
  private span = MAX_SPAN;
  private answersInRow = 0;
  /** Per contract (lower-case address), each event's ABI by its topic 0: a log is decoded against its one event. */
  private readonly events = new Map<string, Map<Hex, AbiEvent>>();
  private readonly decoders = new Map<AbiEvent, (log: { topics: readonly Hex[]; data: Hex }) => EventArgs>();

  constructor(private readonly o: EventPollerOptions) {
    for (const c of o.contracts) {
      const bySelector = new Map<Hex, AbiEvent>();
      for (const item of c.abi)
        if (item.type === "event" && !item.anonymous) bySelector.set(toEventSelector(item), item);
      this.events.set(c.address.toLowerCase(), bySelector);
    }
    const saved = o.store && o.cursorKey ? o.store.getKv(o.cursorKey) : undefined;
    this.cursor = saved ? BigInt(saved) : -1n;
    this.savedCursor = saved ? BigInt(saved) : undefined;
  }

  on(eventName: string, handler: EventHandler): () => void {
    const list = this.handlers.get(eventName) ?? [];
    list.push(handler);
    this.handlers.set(eventName, list);
    return () => {
      const l = this.handlers.get(eventName);
      if (l)
        this.handlers.set(
          eventName,
          l.filter((h) => h !== handler),
        );
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
    // Whether the chain still has the block the last run handled last, as it was: the check is of that block (the
    // saved cursor), whatever rewindTo asked for since (the settler looks at the last blocks again at every start).
    const savedHash = this.o.store && this.o.cursorKey ? this.o.store.getKv(`${this.o.cursorKey}.hash`) : undefined;
    const saved = this.savedCursor;
    if (savedHash && saved !== undefined && saved >= 0n) {
      // The chain restarted from a state dump that lacks our last blocks, or it mined again past our cursor meanwhile
      // (interval mining), so the block there is another one: the blocks before it may hold events we never saw.
      const block =
        saved <= head ? await this.o.client.getBlock({ blockNumber: saved }).catch(() => undefined) : undefined;
      if (block?.hash !== savedHash) {
        const last = saved < head ? saved : head;
        const back = last > REWIND_ON_DIVERGENCE ? last - REWIND_ON_DIVERGENCE : -1n;
        // Expected after a restart from a state dump taken before our last blocks (a kill, or a torn dump): info.
        this.log.info(
          saved > head
            ? "the chain is shorter than when this node stopped (it came back from an older state dump): handling its last blocks again"
            : "the chain's block where this node stopped is another one now (the chain came back from an older state dump and mined again): handling its last blocks again",
          { from: back + 1n, lastHandled: saved, head },
        );
        if (back < this.cursor) this.cursor = back;
      }
    }
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
      const before = this.cursor;
      if (this.busy) await new Promise<void>((r) => this.waiters.add(r));
      else await this.tick();
      // A poll that failed: wait as the follower does, instead of asking the chain again at once, in a tight loop.
      if (this.cursor === before) await Bun.sleep(this.o.intervalMs ?? 100);
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
      // The head's number alone (a full block under load is hundreds of transaction hashes, read every poll).
      const head = await this.o.client.getBlockNumber({ cacheTime: 0 });
      if (head > this.cursor) {
        const from = this.cursor + 1n;
        const to = head - from >= this.span ? from + this.span - 1n : head;
        const logs = await this.getLogs(from, to).catch((e: unknown) => {
          this.answersInRow = 0;
          // Half of what was asked: with a short chain the span may be far above the blocks there are.
          const asked = to - from + 1n;
          this.span = asked > 1n ? asked / 2n : 1n;
          // A follower stopped while its query was in flight (its chain stopping too) has nothing to warn about.
          (this.running ? this.log.warn : this.log.debug).call(
            this.log,
            "eth_getLogs failed; asking again for fewer blocks at a time",
            { from, to, blocks: this.span, error: e },
          );
          throw new GetLogsError(from, to, e);
        });
        if (++this.answersInRow >= GROW_AFTER && this.span < MAX_SPAN) {
          this.span = this.span * 2n > MAX_SPAN ? MAX_SPAN : this.span * 2n;
          this.answersInRow = 0;
        }
        // The cursor's block hash, for the divergence check at the next start: from a log of that block if one came.
        const hash = hashOfBlock(logs, to) ?? (await this.o.client.getBlock({ blockNumber: to })).hash;
        const events = logs.map((l) => this.decode(l)).filter((e) => e !== undefined);
        await this.handle(events, () => {
          this.cursor = to;
          if (this.o.store && this.o.cursorKey) {
            this.o.store.setKv(this.o.cursorKey, to.toString());
            if (hash) this.o.store.setKv(`${this.o.cursorKey}.hash`, hash);
          }
        });
      }
    } catch (e) {
      // A follower stopped mid-poll (its node stopped or was killed, its store closed) retries nothing.
      if (e instanceof GetLogsError) {
        // logged where it failed
      } else if (this.running) this.log.warn("event poll failed; retrying", { error: e });
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

  /**
   * The logs of the followed contracts in `from`..`to`, only of the events someone follows (topic 0 among theirs):
   * under load the commitment events nobody in this node follows are most of the bytes (tens of MB a range).
   */
  private async getLogs(from: bigint, to: bigint): Promise<Log[]> {
    const selectors: Hex[] = [];
    for (const byTopic of this.events.values())
      for (const [topic, item] of byTopic)
        if (this.handlers.get(item.name)?.length && !selectors.includes(topic)) selectors.push(topic);
    if (!selectors.length) return [];
    const raw = await this.o.client.request({
      method: "eth_getLogs",
      params: [
        {
          address: this.o.contracts.map((c) => c.address),
          fromBlock: toHex(from),
          toBlock: toHex(to),
          topics: [selectors],
        },
      ],
    });
    return (raw as RpcLog[]).map((l) => formatLog(l));
  }

  private decode(l: Log): ChainEvent | undefined {
    const item = l.topics[0] && this.events.get(l.address.toLowerCase())?.get(l.topics[0]);
    // Not a protocol contract, an event we do not know, or one nobody follows: not decoded at all.
    if (!item || !this.handlers.get(item.name)?.length) return undefined;
    const key = `${l.blockHash}:${l.logIndex}:${item.name}`;
    let args = decodedLogs.get(key);
    if (args === undefined) {
      let decode = this.decoders.get(item);
      if (!decode) this.decoders.set(item, (decode = eventDecoder(item)));
      try {
        args = decode(l);
      } catch {
        return undefined; // a log that does not fit its event's ABI
      }
      if (l.blockHash) decodedLogs.set(key, args);
    }
    return {
      address: l.address,
      eventName: item.name,
      args: args as Record<string, unknown>,
      blockNumber: l.blockNumber!,
      logIndex: l.logIndex!,
      transactionHash: l.transactionHash!,
    };
  }

  /**
   * Runs the handlers of `events` in order, then `done` (the cursor). The store's writes of handlers that return
   * at once share one transaction (a block's hundreds of UnopenedCommitmentStored events: one commit, not
   * hundreds); it is committed before any handler that returns a promise is awaited, so no other code's write
   * (a commitment a bid path acknowledges next) ever lands in a transaction still open.
   */
  private async handle(events: ChainEvent[], done: () => void): Promise<void> {
    const db = this.o.store?.db;
    let open = false;
    const commit = () => {
      if (open) db!.exec("COMMIT");
      open = false;
    };
    try {
      for (const event of events)
        for (const h of this.handlers.get(event.eventName) ?? []) {
          if (db && !open && !db.inTransaction) {
            db.exec("BEGIN");
            open = true;
          }
          let result;
          try {
            result = h(event);
          } catch (e) {
            this.log.error("event handler failed", { event: event.eventName, error: e });
          }
          if (result instanceof Promise) {
            commit();
            // Every later event waits for this handler: one that never returns stops the node's view of the chain.
            const slow = setTimeout(
              () =>
                this.log.warn("event handler still running; later events wait for it", {
                  event: event.eventName,
                  block: event.blockNumber,
                  seconds: SLOW_HANDLER_MS / 1000,
                }),
              SLOW_HANDLER_MS,
            );
            await result
              .catch((e) => this.log.error("event handler failed", { event: event.eventName, error: e }))
              .finally(() => clearTimeout(slow));
          }
        }
      done();
      commit();
    } finally {
      if (open && db!.inTransaction) db!.exec("ROLLBACK");
    }
  }
}

/** The hash of block `n` as the logs of a range ending there carry it, if one of them is in that block. */
function hashOfBlock(logs: Log[], n: bigint): Hex | undefined {
  for (let i = logs.length - 1; i >= 0; i--) {
    const l = logs[i]!;
    if (l.blockNumber === n && l.blockHash) return l.blockHash;
    if (l.blockNumber !== null && l.blockNumber < n) return undefined;
  }
  return undefined;
}
