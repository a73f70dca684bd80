import { MevCommitError } from "../../lib/errors.ts";
import { call } from "../clients/http.ts";
import { type AgentLog, KeptStream, stderrLog } from "../clients/keptStream.ts";
import { NdjsonStream } from "../clients/ndjson.ts";
import { NdjsonUpload } from "../clients/ndjsonUpload.ts";
import type { ProviderPolicy, ReceivedBid } from "./policies.ts";

export class ProviderAgentError extends MevCommitError {}

export { type AgentLog, agentLog } from "../clients/keptStream.ts";

export interface ProviderAgentOptions {
  /** Idle timeout of the ReceiveBids connection, ms (see StreamOpenOptions); default Bun's, 300 s. */
  idleTimeoutMs?: number;
  /** First wait before reattaching, doubled after each failed try up to `maxBackoffMs`. Default 250 ms. */
  backoffMs?: number;
  /** Default 5 s. */
  maxBackoffMs?: number;
  /**
   * How decisions reach SendProcessedBids: `request`, one POST each and its answer checked (default); or `stream`,
   * the lines of one long POST per ReceiveBids attachment (a new one when the stream reattaches or the POST ended),
   * as a production application would stream them: the node handles one request instead of one per decision.
   */
  decisions?: "request" | "stream";
  log?: AgentLog;
}

/**
 * A simulated provider application: attaches to a provider node's ReceiveBids stream and answers each bid through
 * SendProcessedBids as its policy decides. Works against any implementation of the provider API.
 *
 * The stream is kept for as long as the agent runs: whenever it ends (the node restarted, a proxy or the client's
 * idle timeout dropped the connection, the node ended it), the agent logs why and reattaches, waiting `backoffMs`
 * before the first try and twice as long after each failure, up to `maxBackoffMs`.
 */
export class ProviderAgent {
  private readonly kept: KeptStream<ReceivedBid>;
  private readonly pending = new Set<Promise<void>>();
  private upload: NdjsonUpload | undefined;
  /** SendProcessedBids uploads opened (`decisions: "stream"`). */
  decisionUploads = 0;
  private readonly log: AgentLog;
  readonly seen: ReceivedBid[] = [];
  readonly decided: { bidDigest: string; accepted: boolean }[] = [];
  errors: string[] = [];

  constructor(
    readonly providerUrl: string,
    public policy: ProviderPolicy,
    private readonly options: ProviderAgentOptions = {},
  ) {
    this.log = options.log ?? stderrLog("provider-agent");
    this.kept = new KeptStream(
      () => this.open(),
      (s) => this.consume(s),
      {
        name: "receive_bids",
        fields: () => ({ provider: this.providerUrl, policy: this.policy.name }),
        backoffMs: options.backoffMs,
        maxBackoffMs: options.maxBackoffMs,
        log: this.log,
      },
    );
  }

  /** How many times the stream ended and was opened again. */
  get reattached(): number {
    return this.kept.reattached;
  }

  private async open(): Promise<NdjsonStream<ReceivedBid>> {
    const stream = await NdjsonStream.open<ReceivedBid>(
      "GET",
      `${this.providerUrl}/v1/provider/receive_bids`,
      undefined,
      { idleTimeoutMs: this.options.idleTimeoutMs },
    );
    if (stream.status !== 200) {
      stream.close();
      throw new ProviderAgentError(`receive_bids answered HTTP ${stream.status}`);
    }
    // A new attachment (the node may have restarted): decisions go on a new upload too, never on one to a node that
    // is gone but whose end has not been noticed yet.
    const old = this.upload;
    this.upload = undefined;
    void old?.close().catch(() => undefined);
    return stream;
  }

  /**
   * Resolves once the node has the receiver attached: when the stream's headers arrive, or after `headerWaitMs`
   * for a node that, like upstream, sends no headers until the first bid (the stream then keeps opening). Fails
   * when the first attempt fails (a wrong URL should be loud); later attempts are retried.
   */
  async start(headerWaitMs = 2_000): Promise<void> {
    const opening = this.kept.start();
    const early = await Promise.race([opening.then(() => true), Bun.sleep(headerWaitMs).then(() => false)]);
    if (!early) opening.catch((e) => this.errors.push(String((e as Error).message ?? e)));
  }

  /** Reads bids until the stream ends; answers each one; returns how many arrived. */
  private async consume(stream: NdjsonStream<ReceivedBid>): Promise<number> {
    let received = 0;
    for (let line = await stream.next(); line !== undefined; line = await stream.next()) {
      if ("error" in line) {
        this.errors.push(line.error.message);
        stream.endReason = `error line: ${line.error.message}`;
        stream.close();
        break;
      }
      received++;
      const bid = line.result;
      this.seen.push(bid);
      const p = this.answer(bid)
        .catch((e) => void this.errors.push(`answering a bid failed: ${(e as Error).message}`))
        .finally(() => this.pending.delete(p));
      this.pending.add(p);
    }
    return received;
  }

  private async answer(bid: ReceivedBid): Promise<void> {
    const d = await this.policy.decide(bid);
    if (d === undefined) return;
    const body = d.accept
      ? { bidDigest: bid.bidDigest, status: "STATUS_ACCEPTED", dispatchTimestamp: d.dispatchTimestamp.toString() }
      : { bidDigest: bid.bidDigest, status: "STATUS_REJECTED" };
    if (this.options.decisions === "stream") {
      this.decisionUpload().write(body);
    } else {
      const r = await call("POST", `${this.providerUrl}/v1/provider/send_processed_bids`, { body });
      if (r.status !== 200) this.errors.push(`send_processed_bids answered HTTP ${r.status}: ${r.text}`);
    }
    this.decided.push({ bidDigest: bid.bidDigest, accepted: d.accept });
  }

  /** The open SendProcessedBids upload, a new one when there is none or the last one ended. */
  private decisionUpload(): NdjsonUpload {
    if (this.upload && !this.upload.closed) return this.upload;
    const upload = new NdjsonUpload(`${this.providerUrl}/v1/provider/send_processed_bids`);
    upload.result.then(
      (r) => {
        if (r.status !== 200) this.errors.push(`send_processed_bids (streamed) answered HTTP ${r.status}: ${r.text}`);
        else if (this.upload === upload)
          this.log("warn", "send_processed_bids stream ended early; the next decision opens another", {
            provider: this.providerUrl,
            decisions: upload.written,
          });
      },
      (e: unknown) => {
        const message = `send_processed_bids stream failed after ${upload.written} decision(s): ${(e as Error).message}`;
        this.errors.push(message);
        this.log("warn", "send_processed_bids stream failed; decisions not yet read by the node are lost", {
          provider: this.providerUrl,
          error: message,
        });
      },
    );
    this.upload = upload;
    this.decisionUploads++;
    return upload;
  }

  async stop(): Promise<void> {
    await this.kept.stop();
    await Promise.allSettled([...this.pending]);
    const upload = this.upload;
    this.upload = undefined;
    await upload?.close().catch(() => undefined); // a failure is in `errors` already
  }
}
