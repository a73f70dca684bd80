import { NdjsonStream } from "../clients/ndjson.ts";
import { call } from "../clients/http.ts";
import type { ProviderPolicy, ReceivedBid } from "./policies.ts";

export class ProviderAgentError extends Error {
  override name = "ProviderAgentError";
}

/**
 * A simulated provider application: attaches to a provider node's ReceiveBids stream and answers each bid through
 * SendProcessedBids as its policy decides. Works against any implementation of the provider API.
 */
export class ProviderAgent {
  private stream: NdjsonStream<ReceivedBid> | undefined;
  private loop: Promise<void> | undefined;
  private readonly pending = new Set<Promise<void>>();
  readonly seen: ReceivedBid[] = [];
  readonly decided: { bidDigest: string; accepted: boolean }[] = [];
  errors: string[] = [];
  private stopped = false;

  constructor(
    readonly providerUrl: string,
    public policy: ProviderPolicy,
  ) {}

  /**
   * Resolves once the node has the receiver attached: when the stream's headers arrive, or after `headerWaitMs`
   * for a node that, like upstream, sends no headers until the first bid (the stream then keeps opening).
   */
  async start(headerWaitMs = 2_000): Promise<void> {
    const opening = NdjsonStream.open<ReceivedBid>("GET", `${this.providerUrl}/v1/provider/receive_bids`).then((stream) => {
      if (stream.status !== 200) throw new ProviderAgentError(`receive_bids answered HTTP ${stream.status}`);
      this.stream = stream;
      if (this.stopped) stream.close();
      return stream;
    });
    this.loop = opening.then((s) => this.run(s));
    const early = await Promise.race([opening.then(() => true), Bun.sleep(headerWaitMs).then(() => false)]);
    if (!early) this.loop.catch((e) => this.errors.push(String((e as Error).message ?? e)));
  }

  private async run(stream: NdjsonStream<ReceivedBid>): Promise<void> {
    for (let line = await stream.next(); line !== undefined; line = await stream.next()) {
      if ("error" in line) {
        this.errors.push(line.error.message);
        break;
      }
      const bid = line.result;
      this.seen.push(bid);
      const p = this.answer(bid).finally(() => this.pending.delete(p));
      this.pending.add(p);
    }
  }

  private async answer(bid: ReceivedBid): Promise<void> {
    const d = await this.policy.decide(bid);
    if (d === undefined) return;
    const body = d.accept
      ? { bidDigest: bid.bidDigest, status: "STATUS_ACCEPTED", dispatchTimestamp: d.dispatchTimestamp.toString() }
      : { bidDigest: bid.bidDigest, status: "STATUS_REJECTED" };
    const r = await call("POST", `${this.providerUrl}/v1/provider/send_processed_bids`, { body });
    if (r.status !== 200) this.errors.push(`send_processed_bids answered HTTP ${r.status}: ${r.text}`);
    this.decided.push({ bidDigest: bid.bidDigest, accepted: d.accept });
  }

  async stop(): Promise<void> {
    this.stream?.close();
    this.stopped = true;
    await this.loop?.catch(() => {});
    await Promise.allSettled([...this.pending]);
  }
}
