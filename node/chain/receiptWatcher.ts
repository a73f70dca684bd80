import {
  formatTransactionReceipt,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
  WaitForTransactionReceiptTimeoutError,
} from "viem";
import { logger } from "../util/log.ts";

/** How often the head is polled while some transaction is awaited. */
const POLL_MS = 20;
/** A transaction awaited longer than this is also looked up on its own (a block the watcher skipped). */
const LOOKUP_AFTER_MS = 2_000;
/** The most blocks read back when the watcher was idle for a while. */
const MAX_BEHIND = 64n;

interface Waiter {
  resolve: (r: TransactionReceipt) => void;
  reject: (e: Error) => void;
  since: number;
  deadline: number;
}

/**
 * The receipts of the transactions a process awaits on one chain, learnt block by block: while anything is awaited
 * it polls the head every 20 ms and reads each new block's receipts in one call (eth_getBlockReceipts), whatever the
 * number of transactions waiting, instead of one eth_getTransactionReceipt poll per transaction. A transaction
 * awaited for more than 2 s is also looked up on its own, so a block read too early or skipped cannot strand it.
 */
export class ReceiptWatcher {
  private readonly waiting = new Map<string, Waiter>();
  private seen: bigint | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private busy = false;
  /** Hashes of the blocks read lately, to notice a chain that went back. */
  private readonly hashes = new Map<bigint, string>();
  private readonly log = logger("receipts");

  constructor(private readonly client: PublicClient) {}

  /** The chain's head as last seen (undefined before the first look). */
  get head(): bigint | undefined {
    return this.seen;
  }

  /** Remembers the current head, so that every later block is read; call before sending the first transaction. */
  async init(): Promise<void> {
    if (this.seen === undefined) this.seen = await this.client.getBlockNumber({ cacheTime: 0 });
  }

  /** Resolves with the receipt of `hash` once a block includes it; rejects after `timeoutMs`. */
  wait(hash: Hex, timeoutMs: number): Promise<TransactionReceipt> {
    const key = hash.toLowerCase();
    return new Promise((resolve, reject) => {
      const now = performance.now();
      const prior = this.waiting.get(key);
      this.waiting.set(key, {
        resolve: (r) => {
          prior?.resolve(r);
          resolve(r);
        },
        reject: (e) => {
          prior?.reject(e);
          reject(e);
        },
        since: now,
        deadline: now + timeoutMs,
      });
      this.schedule(0);
    });
  }

  private schedule(ms: number): void {
    if (this.timer || this.busy || !this.waiting.size) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.tick();
    }, ms);
  }

  private async tick(): Promise<void> {
    this.busy = true;
    try {
      const latest = await this.client.getBlock({ blockTag: "latest" });
      const head = latest.number!;
      let seen = this.seen === undefined || this.seen > head ? head - 1n : this.seen;
      // The chain went back (a test's evm_revert, a restart from an older state dump) and may have mined again up to
      // where we were: read again from where it differs.
      if (seen === head && this.hashes.get(head) !== latest.hash) seen = head - 1n;
      // Back from idle after many blocks: a transaction awaited now was sent recently; older blocks are skipped
      // (the look-up of overdue transactions covers any exception).
      if (head - seen > MAX_BEHIND) seen = head - MAX_BEHIND;
      while (seen < head && this.waiting.size) {
        const n: bigint = seen + 1n;
        const [block, receipts] = await Promise.all([
          this.client.getBlock({ blockNumber: n }),
          this.client.request({ method: "eth_getBlockReceipts", params: [`0x${n.toString(16)}`] } as never) as Promise<
            Parameters<typeof formatTransactionReceipt>[0][] | null
          >,
        ]);
        const parent = this.hashes.get(seen);
        if (parent !== undefined && block.parentHash !== parent && seen > 0n && head - seen < MAX_BEHIND) {
          // Block `seen` is not the one we read: step back and read it again.
          this.hashes.delete(seen);
          seen--;
          continue;
        }
        for (const raw of receipts ?? []) if (raw.blockHash === block.hash) this.settle(formatTransactionReceipt(raw));
        this.hashes.set(n, block.hash!);
        this.hashes.delete(n - MAX_BEHIND);
        this.seen = seen = n;
      }
      await this.lookUpOverdue();
    } catch (e) {
      this.log.debug("reading receipts failed; retrying", { error: e });
    } finally {
      this.busy = false;
      this.expire();
      this.schedule(POLL_MS);
    }
  }

  private settle(r: TransactionReceipt): void {
    const key = r.transactionHash.toLowerCase();
    const w = this.waiting.get(key);
    if (!w) return;
    this.waiting.delete(key);
    w.resolve(r);
  }

  private async lookUpOverdue(): Promise<void> {
    const now = performance.now();
    const overdue = [...this.waiting].filter(([, w]) => now - w.since > LOOKUP_AFTER_MS).slice(0, 16);
    await Promise.all(
      overdue.map(async ([hash, w]) => {
        w.since = now; // once per LOOKUP_AFTER_MS
        const r = await this.client.getTransactionReceipt({ hash: hash as Hex }).catch(() => undefined);
        if (r) this.settle(r);
      }),
    );
  }

  private expire(): void {
    const now = performance.now();
    for (const [hash, w] of this.waiting)
      if (now >= w.deadline) {
        this.waiting.delete(hash);
        w.reject(new WaitForTransactionReceiptTimeoutError({ hash: hash as Hex }));
      }
  }
}
