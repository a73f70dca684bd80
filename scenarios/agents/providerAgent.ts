import { NdjsonStream } from "../clients/ndjson.ts";
import { call } from "../clients/http.ts";
import type { ProviderPolicy, ReceivedBid } from "./policies.ts";

export class ProviderAgentError extends Error {
  override name = "ProviderAgentError";
}

/** Where an agent reports its stream's life (detached, reattached). */
export type AgentLog = (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;

/** An AgentLog over any leveled logger (the node's, for instance), without depending on it. */
export function agentLog(l: { info(m: string, f?: Record<string, unknown>): void; warn(m: string, f?: Record<string, unknown>): void }): AgentLog {
  return (level, message, fields) => l[level](message, fields);
}

/** The default AgentLog: one line on stderr, in the node's format. */
const stderrLog: AgentLog = (level, message, fields) => {
  const kv = Object.entries(fields)
    .map(([k, v]) => ` ${k}=${typeof v === "string" && !/\s/.test(v) ? v : JSON.stringify(v)}`)
    .join("");
  process.stderr.write(`${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} [provider-agent] ${message}${kv}\n`);
};

export interface ProviderAgentOptions {
  /** Idle timeout of the ReceiveBids connection, ms (see StreamOpenOptions); default Bun's, 300 s. */
  idleTimeoutMs?: number;
  /** First wait before reattaching, doubled after each failed try up to `maxBackoffMs`. Default 250 ms. */
  backoffMs?: number;
  /** Default 5 s. */
  maxBackoffMs?: number;
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
  private stream: NdjsonStream<ReceivedBid> | undefined;
  private loop: Promise<void> | undefined;
  private readonly pending = new Set<Promise<void>>();
  readonly seen: ReceivedBid[] = [];
  readonly decided: { bidDigest: string; accepted: boolean }[] = [];
  errors: string[] = [];
  /** How many times the stream ended and was opened again. */
  reattached = 0;
  private stopped = false;
  private wakeFromBackoff: (() => void) | undefined;
  private readonly log: AgentLog;

  constructor(
    readonly providerUrl: string,
    public policy: ProviderPolicy,
    private readonly options: ProviderAgentOptions = {},
  ) {
    this.log = options.log ?? stderrLog;
  }

  private open(): Promise<NdjsonStream<ReceivedBid>> {
    return NdjsonStream.open<ReceivedBid>("GET", `${this.providerUrl}/v1/provider/receive_bids`, undefined, { idleTimeoutMs: this.options.idleTimeoutMs }).then(
      (stream) => {
        if (stream.status !== 200) {
          stream.close();
          throw new ProviderAgentError(`receive_bids answered HTTP ${stream.status}`);
        }
        this.stream = stream;
        if (this.stopped) stream.close();
        return stream;
      },
    );
  }

  /**
   * Resolves once the node has the receiver attached: when the stream's headers arrive, or after `headerWaitMs`
   * for a node that, like upstream, sends no headers until the first bid (the stream then keeps opening). Fails
   * when the first attempt fails (a wrong URL should be loud); later attempts are retried.
   */
  async start(headerWaitMs = 2_000): Promise<void> {
    const opening = this.open();
    this.loop = opening.then((s) => this.run(s));
    const early = await Promise.race([opening.then(() => true), Bun.sleep(headerWaitMs).then(() => false)]);
    if (!early) this.loop.catch((e) => this.errors.push(String((e as Error).message ?? e)));
  }

  private async run(first: NdjsonStream<ReceivedBid>): Promise<void> {
    let stream: NdjsonStream<ReceivedBid> | undefined = first;
    const initial = this.options.backoffMs ?? 250;
    const max = this.options.maxBackoffMs ?? 5_000;
    let backoff = initial;
    while (!this.stopped) {
      if (!stream) {
        try {
          stream = await this.open();
          if (this.stopped) return;
          this.reattached++;
          this.log("info", "receive_bids stream reattached", { provider: this.providerUrl, policy: this.policy.name });
        } catch (e) {
          if (this.stopped) return;
          this.log("warn", "cannot reattach to receive_bids; retrying", { provider: this.providerUrl, error: (e as Error).message, retryInMs: backoff });
          await this.pause(backoff);
          backoff = Math.min(backoff * 2, max);
          continue;
        }
      }
      const openedAt = performance.now();
      const received = await this.consume(stream);
      if (this.stopped) return;
      // A stream that carried bids or lived a while worked: the next try starts from the first wait again.
      if (received > 0 || performance.now() - openedAt > 10_000) backoff = initial;
      this.log("warn", "receive_bids stream ended; reattaching", {
        provider: this.providerUrl,
        reason: stream.endReason ?? "ended by the server",
        bidsOnStream: received,
        retryInMs: backoff,
      });
      stream = undefined;
      this.stream = undefined;
      await this.pause(backoff);
      backoff = Math.min(backoff * 2, max);
    }
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

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.wakeFromBackoff = () => {
        clearTimeout(t);
        resolve();
      };
    });
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
    this.stopped = true;
    this.stream?.close();
    this.wakeFromBackoff?.();
    await this.loop?.catch(() => {});
    await Promise.allSettled([...this.pending]);
  }
}
