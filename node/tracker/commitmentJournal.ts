import type { AppendLog } from "../store/appendLog.ts";
import type { NodeStore } from "../store/db.ts";
import { logger } from "../util/log.ts";
import type { CommitmentRecord } from "./record.ts";

/**
 * How long a journaled commitment waits for others before they go into SQLite together. Each SQLite commit appends
 * every page it touched to the WAL (one row touches the table and each of its five indexes; rows committed together
 * share many of those pages), so one commit per 100 ms instead of per 10 ms, with one bid in flight: the event loop's
 * CPU per bid 6.3–6.5 → 5.7–6.3 ms, first commitment p50 4.7–5.0 → 4.0–4.4 ms (three alternating pairs;
 * docs/performance.md). A read of the table, or of a commitment still in the journal, applies the journal first, so
 * nothing waits for this.
 */
export const JOURNAL_APPLY_MS = 100;
/** The journal is emptied once everything in it is in SQLite and it has grown past this. */
const JOURNAL_CLEAR_BYTES = 1 << 20;

const BIGINT_FIELDS = [
  "bidAmount",
  "blockNumber",
  "decayStart",
  "decayEnd",
  "dispatchTimestamp",
  "slashAmount",
  "bidderPkX",
  "bidderPkY",
  "sharedX",
  "sharedY",
] as const satisfies readonly (keyof CommitmentRecord)[];

/** A copy with its bigints as decimal strings, then a plain JSON.stringify (with a replacer function: 10.7 µs, not 6.7). */
export function recordToLine(r: CommitmentRecord): string {
  const o: Record<string, unknown> = { ...r };
  for (const k of BIGINT_FIELDS) o[k] = r[k].toString();
  return JSON.stringify(o);
}

export function recordFromLine(line: string): CommitmentRecord {
  const r = JSON.parse(line) as Record<string, unknown>;
  for (const k of BIGINT_FIELDS) r[k] = BigInt(r[k] as string);
  return r as unknown as CommitmentRecord;
}

/**
 * Makes a new commitment durable before SQLite has it. A commitment in a transaction of its own cost the bid path a
 * SQLite commit (~0.1–0.25 ms of the event loop, four per bid with two providers); a line appended to a file is as
 * durable (both are in the operating system's page cache when the call returns: a SIGKILL loses neither) and costs a
 * write(2). The commitments then go into SQLite together, JOURNAL_APPLY_MS later or before anything reads the table
 * (the store calls `apply` first; a read of one commitment, when `holds` says the journal has it), so every read sees
 * every acknowledged commitment. At start the journal is replayed (an insert of a commitment already there is ignored)
 * and emptied.
 */
export class CommitmentJournal {
  private readonly log = logger("commitment-journal");
  private pending: CommitmentRecord[] = [];
  /** Inserted inside someone else's transaction, not yet by one of ours (see `apply`). */
  private provisional: CommitmentRecord[] = [];
  /** The digests and commitment indexes of `pending` and `provisional`: what a read of one commitment may miss. */
  private readonly heldKeys = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private dead = false;

  constructor(
    private readonly file: AppendLog,
    private readonly store: NodeStore,
    private readonly insert: (r: CommitmentRecord) => void,
  ) {
    const lines = file.lines();
    if (lines.length) {
      const records: CommitmentRecord[] = [];
      for (const line of lines) {
        try {
          records.push(recordFromLine(line));
        } catch {
          // unreadable: counted below
        }
      }
      this.insertAll(records);
      this.log.info("commitments replayed from the journal", {
        lines: lines.length,
        unreadable: lines.length - records.length,
        file: file.path,
      });
    }
    file.clear();
    store.onClose(() => this.close());
  }

  /** Durable when it returns (throws if the line cannot be written); in SQLite within JOURNAL_APPLY_MS. */
  add(r: CommitmentRecord): void {
    this.file.append(recordToLine(r));
    this.pending.push(r);
    this.heldKeys.add(r.digest);
    this.heldKeys.add(r.commitmentIndex);
    this.applySoon(JOURNAL_APPLY_MS);
  }

  private applySoon(ms: number): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      try {
        this.apply();
      } catch (e) {
        // Still in the journal and in memory: the next read or this timer again (a second later) tries again.
        this.log.error("journaled commitments not applied to SQLite", { error: e });
        this.applySoon(1_000);
      }
    }, ms);
  }

  /**
   * Whether SQLite may lack the commitment with this digest or commitment index (it is journaled and not yet inserted
   * by a transaction of ours). A read of one commitment applies the journal only then: the tracker's status updates,
   * inside an event poll's or a group commit's transaction, would otherwise insert the newest commitments there as
   * provisional and again in the journal's own transaction.
   */
  holds(key: string): boolean {
    return this.heldKeys.has(key);
  }

  /**
   * Puts the journaled commitments into SQLite. Inside a transaction someone else holds (a group commit, an event
   * poll) they are inserted for that transaction's reads but the journal keeps them as provisional: that transaction
   * may yet roll back, so only an insert of our own, committed, lets the journal forget them. A later call inside a
   * transaction inserts only what came since (a block's hundreds of status updates in one poll would otherwise insert
   * the same few again each time); if the transaction that took them rolled back, they are back in SQLite at the next
   * call outside one, within JOURNAL_APPLY_MS.
   */
  apply(): void {
    if (this.dead || this.store.isClosed || (!this.pending.length && !this.provisional.length)) return;
    if (this.store.db.inTransaction) {
      for (const r of this.pending) this.insert(r);
      this.provisional.push(...this.pending);
      this.pending = [];
      return;
    }
    this.insertAll([...this.provisional, ...this.pending]);
    this.pending = [];
    this.provisional = [];
    this.heldKeys.clear();
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.file.size > JOURNAL_CLEAR_BYTES) this.file.clear();
  }

  /** Inserts `records` in one transaction of their own. */
  private insertAll(records: CommitmentRecord[]): void {
    this.store.db.transaction(() => {
      for (const r of records) this.insert(r);
    })();
  }

  /** A clean stop: everything into SQLite, the journal emptied. */
  close(): void {
    if (this.dead) return;
    try {
      this.apply();
      if (!this.pending.length && !this.provisional.length) this.file.clear();
    } finally {
      this.halt();
    }
  }

  /**
   * The node dies as a SIGKILL would end it: nothing more reaches SQLite, the journal stays as it is for the node that
   * starts next on this store to replay.
   */
  crash(): void {
    this.halt();
  }

  private halt(): void {
    this.dead = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = [];
    this.provisional = [];
    this.heldKeys.clear();
    this.file.close();
  }
}
