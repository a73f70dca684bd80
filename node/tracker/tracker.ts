import type { Address } from "viem";
import type { ChainClients } from "../chain/clients.ts";
import { blockTrackerAbi } from "../chain/contracts.ts";
import type { ChainEvent, EventPoller } from "../chain/eventPoller.ts";
import { protocolAbis } from "../chain/protocolContracts.ts";
import type { V12Notices } from "../notify/sources.ts";
import { UnavailableError } from "../protocol/grpcCodes.ts";
import type { ProtocolRules } from "../protocol/rules.ts";
import { logger } from "../util/log.ts";
import { SerialQueue } from "../util/serial.ts";
import type { CommitmentStore } from "./commitmentStore.ts";
import { type OpenerRole, openCommitment } from "./opener.ts";
import type { CommitmentRecord } from "./record.ts";

const hex = (v: unknown) => (v as string).toLowerCase().replace(/^0x/, "");

/** Upstream drops winners more than this many blocks behind the newest without opening (allowedDelayToOpenCommitment). */
const OPEN_HORIZON = 10n;
/** The bidder leaves the newest winners to the provider and opens only as a fallback behind them. */
const BIDDER_OPEN_LAG = 2n;
/** The details of a store or open that failed only because the chain could not be reached (chainErrors.ts). */
const UNREACHED = /cannot be reached/;

export interface TrackerOptions {
  role: OpenerRole;
  self: Address;
  settlement: ChainClients;
  preconfManager: Address;
  blockTracker: Address;
  commitments: CommitmentStore;
  events: EventPoller;
  /** The rules of the contracts' version: what the open carries and which refund event the bidder follows. */
  rules: ProtocolRules;
  /** Called when an open transaction of this node failed (notifications), with the commitment's record. */
  onOpenFailed?: (commitmentDigest: string, txnHash: string, error: string, r: CommitmentRecord) => void;
  /** transaction_settled and transaction_payment for this node's commitments (they do nothing on a v1.1 node). */
  notices?: Pick<V12Notices, "transactionSettled" | "transactionPayment">;
  /**
   * Provider: called for each of its stored commitments whose block another provider won (NewL1Block), which is
   * never opened; upstream v1.2.5 announces it (other_provider_won_block) and gives its amount back to the balance.
   */
  onOtherProviderWon?: (r: CommitmentRecord) => void;
}

/**
 * Follows each commitment of a node through its lifecycle (api-behaviour §3.3) from the settlement chain's
 * events: stored (UnopenedCommitmentStored), opened (this node's open transaction, or OpenedCommitmentStored),
 * settled or slashed (CommitmentProcessed), payment and refund (FundsRewarded, FundsRetrieved). It also opens:
 * the winning provider opens its commitments as soon as BlockTracker records its block; the bidder opens those
 * still unopened two recorded blocks later.
 */
export class CommitmentTracker {
  private readonly log: ReturnType<typeof logger>;
  private readonly openQueue = new SerialQueue();
  /** The pass of `openDue` queued and not started yet, which every new request joins. */
  private nextOpens: Promise<void> | undefined;
  private readonly winners = new Map<bigint, string>();
  private readonly openedHere = new Set<string>();
  private newest = 0n;
  private closed = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly off: (() => void)[] = [];
  /** Makes this node's next open transaction fail on-chain (control API fault injection). */
  failNextOpen = false;

  constructor(private readonly o: TrackerOptions) {
    this.log = logger(`${o.role.role}-tracker`);
    const e = o.events;
    this.off.push(
      e.on("UnopenedCommitmentStored", (ev) => this.onStored(ev)),
      e.on("OpenedCommitmentStored", (ev) => this.onOpened(ev)),
      e.on("CommitmentProcessed", (ev) => this.onProcessed(ev)),
      e.on("FundsRewarded", (ev) => this.onRewarded(ev)),
      e.on("NewL1Block", (ev) => this.onNewL1Block(ev)),
    );
    // The bidder's money back: v1.1 retrieves the unused bid from the window deposit; v1.2 sends the whole bid back
    // to the bidder's account on a slash (FundsUnlocked).
    if (o.role.role === "bidder") this.off.push(e.on(o.rules.refundEvent, (ev) => this.onRetrieved(ev)));
  }

