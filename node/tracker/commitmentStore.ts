import type { CommitmentStatus } from "../protocol/types.ts";
import { AppendLog } from "../store/appendLog.ts";
import type { NodeStore } from "../store/db.ts";
import { CommitmentJournal } from "./commitmentJournal.ts";
import type { CommitmentRecord } from "./record.ts";

interface Row {
  digest: string;
  commitment_index: string;
  commitment_signature: string;
  bid_digest: string;
  bid_signature: string;
  bidder: string;
  provider: string;
  txn_hash: string;
  reverting_tx_hashes: string;
  raw_transactions: string;
  bid_amount: string;
  block_number: number;
  decay_start: string;
  decay_end: string;
  dispatch_timestamp: string;
  slash_amount: string;
  bidder_pk_x: string;
  bidder_pk_y: string;
  shared_x: string;
  shared_y: string;
  status: string;
  details: string;
  payment: string;
  refund: string;
  bid_options: string;
}

function toRecord(r: Row): CommitmentRecord {
  return {
    digest: r.digest,
    commitmentIndex: r.commitment_index,
    commitmentSignature: r.commitment_signature,
    bidDigest: r.bid_digest,
    bidSignature: r.bid_signature,
    bidder: r.bidder,
    provider: r.provider,
    txnHash: r.txn_hash,
    revertingTxHashes: r.reverting_tx_hashes,
    rawTransactions: JSON.parse(r.raw_transactions) as string[],
    bidAmount: BigInt(r.bid_amount),
    blockNumber: BigInt(r.block_number),
    decayStart: BigInt(r.decay_start),
    decayEnd: BigInt(r.decay_end),
    dispatchTimestamp: BigInt(r.dispatch_timestamp),
    slashAmount: BigInt(r.slash_amount),
    bidderPkX: BigInt(r.bidder_pk_x),
    bidderPkY: BigInt(r.bidder_pk_y),
    sharedX: BigInt(r.shared_x),
    sharedY: BigInt(r.shared_y),
    status: r.status as CommitmentStatus,
    details: r.details,
    payment: r.payment,
    refund: r.refund,
    // Only a bid with options has the field, as the record was made (v1.1's never have it).
    ...(r.bid_options ? { bidOptions: r.bid_options } : {}),
  };
}

/**
 * The durable record of commitments. A commitment is written before the node acknowledges it (the bidder before
 * it streams the commitment to its client, the provider before it answers the bidder), so nothing acknowledged
 * is lost in a crash: to the journal beside the database file (commitmentJournal.ts), and from there into SQLite
 * with others before anything reads the table.
 */
export class CommitmentStore {
  private readonly insertQ;
  /** Undefined for an in-memory store, whose commitments go straight into SQLite. */
  private readonly journal: CommitmentJournal | undefined;

  constructor(private readonly store: NodeStore) {
    store.migrate(
      "commitments-1",
      `CREATE TABLE commitments (
         digest TEXT PRIMARY KEY,
         commitment_index TEXT NOT NULL,
         commitment_signature TEXT NOT NULL,
         bid_digest TEXT NOT NULL,
         bid_signature TEXT NOT NULL,
         bidder TEXT NOT NULL,
         provider TEXT NOT NULL,
         txn_hash TEXT NOT NULL,
         reverting_tx_hashes TEXT NOT NULL,
         raw_transactions TEXT NOT NULL,
         bid_amount TEXT NOT NULL,
         bid_amount_sort BLOB NOT NULL,
         block_number INTEGER NOT NULL,
         decay_start TEXT NOT NULL,
         decay_end TEXT NOT NULL,
         dispatch_timestamp TEXT NOT NULL,
         slash_amount TEXT NOT NULL,
         bidder_pk_x TEXT NOT NULL,
         bidder_pk_y TEXT NOT NULL,
         shared_x TEXT NOT NULL,
         shared_y TEXT NOT NULL,
         status TEXT NOT NULL,
         details TEXT NOT NULL DEFAULT '',
         payment TEXT NOT NULL DEFAULT '',
         refund TEXT NOT NULL DEFAULT '',
         seq INTEGER NOT NULL
       );
       CREATE INDEX commitments_by_block ON commitments (block_number, bid_amount_sort DESC, digest);
       CREATE INDEX commitments_by_index ON commitments (commitment_index);
       CREATE INDEX commitments_by_status ON commitments (status, block_number);`,
    );
    // Rows are numbered with MAX(seq) + 1: without this index every insert scans the table.
    store.migrate("commitments-2-seq-index", "CREATE INDEX commitments_by_seq ON commitments (seq)");
    store.migrate(
      "commitments-3-bid-options",
      "ALTER TABLE commitments ADD COLUMN bid_options TEXT NOT NULL DEFAULT ''",
    );
    // 1 once a v1.2 provider has given the commitment's amount back to the bidder's balance (providerNode.ts `refund`).
    store.migrate("commitments-4-refunded", "ALTER TABLE commitments ADD COLUMN refunded INTEGER NOT NULL DEFAULT 0");
    this.insertQ = store.db.query(
      `INSERT OR IGNORE INTO commitments (digest, commitment_index, commitment_signature, bid_digest, bid_signature, bidder,
         provider, txn_hash, reverting_tx_hashes, raw_transactions, bid_amount, bid_amount_sort, block_number, decay_start,
         decay_end, dispatch_timestamp, slash_amount, bidder_pk_x, bidder_pk_y, shared_x, shared_y, status, details, payment,
         refund, bid_options, seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
         (SELECT COALESCE(MAX(seq), 0) + 1 FROM commitments))`,
    );
    this.journal =
      store.path === ":memory:"
        ? undefined
        : new CommitmentJournal(new AppendLog(`${store.path}.commitments.log`), store, (r) => this.insert(r));
  }

