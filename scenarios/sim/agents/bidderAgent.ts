/**
 * A simulated bidder: a client of one bidder node's public API (SendBid, deposits, subscribe) over HTTP or gRPC
 * (bidderClient.ts; the scenario's `transport`). Each block it
 * decides how many bids to send (its strategy and its own seeded PRNG), signs their L1 transactions with its
 * sender pool, and sends them: one after another, or all at once for a slot burst. Nothing it decides depends on
 * the outcome of earlier bids, so a seed always gives the same bids.
 */
import type { PublicClient } from "viem";
import { MevCommitError } from "../../../lib/errors.ts";
import { prng, seedFrom } from "../../util/prng.ts";
import type { BidRecord, RunLog } from "../run/runLog.ts";
import type { BidderSpec } from "../scenario/schema.ts";
import { MAX_BIDS_PER_BLOCK } from "../scenario/schema.ts";
import { BidderCallError, type BidderClient, depositWithProvider } from "./bidderClient.ts";
import { SenderPool, sendRawToL1 } from "./l1Senders.ts";
import { bidsForBlock, drawAmount, maxBidsPerBlock } from "./strategies.ts";
import type { ValidatorWatch } from "./validatorWatch.ts";

export class BidderAgentError extends MevCommitError {}

interface StreamedCommitment {
  providerAddress: string;
  dispatchTimestamp: string;
  commitmentDigest: string;
  receivedBidDigest: string;
}

export class BidderAgent {
  readonly senders: SenderPool;
  private readonly rnd: () => number;
  /** Sum of the amounts of the bids sent (for the budget cap). */
  spentBids = 0n;
  budgetReached = false;
  /** Windows this bidder deposited into itself (per-window plan) and has not withdrawn. */
  readonly openWindows = new Set<bigint>();
  /** Every window this bidder deposited into itself. */
  readonly depositedWindows = new Set<bigint>();
  /** What the API calls moved: the deposits it made and what each withdrawal answered. */
  readonly deposits: { window: bigint; amount: bigint }[] = [];
  readonly withdrawals: { window: bigint; amount: bigint }[] = [];
  /** v1.2: the deposits it made with providers through the API. */
  readonly providerDeposits: { provider: string; amount: bigint }[] = [];

  constructor(
    readonly index: number,
    readonly spec: BidderSpec,
    /** The node's HTTP URL (the runner and the report read its records there). */
    readonly url: string,
    /** How the agent itself talks to its node (HTTP or gRPC). */
    readonly client: BidderClient,
    readonly address: string,
    private readonly l1: PublicClient,
    l1ChainId: number,
    seed: number,
    private readonly log: RunLog,
    readonly bot?: ValidatorWatch,
  ) {
    this.rnd = prng(seedFrom(seed, "bidder", index));
    this.senders = new SenderPool(l1, l1ChainId, seed, index, maxBidsPerBlock(spec.strategy) * spec.txsPerBid);
  }

  get name(): string {
    return this.spec.name;
  }

  // ------------------------------------------------------------------------------------------ deposits

