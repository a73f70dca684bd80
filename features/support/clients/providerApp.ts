/**
 * A provider application played by the suite: it reads a provider node's ReceiveBids stream and answers each bid
 * through SendProcessedBids as its policy decides, recording what it saw and chose.
 *
 * It works against any implementation: a node that sends no headers until the first bid (upstream) is attached
 * once a short grace period has passed, and a decision answered with upstream's 500 "EOF" (a documented defect,
 * docs/divergences.md "SendProcessedBids reply") counts as delivered here; only the scenarios about
 * SendProcessedBids judge its answer.
 */
import type { MessageStream, ProviderApi } from "./api.ts";

/** A bid as a provider application sees it on ReceiveBids (interface.md §2.3; upstream names the amount bidAmount). */
export interface ReceivedBid {
  txHashes: string[];
  bidAmount: string;
  amount?: string;
  blockNumber: string;
  bidDigest: string;
  decayStartTimestamp: string;
  decayEndTimestamp: string;
  revertingTxHashes: string[];
  rawTransactions: string[];
  slashAmount: string;
}

/** What a policy decides: accept with a dispatch time, reject, or never answer (undefined). */
export type PolicyDecision = { accept: true; dispatchTimestamp: bigint } | { accept: false } | undefined;

export interface ProviderPolicy {
  readonly name: string;
  decide(bid: ReceivedBid): Promise<PolicyDecision> | PolicyDecision;
}

const now = () => BigInt(Date.now());
export const acceptAll = (): ProviderPolicy => ({
  name: "accept-all",
  decide: () => ({ accept: true, dispatchTimestamp: now() }),
});
export const rejectAll = (): ProviderPolicy => ({ name: "reject-all", decide: () => ({ accept: false }) });
/** Never answers: the node's decision timeout runs out. */
export const neverAnswer = (): ProviderPolicy => ({ name: "never-answer", decide: () => undefined });
/** Accepts with a dispatch time chosen from the bid. */
export const acceptWithDispatch = (dispatch: (bid: ReceivedBid) => bigint): ProviderPolicy => ({
  name: "accept-with-dispatch",
  decide: (bid) => ({ accept: true, dispatchTimestamp: dispatch(bid) }),
});
/** Accepts `ms` after the bid arrived (dispatch time: when it answers). */
export const acceptAfter = (ms: number): ProviderPolicy => ({
  name: `accept-after-${ms}ms`,
  decide: async () => {
    await new Promise((r) => setTimeout(r, ms));
    return { accept: true, dispatchTimestamp: now() };
  },
});

/** A ReceiveBids entry's amount: `bidAmount` (upstream) or `amount` (the interface's name). */
export function amountOf(r: ReceivedBid): string {
  return String(r.bidAmount ?? r.amount);
}

/**
 * How long to wait for ReceiveBids' headers before taking the application as attached anyway (upstream's node
 * sends none until the first bid). Overridable for slow targets.
 */
export const ATTACH_GRACE_MS = Number(process.env.ATTACH_GRACE_MS ?? 1_000);

/** Is this SendProcessedBids answer "the decisions were applied"? 200 `{}`, or upstream's 500 "EOF" after applying them. */
export function decisionDelivered(status: number, json: unknown): boolean {
  if (status === 200) return JSON.stringify(json) === "{}";
  const o = json as { code?: unknown; message?: unknown };
  return status === 500 && o?.code === 2 && o?.message === "EOF";
}

export class ProviderApplication {
  readonly received: ReceivedBid[] = [];
  /** Dispatch timestamp chosen per bid digest (base64, as received), for accepted bids. */
  readonly chosenDispatch = new Map<string, bigint>();
  readonly errors: string[] = [];
  /** Whether the node sent ReceiveBids' headers before the grace period ended. */
  headersAtOnce = false;
  /** The scenario kills this application's node: a ReceiveBids stream that breaks is then no error. */
  nodeWillBeKilled = false;
  private stream: MessageStream | undefined;
  private loop: Promise<void> | undefined;
  private readonly pending = new Set<Promise<void>>();
  private waiters: (() => void)[] = [];