  /** The database, with every journaled commitment in it first: what reads or updates the table sees them all. */
  private get db() {
    this.journal?.apply();
    return this.store.db;
  }

  /** The database, with the journaled commitment of this digest or commitment index in it if there is one. */
  private dbFor(key: string) {
    if (this.journal?.holds(key)) this.journal.apply();
    return this.store.db;
  }

  /** Records a new commitment; a second insert of the same digest is ignored. */
  insert(r: CommitmentRecord): void {
    this.insertQ.run(
      r.digest,
      r.commitmentIndex,
      r.commitmentSignature,
      r.bidDigest,
      r.bidSignature,
      r.bidder,
      r.provider,
      r.txnHash,
      r.revertingTxHashes,
      JSON.stringify(r.rawTransactions),
      r.bidAmount.toString(),
      amountSortKey(r.bidAmount),
      Number(r.blockNumber),
      r.decayStart.toString(),
      r.decayEnd.toString(),
      r.dispatchTimestamp.toString(),
      r.slashAmount.toString(),
      r.bidderPkX.toString(),
      r.bidderPkY.toString(),
      r.sharedX.toString(),
      r.sharedY.toString(),
      r.status,
      r.details,
      r.payment,
      r.refund,
      r.bidOptions ?? "",
    );
  }

  /**
   * Records a new commitment durably: the bid path awaits it before it acknowledges the commitment. Journaled (then in
   * SQLite with others within JOURNAL_APPLY_MS), or for an in-memory store in the next group commit.
   */
  async record(r: CommitmentRecord): Promise<void> {
    if (this.journal) this.journal.add(r);
    else await this.store.write(() => this.insert(r));
  }

  /** The node dies as a SIGKILL would end it: journaled commitments wait there for the next node on this store. */
  crash(): void {
    this.journal?.crash();
  }

  /** `setStatus` in the next group commit (outcomes that arrive together, e.g. a block's receipts, share it). */
  setStatusSoon(digest: string, status: CommitmentStatus, details?: string): Promise<void> {
    return this.store.write(() => void this.setStatus(digest, status, details));
  }

  get(digest: string): CommitmentRecord | undefined {
    const row = this.dbFor(digest).query<Row, [string]>("SELECT * FROM commitments WHERE digest = ?").get(digest);
    return row ? toRecord(row) : undefined;
  }

  byIndex(index: string): CommitmentRecord | undefined {
    const row = this.dbFor(index)
      .query<Row, [string]>("SELECT * FROM commitments WHERE commitment_index = ?")
      .get(index);
    return row ? toRecord(row) : undefined;
  }

  /**
   * Moves a commitment to `status` if that is progress: pending → stored → opened → settled | slashed, and
   * `failed` only from pending or stored. A late or repeated event never moves a commitment back (upstream can
   * overwrite settled with opened; docs/divergences.md). Returns whether the record changed.
   */
  setStatus(digest: string, status: CommitmentStatus, details?: string): boolean {
    const db = this.dbFor(digest);
    const from = PROGRESS_FROM[status];
    const changed =
      details === undefined
        ? db.query(`UPDATE commitments SET status = ? WHERE digest = ? AND status IN (${from})`).run(status, digest)
        : db
            .query(`UPDATE commitments SET status = ?, details = ? WHERE digest = ? AND status IN (${from})`)
            .run(status, details, digest);
    return changed.changes > 0;
  }

  /** Sets a status regardless of progress: only for reconciling with the chain after a restart. */
  forceStatus(digest: string, status: CommitmentStatus, details: string): void {
    this.dbFor(digest)
      .query("UPDATE commitments SET status = ?, details = ? WHERE digest = ?")
      .run(status, details, digest);
  }

  /** Commitments of one block in a given status, highest bid first. */
  forBlockWithStatus(block: bigint, status: CommitmentStatus): CommitmentRecord[] {
    return this.db
      .query<Row, [number, string]>(
        "SELECT * FROM commitments WHERE block_number = ? AND status = ? ORDER BY bid_amount_sort DESC, digest",
      )
      .all(Number(block), status)
      .map(toRecord);
  }

