/**
 * Everything a simulation did and saw, in order: the raw events of the report's CSV, and the typed records the
 * summary is computed from.
 */

/** One bid a simulated bidder sent and what its node streamed back. */
export interface BidRecord {
  bidder: number;
  /** Index of the block in the run (0-based) and its L1 number. */
  step: number;
  block: bigint;
  /** Position of the bid among the bidder's bids for the block. */
  seq: number;
  amount: bigint;
  slashAmount: bigint;
  txHashes: string[];
  decayStart: bigint;
  decayEnd: bigint;
  /** Wall clock (ms since the run started) when SendBid was sent; first commitment and end of stream after it. */
  sentAt: number;
  firstCommitmentMs?: number;
  endMs?: number;
  bidDigest?: string;
  commitments: { provider: string; dispatch: bigint; commitmentDigest: string }[];
  error?: string;
}

export type EventKind =
  | "setup"
  | "deposit"
  | "withdraw"
  | "fault"
  | "bid"
  | "commitment"
  | "bid-error"
  | "decision"
  | "mined"
  | "settled"
  | "slashed"
  | "failed"
  | "warning";

export interface RunEvent {
  /** ms since the run started. */
  t: number;
  step: number | "";
  block: string;
  kind: EventKind;
  actor: string;
  amount: string;
  detail: string;
}

export class RunLog {
  readonly started = Date.now();
  readonly events: RunEvent[] = [];
  readonly bids: BidRecord[] = [];
  readonly warnings: string[] = [];

  now(): number {
    return Date.now() - this.started;
  }

  add(
    e: Omit<RunEvent, "t" | "step" | "block" | "amount" | "detail"> & {
      step?: number;
      block?: bigint;
      amount?: bigint;
      detail?: string;
    },
  ): void {
    this.events.push({
      t: this.now(),
      step: e.step ?? "",
      block: e.block?.toString() ?? "",
      kind: e.kind,
      actor: e.actor,
      amount: e.amount?.toString() ?? "",
      detail: e.detail ?? "",
    });
  }

  warn(actor: string, message: string, at?: { step?: number; block?: bigint }): void {
    this.warnings.push(`${actor}: ${message}`);
    this.add({ kind: "warning", actor, detail: message, ...at });
  }
}