  /** A call of the node; a refusal becomes a BidderAgentError that names the bidder and what it did. */
  private async ask<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      if (e instanceof BidderCallError) throw new BidderAgentError(`${this.name}: ${what}: ${e.message}`);
      throw e;
    }
  }

  /**
   * v1.2: tops the deposit with each provider up to the plan's amount (either plan: v1.2 has no windows and no
   * auto-deposit), reading what it has there first (`has`). Deposit per provider goes through the node's HTTP gateway
   * on either transport: `POST /v1/bidder/deposit/{amount}?provider=0x…`, upstream v1.2.5's route.
   */
  async depositWithProviders(providers: string[], has: (provider: string) => Promise<bigint>): Promise<void> {
    for (const provider of providers) {
      const missing = this.spec.deposit.amount - (await has(provider));
      if (missing <= 0n) continue;
      await this.ask(`deposit with provider ${provider}`, () => depositWithProvider(this.url, missing, provider));
      this.providerDeposits.push({ provider: provider.toLowerCase(), amount: missing });
      this.log.add({ kind: "deposit", actor: this.name, amount: missing, detail: `provider ${provider}` });
    }
  }

  /** Deposit into window W (HTTP: POST /v1/bidder/deposit/{amount}?window_number=W). */
  async depositInto(window: bigint): Promise<void> {
    const amount = this.spec.deposit.amount;
    await this.ask(`deposit into window ${window}`, () => this.client.deposit(amount, window));
    this.openWindows.add(window);
    this.depositedWindows.add(window);
    this.deposits.push({ window, amount });
    this.log.add({ kind: "deposit", actor: this.name, amount, detail: `window ${window}` });
  }

  /** WithdrawFromWindows; answers what each window returned. */
  async withdraw(windows: bigint[]): Promise<{ window: bigint; amount: bigint }[]> {
    if (!windows.length) return [];
    const out = await this.ask(`withdraw from windows ${windows.join(", ")}`, () =>
      this.client.withdrawFromWindows(windows),
    );
    for (const w of out) {
      this.openWindows.delete(w.window);
      this.withdrawals.push(w);
      this.log.add({ kind: "withdraw", actor: this.name, amount: w.amount, detail: `window ${w.window}` });
    }
    return out;
  }

  /** AutoDeposit from window W. */
  async startAutoDeposit(window: bigint): Promise<void> {
    const amount = this.spec.deposit.amount;
    await this.ask("auto_deposit", () => this.client.autoDeposit(amount, window));
    this.log.add({ kind: "deposit", actor: this.name, amount, detail: `auto-deposit from window ${window}` });
  }

  /** CancelAutoDeposit with withdraw=true: the node withdraws every window once all have closed. */
  async cancelAutoDeposit(): Promise<void> {
    await this.ask("cancel_auto_deposit", () => this.client.cancelAutoDepositAndWithdraw());
  }

  // ------------------------------------------------------------------------------------------ bids

  /** Sends this bidder's bids for the `step`-th block of the run, L1 block `block`; answers the records. */
  async bidFor(step: number, block: bigint): Promise<BidRecord[]> {
    let optedIn = false;
    if (this.spec.strategy.type === "bot") {
      const seen = await this.bot!.isOptedIn(Number(block));
      optedIn = seen.optedIn;
      if (seen.missing) this.log.warn(this.name, seen.missing, { step, block });
    }
    const count = bidsForBlock(this.spec.strategy, step, this.rnd, optedIn);
    // Draw every amount first, so that the PRNG advances the same way whatever the budget allows.
    const amounts = Array.from({ length: count }, () =>
      drawAmount(this.spec.amount.min, this.spec.amount.max, this.rnd),
    );
    const bids: BidRecord[] = [];
    for (const [seq, drawn] of amounts.entries()) {
      // Distinct amounts inside a block (builders order bundles by amount; ties would fall to digest order).
      const amount = drawn - BigInt(this.index * MAX_BIDS_PER_BLOCK + seq);
      if (this.spec.budget !== undefined && this.spentBids + amount > this.spec.budget) {
        if (!this.budgetReached)
          this.log.add({
            kind: "bid-error",
            actor: this.name,
            step,
            block,
            detail: `budget of ${this.spec.budget} wei reached`,
          });
        this.budgetReached = true;
        break;
      }
      this.spentBids += amount;
      bids.push({
        bidder: this.index,
        step,
        block,
        seq,
        amount,
        slashAmount: this.spec.slashAmount,
        txHashes: [],
        decayStart: 0n,
        decayEnd: 0n,
        sentAt: 0,
        commitments: [],
      });
    }
    const send = (b: BidRecord) => this.send(b);
    if (this.spec.strategy.type === "slot-burst") await Promise.all(bids.map(send));
    else for (const b of bids) await send(b);
    return bids;
  }

  private async send(b: BidRecord): Promise<void> {
    const slots = Array.from({ length: this.spec.txsPerBid }, (_, k) => b.seq * this.spec.txsPerBid + k);
    const txs = await this.senders.sign(slots, b.block);
    b.txHashes = txs.map((t) => t.hash);
    if (this.spec.transactions === "hash")
      await sendRawToL1(
        this.l1,
        txs.map((t) => t.raw),
      );
    b.sentAt = this.log.now();
    const now = BigInt(Date.now());
    b.decayStart = now;
    b.decayEnd = now + BigInt(this.spec.decayMs);
    const body = {
      ...(this.spec.transactions === "raw" ? { rawTransactions: txs.map((t) => t.raw) } : { txHashes: b.txHashes }),
      amount: b.amount.toString(),
      blockNumber: b.block.toString(),
      decayStartTimestamp: b.decayStart.toString(),
      decayEndTimestamp: b.decayEnd.toString(),
      ...(b.slashAmount > 0n ? { slashAmount: b.slashAmount.toString() } : {}),
    };
    this.log.add({
      kind: "bid",
      actor: this.name,
      step: b.step,
      block: b.block,
      amount: b.amount,
      detail: `txs ${b.txHashes.join(" ")}`,
    });
    const t0 = performance.now();
    try {
      for await (const line of this.client.sendBid<StreamedCommitment>(body)) {
        if ("error" in line) {
          b.error = line.error.code === undefined ? line.error.message : `${line.error.code}: ${line.error.message}`;
          continue;
        }
        const c = line.result;
        b.firstCommitmentMs ??= performance.now() - t0;
        b.bidDigest ??= c.receivedBidDigest;
        const provider = `0x${c.providerAddress.replace(/^0x/, "")}`.toLowerCase();
        b.commitments.push({ provider, dispatch: BigInt(c.dispatchTimestamp), commitmentDigest: c.commitmentDigest });
        this.log.add({
          kind: "commitment",
          actor: provider,
          step: b.step,
          block: b.block,
          amount: b.amount,
          detail: `for ${this.name}, dispatch ${c.dispatchTimestamp}`,
        });
      }
    } catch (e) {
      b.error = (e as Error).message;
    }
    b.endMs = performance.now() - t0;
    if (b.error)
      this.log.add({
        kind: "bid-error",
        actor: this.name,
        step: b.step,
        block: b.block,
        amount: b.amount,
        detail: b.error,
      });
  }
}