  /** Commitments not yet settled or slashed (for reconciling with the chain after a restart). */
  unfinished(): CommitmentRecord[] {
    return this.db
      .query<Row, []>(
        "SELECT * FROM commitments WHERE status IN ('pending', 'stored', 'opened', 'failed') ORDER BY seq",
      )
      .all()
      .map(toRecord);
  }

  /**
   * v1.1, the provider's store: what it committed to `bidder`'s bids for `block`, every status (the allowance a
   * committed bid reserved is never released).
   */
  committedForBlock(bidder: string, block: bigint): bigint {
    return sumAmounts(
      this.db
        .query<{ bid_amount: string }, [number, string]>(
          "SELECT bid_amount FROM commitments WHERE block_number = ? AND bidder = ?",
        )
        .all(Number(block), bare(bidder)),
    );
  }

  /**
   * v1.2, the provider's store: what it committed to `bidder`'s bids whose amount has neither left the deposit on chain
   * (opened or settled) nor come back to the bidder's balance (refunded).
   */
  committedUnsettled(bidder: string): bigint {
    return sumAmounts(
      this.db
        .query<{ bid_amount: string }, [string]>(
          `SELECT bid_amount FROM commitments
           WHERE status IN ('pending', 'stored', 'failed') AND refunded = 0 AND bidder = ?`,
        )
        .all(bare(bidder)),
    );
  }

  /** Notes that the commitment's amount went back to the bidder's balance, in the next group commit. */
  markRefunded(digest: string): Promise<void> {
    return this.store.write(() => {
      this.dbFor(digest).query("UPDATE commitments SET refunded = 1 WHERE digest = ?").run(digest);
    });
  }

  setPayment(digest: string, payment: string, refund: string): void {
    this.dbFor(digest)
      .query("UPDATE commitments SET payment = ?, refund = ? WHERE digest = ?")
      .run(payment, refund, digest);
  }

  withStatus(status: CommitmentStatus): CommitmentRecord[] {
    return this.db
      .query<Row, [string]>("SELECT * FROM commitments WHERE status = ? ORDER BY seq")
      .all(status)
      .map(toRecord);
  }

  /** Commitments for one L1 block, highest bid first. */
  forBlock(block: bigint): CommitmentRecord[] {
    return this.db
      .query<Row, [number]>("SELECT * FROM commitments WHERE block_number = ? ORDER BY bid_amount_sort DESC, digest")
      .all(Number(block))
      .map(toRecord);
  }

  /** A page over all commitments: blocks ascending, inside a block highest bid first. */
  page(offset: number, limit: number, block?: bigint): CommitmentRecord[] {
    const where = block === undefined ? "" : "WHERE block_number = ?";
    const args = block === undefined ? [limit, offset] : [Number(block), limit, offset];
    // The offset is walked on the (block, amount, digest) index alone; only the page's rows are read whole.
    return this.db
      .query<Row, number[]>(
        `SELECT c.* FROM (SELECT rowid AS id FROM commitments ${where}
                          ORDER BY block_number, bid_amount_sort DESC, digest LIMIT ? OFFSET ?) p
         JOIN commitments c ON c.rowid = p.id
         ORDER BY c.block_number, c.bid_amount_sort DESC, c.digest`,
      )
      .all(...args)
      .map(toRecord);
  }

  count(): number {
    return this.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM commitments").get()!.n;
  }
}

const RANK: Record<CommitmentStatus, number> = { pending: 0, failed: 1, stored: 2, opened: 3, settled: 4, slashed: 4 };

function isProgress(from: CommitmentStatus, to: CommitmentStatus): boolean {
  if (to === "failed") return from === "pending" || from === "stored";
  return RANK[to] > RANK[from];
}

/** Per target status, the statuses it is progress from, as a SQL list: a status update is one conditional UPDATE. */
const PROGRESS_FROM = Object.fromEntries(
  (Object.keys(RANK) as CommitmentStatus[]).map((to) => [
    to,
    (Object.keys(RANK) as CommitmentStatus[])
      .filter((from) => isProgress(from, to))
      .map((from) => `'${from}'`)
      .join(", ") || "NULL",
  ]),
) as Record<CommitmentStatus, string>;

/** An address as the table keeps it: lower-case hex without 0x. */
function bare(address: string): string {
  return address.toLowerCase().replace(/^0x/, "");
}

function sumAmounts(rows: { bid_amount: string }[]): bigint {
  let sum = 0n;
  for (const r of rows) sum += BigInt(r.bid_amount);
  return sum;
}

/** A byte string that sorts like the amount (fixed-width big-endian), so SQLite orders bids numerically. */
function amountSortKey(amount: bigint): Uint8Array {
  const hex = amount.toString(16).padStart(64, "0");
  return Uint8Array.from(Buffer.from(hex, "hex"));
}