  /** Retries opens every `ms` (a store transaction may be mined after its block's winner was recorded). */
  start(ms = 500): void {
    this.timer = setInterval(() => void this.requestOpens(), ms);
  }

  /** Starts no more opens (a stopping node then awaits `drain` before it closes its store). */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const f of this.off) f();
  }

  /** Resolves once the pass of opens under way (if any) has recorded its outcomes. */
  drain(): Promise<void> {
    return this.openQueue.run(async () => {});
  }

  private onStored(ev: ChainEvent): void {
    this.o.commitments.setStatus(hex(ev.args.commitmentDigest), "stored");
  }

  private onOpened(ev: ChainEvent): void {
    const r = this.o.commitments.byIndex(hex(ev.args.commitmentIndex));
    if (!r) return;
    const byUs = this.openedHere.delete(r.digest);
    const other = this.o.role.role === "provider" ? "bidder" : "provider";
    this.o.commitments.setStatus(r.digest, "opened", `opened by ${byUs ? this.o.role.role : other}`);
  }

  private onProcessed(ev: ChainEvent): void {
    const r = this.o.commitments.byIndex(hex(ev.args.commitmentIndex));
    if (!r) return;
    const isSlash = ev.args.isSlash as boolean;
    this.o.commitments.setStatus(r.digest, isSlash ? "slashed" : "settled");
    this.o.notices?.transactionSettled(r.txnHash, isSlash, `0x${r.provider}`);
  }

  /**
   * The provider's payment. On v1.2 the part of the bid the decay left unpaid goes to the bidder's account in the
   * same transaction with no event of its own, so the refund stays "" as on upstream's v1.2.5 nodes.
   */
  private onRewarded(ev: ChainEvent): void {
    this.recordPayment(hex(ev.args.commitmentDigest), ev.args.amount as bigint, undefined);
  }

  private onRetrieved(ev: ChainEvent): void {
    this.recordPayment(hex(ev.args.commitmentDigest), undefined, ev.args.amount as bigint);
  }

  private recordPayment(digest: string, payment: bigint | undefined, refund: bigint | undefined): void {
    const r = this.o.commitments.get(digest);
    if (!r) return;
    this.o.commitments.setPayment(digest, payment?.toString() ?? "", refund?.toString() ?? "");
    this.o.notices?.transactionPayment(r.txnHash, payment, refund);
  }

  private onNewL1Block(ev: ChainEvent): void {
    const block = ev.args.blockNumber as bigint;
    this.winners.set(block, (ev.args.winner as string).toLowerCase());
    if (block > this.newest) this.newest = block;
    for (const b of this.winners.keys()) if (b + OPEN_HORIZON < this.newest) this.winners.delete(b);
    if (this.o.onOtherProviderWon && this.o.role.role === "provider") this.otherProviderWon(block);
    // Not awaited: the open transactions' receipts would hold back every later event of this node (NewWindow, its
    // deposits, payments) for as long as the settlement chain takes. After a crash the winners are read again
    // from BlockTracker (`reconcile`), so what this pass did not open is opened then.
    void this.requestOpens();
  }

  /** The stored commitments of `block` whose provider is not its winner (upstream: only stored ones with an index). */
  private otherProviderWon(block: bigint): void {
    const winner = this.winners.get(block);
    for (const r of this.o.commitments.forBlockWithStatus(block, "stored"))
      if (r.commitmentIndex && `0x${r.provider}` !== winner) this.o.onOtherProviderWon?.(r);
  }

  /**
   * One more pass of `openDue` after the one running. Requests that arrive while a pass is waiting to start join it:
   * the retry timer fires every 500 ms, and a pass under load (hundreds of open transactions and their receipts)
   * takes longer, so one pass queued per request piled up without end, and whatever awaited one waited for all.
   */
  private requestOpens(): Promise<void> {
    this.nextOpens ??= this.openQueue
      .run(() => {
        this.nextOpens = undefined;
        return this.openDue();
      })
      // Nobody awaits a pass (a failed open is recorded in `open`): what escapes is logged, e.g. a store closed mid-pass.
      .catch((e) => this.log.warn("a pass of opens failed", { error: e }));
    return this.nextOpens;
  }

  /** Opens every stored commitment whose block is recorded with its provider as the winner and whose turn it is. */
  private async openDue(): Promise<void> {
    if (this.closed) return;
    const bidder = this.o.role.role === "bidder";
    for (const [block, winner] of [...this.winners].sort((a, b) => Number(a[0] - b[0]))) {
      if (bidder && block + BIDDER_OPEN_LAG > this.newest) continue;
      if (!bidder && winner !== this.o.self.toLowerCase()) continue;
      const due = this.o.commitments.forBlockWithStatus(block, "stored").filter((r) => `0x${r.provider}` === winner);
      await Promise.all(due.map((r) => this.open(r)));
    }
  }

  private async open(r: CommitmentRecord): Promise<void> {
    this.openedHere.add(r.digest);
    try {
      const corrupt = this.failNextOpen;
      this.failNextOpen = false;
      await openCommitment(this.o.settlement, this.o.preconfManager, r, this.o.role, corrupt, this.o.rules);
      this.o.commitments.setStatus(r.digest, "opened", `opened by ${this.o.role.role}`);
    } catch (e) {
      const msg = (e as Error).message.replace(/^waiting for receipt: /, "");
      this.openedHere.delete(r.digest);
      // Someone else opened it first (the other side, or our own earlier attempt): not a failure.
      if (/CommitmentAlreadyOpened|TxnHashAlreadyProcessed/.test(msg) && this.o.role.role === "bidder") return;
      // Not the commitment's fault: it stays stored and is opened again by the next pass (or the next start's).
      if (e instanceof UnavailableError)
        return this.log.warn("the settlement chain cannot be reached; opening the commitment again soon", {
          commitment: r.digest,
        });
      this.o.commitments.setStatus(r.digest, "failed", `failed to open commitment: ${msg}`);
      this.log.warn("open transaction failed", { commitment: r.digest, error: msg });
      this.o.onOpenFailed?.(r.digest, r.txnHash, msg, r);
    }
  }

  /**
   * After a restart: bring records in line with the chain, which may have lost its last seconds of history.
   * A commitment stored here but missing on-chain goes back to pending and (provider) is stored again; one opened
   * here but not on-chain goes back to stored and is opened again when its block's winner is recorded.
   */
  async reconcile(restore: (r: CommitmentRecord) => void): Promise<void> {
    const pc = this.o.settlement.publicClient;
    const preconfManagerAbi = protocolAbis(this.o.rules).preconfManager;
    for (const r of this.o.commitments.unfinished()) {
      const idx = `0x${r.commitmentIndex}` as const;
      const [unopened, opened] = await Promise.all([
        pc.readContract({
          address: this.o.preconfManager,
          abi: preconfManagerAbi,
          functionName: "getUnopenedCommitment",
          args: [idx],
        }),
        pc.readContract({
          address: this.o.preconfManager,
          abi: preconfManagerAbi,
          functionName: "getCommitment",
          args: [idx],
        }) as Promise<{ committer: string }>,
      ]);
      const onChainStored =
        (unopened as { committer: string }).committer !== "0x0000000000000000000000000000000000000000";
      const onChainOpened = opened.committer !== "0x0000000000000000000000000000000000000000";
      // A failure recorded only because the chain could not be reached was no failure of the commitment's.
      const unreached = r.status === "failed" && UNREACHED.test(r.details);
      if (onChainOpened) this.o.commitments.setStatus(r.digest, "opened", r.details || "opened");
      else if (onChainStored) {
        if (r.status === "opened" || r.status === "pending" || unreached)
          this.o.commitments.forceStatus(r.digest, "stored", "");
      } else if (r.status !== "failed" || r.details.startsWith("failed to open") || unreached) {
        this.o.commitments.forceStatus(r.digest, "pending", "");
        restore(r);
      }
    }
    // Winners recorded before the restart produce no new NewL1Block events: learn them from BlockTracker (for the
    // commitments being stored again too, which are opened once stored).
    const blocks = new Set(
      this.o.commitments
        .unfinished()
        .filter((r) => r.status === "stored" || r.status === "pending")
        .map((r) => r.blockNumber),
    );
    for (const block of blocks) {
      const winner = await pc.readContract({
        address: this.o.blockTracker,
        abi: blockTrackerAbi,
        functionName: "getBlockWinner",
        args: [block],
      });
      if (winner === "0x0000000000000000000000000000000000000000") continue;
      this.winners.set(block, winner.toLowerCase());
      if (block > this.newest) this.newest = block;
    }
  }
}
