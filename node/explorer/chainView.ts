import type { ChainEvent, EventPoller } from "../chain/eventPoller.ts";
import { WINDOW_DEPOSITS } from "../protocol/depositModels.ts";
import { BoundedMap } from "../util/boundedMap.ts";
import type { BidOutcomes, Lifecycle } from "./bidOutcomes.ts";

/** L1 blocks and commitments kept; older ones are forgotten first. */
const MAX_BLOCKS = 2_000;
const MAX_COMMITMENTS = 20_000;

/** An L1 block as the oracle recorded it on the settlement chain (BlockTracker's NewL1Block). */
export interface BlockRow {
  number: string;
  winner: string;
  /** v1.1 only: the 10-block window of the block (v1.2's BlockTracker has no windows). */
  window?: string;
  /** Settlement-chain transaction that recorded it. */
  tx: string;
}

/** A commitment as the settlement chain tells it: whoever's bidder and provider made it. */
export interface CommitmentRow extends Lifecycle {
  digest: string;
  index: string;
  provider: string;
  bidder?: string;
  txnHash?: string;
  blockNumber?: string;
}

/**
 * A bidder's deposit and its use: bid amounts locked by opened commitments, paid to providers, returned. A v1.1
 * deposit is for one window (`window`); a v1.2 deposit is with one provider (`provider`).
 */
export interface DepositRow {
  bidder: string;
  window?: string;
  provider?: string;
  deposited: string;
  locked: string;
  paid: string;
  returned: string;
  withdrawn: boolean;
}

/** A provider's stake and what it earned and lost. */
export interface ProviderRow {
  provider: string;
  stake: string;
  rewards: string;
  slashed: string;
  slashes: number;
  commitmentsPaid: number;
}

export interface ChainChanges {
  blocks: BlockRow[];
  commitments: CommitmentRow[];
  deposits: DepositRow[];
  providers: ProviderRow[];
}

const lower = (v: unknown) => String(v).toLowerCase();
const big = (v: unknown) => BigInt(v as bigint);

/** Where a deposit sits: a v1.1 window, or a v1.2 provider. */
type DepositKey = { window: bigint } | { provider: string };

/**
 * The deposit a BidderRegistry event moves. The event's ABI tells the version: v1.1 events carry the window
 * (`window`, or `windowNumber` on BidderRegistered), v1.2 events the provider.
 */
function depositOf(args: Record<string, unknown>): DepositKey {
  if (args.window !== undefined) return { window: big(args.window) };
  if (args.windowNumber !== undefined) return { window: big(args.windowNumber) };
  return { provider: lower(args.provider) };
}

/**
 * What the settlement chain's protocol events tell about the devnet, for any implementation: the L1 blocks with
 * their winners, every commitment stored, opened, settled or slashed, the bidders' deposits (per window on v1.1,
 * per provider on v1.2) and their
 * use, the providers' stake, rewards and slashes. Each lifecycle step is also handed to the bid record, if any.
 */