  constructor(
    readonly label: string,
    readonly api: ProviderApi,
    public policy: ProviderPolicy,
    /** Runs for each accepted bid before the decision is sent (e.g. posting the bundle to a devnet's builder). */
    private readonly onAccept?: (bid: ReceivedBid) => Promise<void>,
  ) {}

  /** The ReceiveBids stream (for the checks of its transport details). */
  get receiveStream(): MessageStream | undefined {
    return this.stream;
  }

  /** Opens ReceiveBids; resolves once the node has the receiver attached (headers came, or the grace period passed). */
  async start(graceMs = ATTACH_GRACE_MS): Promise<void> {
    const stream = this.api.receiveBids();
    this.stream = stream;
    this.loop = this.run(stream);
    this.headersAtOnce = await stream.head(graceMs);
    if (this.headersAtOnce && !stream.ok) {
      await stream.done;
      throw new Error(`${this.label}: receive_bids answered ${stream.describe(400)}`);
    }
  }

  private async run(stream: MessageStream): Promise<void> {
    for (let i = 0; ; i++) {
      const line = await stream.lineAt(i);
      if (line === undefined) {
        const broken = stream.endReason !== "closed" && stream.endReason !== "end";
        if (broken && !this.nodeWillBeKilled) this.errors.push(`ReceiveBids ${stream.endReason}`);
        return;
      }
      const result = (line as { result?: ReceivedBid }).result;
      if (!result || typeof result !== "object") {
        // Over gRPC a stream the node's death broke ends with a status (Unavailable), not a broken connection.
        if (this.nodeWillBeKilled && "error" in (line as object)) return;
        this.errors.push(`ReceiveBids carried a line that is not a bid: ${JSON.stringify(line).slice(0, 400)}`);
        if ("error" in (line as object)) return;
        continue;
      }
      this.received.push(result);
      for (const w of this.waiters.splice(0)) w();
      const p = this.answer(result).finally(() => this.pending.delete(p));
      this.pending.add(p);
    }
  }

  private async answer(bid: ReceivedBid): Promise<void> {
    let d: PolicyDecision;
    try {
      d = await this.policy.decide(bid);
    } catch (e) {
      this.errors.push(`policy ${this.policy.name} failed: ${(e as Error).message}`);
      return;
    }
    if (d === undefined) return;
    if (d.accept) {
      this.chosenDispatch.set(bid.bidDigest, d.dispatchTimestamp);
      await this.onAccept?.(bid).catch((e) => this.errors.push(`${this.label}: ${(e as Error).message}`));
    }
    const body = d.accept
      ? { bidDigest: bid.bidDigest, status: "STATUS_ACCEPTED", dispatchTimestamp: d.dispatchTimestamp.toString() }
      : { bidDigest: bid.bidDigest, status: "STATUS_REJECTED" };
    try {
      const r = await this.api.sendProcessedBids(JSON.stringify(body));
      const status = r.http?.status ?? (r.error ? 500 : 200);
      if (!(r.error === undefined || decisionDelivered(status, r.http?.json ?? r.error)))
        this.errors.push(`send_processed_bids: ${r.describe()}`);
    } catch (e) {
      if (
        !["HttpCallError", "GrpcCallError"].includes((e as Error).name) ||
        !String((e as Error).message).includes("scenario ended")
      )
        this.errors.push(`send_processed_bids: ${(e as Error).message}`);
    }
  }

  /** Waits (event-driven, bounded) until the application has received at least `n` bids. */
  async waitForBids(n: number, timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (this.received.length < n) {
      const left = deadline - performance.now();
      if (left <= 0)
        throw new Error(`${this.label} received ${this.received.length} bid(s) within ${timeoutMs} ms, expected ${n}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Waits until every decision the application chose to send has been answered. */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  /** Closes ReceiveBids (headers or not) and waits for the decisions in flight. */
  async stop(): Promise<void> {
    this.stream?.close();
    await this.loop?.catch(() => {});
    await Promise.allSettled([...this.pending]);
  }
}