export class ChainView {
  readonly blocks = new BoundedMap<string, BlockRow>(MAX_BLOCKS);
  readonly commitments = new BoundedMap<string, CommitmentRow>(MAX_COMMITMENTS);
  private readonly digestOfIndex = new BoundedMap<string, string>(MAX_COMMITMENTS);
  readonly deposits = new BoundedMap<string, DepositRow>(MAX_BLOCKS);
  readonly providers = new Map<string, ProviderRow>();
  /** The last FundsSlashed of a transaction, for the FundsRetrieved that follows it in the same settlement. */
  private readonly slashInTx = new BoundedMap<string, string>(256);
  private readonly listeners = new Set<(c: ChainChanges) => void>();
  private pending: { blocks: Set<string>; commitments: Set<string>; deposits: Set<string>; providers: Set<string> } =
    fresh();
  private flushTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    events: EventPoller,
    private readonly bids?: BidOutcomes,
    private readonly batchMs = 100,
  ) {
    const on = (name: string, f: (e: ChainEvent) => void) => events.on(name, f);
    on("NewL1Block", (e) => {
      const row = {
        number: String(e.args.blockNumber),
        winner: lower(e.args.winner),
        ...(e.args.window === undefined ? {} : { window: String(e.args.window) }),
        tx: e.transactionHash,
      };
      this.blocks.set(row.number, row);
      this.mark("blocks", row.number);
    });
    on("UnopenedCommitmentStored", (e) => {
      const digest = lower(e.args.commitmentDigest);
      this.digestOfIndex.set(lower(e.args.commitmentIndex), digest);
      this.step(
        digest,
        { index: lower(e.args.commitmentIndex), provider: lower(e.args.committer) },
        { stored: { tx: e.transactionHash, block: e.blockNumber.toString() } },
      );
    });
    on("OpenedCommitmentStored", (e) => {
      const digest = lower(e.args.commitmentDigest);
      const bidder = lower(e.args.bidder);
      const bidAmount = big(e.args.bidAmt);
      const blockNumber = big(e.args.blockNumber);
      this.step(
        digest,
        {
          index: lower(e.args.commitmentIndex),
          provider: lower(e.args.committer),
          bidder,
          txnHash: String(e.args.txnHash),
          blockNumber: blockNumber.toString(),
        },
        { opened: { tx: e.transactionHash, block: e.blockNumber.toString(), bidAmount: bidAmount.toString() } },
      );
      // v1.2 (the event carries bidOptions) escrows the bid from the deposit with the committer; v1.1 locks it in
      // the window of the bid's block.
      const window =
        e.args.bidOptions === undefined && blockNumber > 0n ? WINDOW_DEPOSITS.windowOfBlock(blockNumber) : null;
      const from: DepositKey | undefined =
        e.args.bidOptions !== undefined
          ? { provider: lower(e.args.committer) }
          : window !== null
            ? { window }
            : undefined;
      if (from) this.deposit(bidder, from, (d) => (d.locked = (big(d.locked) + bidAmount).toString()));
    });
    on("FundsRewarded", (e) => {
      const amount = big(e.args.amount);
      const provider = lower(e.args.provider);
      this.step(
        lower(e.args.commitmentDigest),
        { provider },
        { settled: { tx: e.transactionHash, payment: amount.toString() } },
      );
      this.deposit(lower(e.args.bidder), depositOf(e.args), (d) => (d.paid = (big(d.paid) + amount).toString()));
      this.provider(provider, (p) => {
        p.rewards = (big(p.rewards) + amount).toString();
        p.commitmentsPaid++;
      });
    });
    on("FundsSlashed", (e) => {
      const amount = big(e.args.amount);
      this.slashInTx.set(e.transactionHash, amount.toString());
      this.provider(lower(e.args.provider), (p) => {
        p.stake = (big(p.stake) - amount).toString();
        p.slashed = (big(p.slashed) + amount).toString();
        p.slashes++;
      });
    });
    // The bid back to the bidder after a slash: v1.1 FundsRetrieved (into the window), v1.2 FundsUnlocked (to the
    // bidder's account).
    const returned = (e: ChainEvent) => {
      const refund = big(e.args.amount);
      const digest = lower(e.args.commitmentDigest);
      this.step(
        digest,
        {},
        {
          slashed: {
            tx: e.transactionHash,
            amount: this.slashInTx.get(e.transactionHash) ?? "0",
            refund: refund.toString(),
          },
        },
      );
      this.deposit(
        lower(e.args.bidder),
        depositOf(e.args),
        (d) => (d.returned = (big(d.returned) + refund).toString()),
      );
    };
    on("FundsRetrieved", returned);
    on("FundsUnlocked", returned);
    // v1.1: the window's deposit after the transaction.
    on("BidderRegistered", (e) =>
      this.deposit(
        lower(e.args.bidder),
        depositOf(e.args),
        (d) => (d.deposited = big(e.args.depositedAmount).toString()),
      ),
    );
    // v1.2: each deposit with a provider adds to what the bidder put in.
    on("BidderDeposited", (e) =>
      this.deposit(
        lower(e.args.bidder),
        depositOf(e.args),
        (d) => (d.deposited = (big(d.deposited) + big(e.args.depositedAmount)).toString()),
      ),
    );
    on("BidderWithdrawal", (e) => this.deposit(lower(e.args.bidder), depositOf(e.args), (d) => (d.withdrawn = true)));
    on("ProviderRegistered", (e) =>
      this.provider(lower(e.args.provider), (p) => (p.stake = big(e.args.stakedAmount).toString())),
    );
    on("FundsDeposited", (e) =>
      this.provider(lower(e.args.provider), (p) => (p.stake = (big(p.stake) + big(e.args.amount)).toString())),
    );
    on("Withdraw", (e) =>
      this.provider(lower(e.args.provider), (p) => (p.stake = (big(p.stake) - big(e.args.amount)).toString())),
    );
  }

  /** The commitment a digest or an index names. */
  commitment(digestOrIndex: string): CommitmentRow | undefined {
    const key = digestOrIndex.toLowerCase();
    return this.commitments.get(key) ?? this.commitments.get(this.digestOfIndex.get(key) ?? "");
  }

  snapshot(limits = { blocks: 200, commitments: 500 }): ChainChanges {
    return {
      blocks: last(this.blocks, limits.blocks),
      commitments: last(this.commitments, limits.commitments),
      deposits: [...this.deposits.values()],
      providers: [...this.providers.values()],
    };
  }

  /** Hears, at most every `batchMs`, the rows that changed. */
  subscribe(listener: (c: ChainChanges) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private step(digest: string, fields: Partial<CommitmentRow>, step: Lifecycle): void {
    const row = this.commitments.get(digest) ?? { digest, index: "", provider: "" };
    for (const [k, v] of Object.entries(fields))
      if (v !== undefined && v !== "") (row as unknown as Record<string, unknown>)[k] = v;
    Object.assign(row, step);
    this.commitments.set(digest, row);
    this.mark("commitments", digest);
    this.bids?.lifecycle(digest, step);
  }

  private deposit(bidder: string, at: DepositKey, change: (d: DepositRow) => void): void {
    const where = "window" in at ? { window: at.window.toString() } : { provider: at.provider };
    const key = `${bidder}/${where.window ?? where.provider}`;
    const d = this.deposits.get(key) ?? {
      bidder,
      ...where,
      deposited: "0",
      locked: "0",
      paid: "0",
      returned: "0",
      withdrawn: false,
    };
    change(d);
    this.deposits.set(key, d);
    this.mark("deposits", key);
  }

  private provider(address: string, change: (p: ProviderRow) => void): void {
    const p = this.providers.get(address) ?? {
      provider: address,
      stake: "0",
      rewards: "0",
      slashed: "0",
      slashes: 0,
      commitmentsPaid: 0,
    };
    change(p);
    this.providers.set(address, p);
    this.mark("providers", address);
  }

  private mark(kind: keyof ChainChanges, key: string): void {
    if (!this.listeners.size) return;
    this.pending[kind].add(key);
    this.flushTimer ??= setTimeout(() => this.flush(), this.batchMs);
  }

  private flush(): void {
    this.flushTimer = undefined;
    const p = this.pending;
    this.pending = fresh();
    const pick = <T>(m: Map<string, T>, keys: Set<string>) =>
      [...keys].map((k) => m.get(k)).filter((v): v is T => v !== undefined);
    const c = {
      blocks: pick(this.blocks, p.blocks),
      commitments: pick(this.commitments, p.commitments),
      deposits: pick(this.deposits, p.deposits),
      providers: pick(this.providers, p.providers),
    };
    for (const l of this.listeners) l(c);
  }
}

function fresh() {
  return {
    blocks: new Set<string>(),
    commitments: new Set<string>(),
    deposits: new Set<string>(),
    providers: new Set<string>(),
  };
}

function last<T>(m: Map<string, T>, n: number): T[] {
  const all = [...m.values()];
  return all.slice(Math.max(0, all.length - n)).reverse();
}
