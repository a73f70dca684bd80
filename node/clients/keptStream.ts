import type { NdjsonStream } from "./ndjson.ts";

/** Where an agent reports its stream's life (detached, reattached). */
export type AgentLog = (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;

/** An AgentLog over any leveled logger (the node's, for instance), without depending on it. */
export function agentLog(l: {
  info(m: string, f?: Record<string, unknown>): void;
  warn(m: string, f?: Record<string, unknown>): void;
}): AgentLog {
  return (level, message, fields) => l[level](message, fields);
}

/** An AgentLog writing one line on stderr, in the node's format, tagged with `component`. */
export function stderrLog(component: string): AgentLog {
  return (level, message, fields) => {
    const kv = Object.entries(fields)
      .map(([k, v]) => ` ${k}=${typeof v === "string" && !/\s/.test(v) ? v : JSON.stringify(v)}`)
      .join("");
    process.stderr.write(
      `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} [${component}] ${message}${kv}\n`,
    );
  };
}

export interface KeptStreamOptions {
  /** The stream's name in log lines, e.g. "receive_bids". */
  name: string;
  /** Fields added to every log line (which node, which policy). */
  fields: () => Record<string, unknown>;
  /** First wait before reopening, doubled after each failed try up to `maxBackoffMs`. Default 250 ms. */
  backoffMs?: number;
  /** Default 5 s. */
  maxBackoffMs?: number;
  log: AgentLog;
}

/**
 * A long-lived NDJSON stream kept open for as long as its owner runs: whenever it ends (the node restarted, a proxy
 * or the client's idle timeout dropped the connection, the node ended it), the loop logs why and opens it again,
 * waiting `backoffMs` before the first try and twice as long after each failure, up to `maxBackoffMs`. A stream that
 * carried lines or lived 10 s worked, so the next wait starts from `backoffMs` again.
 */
export class KeptStream<T> {
  /** How many times the stream ended and was opened again. */
  reattached = 0;
  private current: NdjsonStream<T> | undefined;
  private stopped = false;
  private wakeFromBackoff: (() => void) | undefined;
  private loop: Promise<void> | undefined;

  /**
   * @param open opens the stream; throws when the server refuses it (the loop retries).
   * @param consume reads the stream until it ends; answers how many lines it carried.
   */
  constructor(
    private readonly open: () => Promise<NdjsonStream<T>>,
    private readonly consume: (stream: NdjsonStream<T>) => Promise<number>,
    private readonly options: KeptStreamOptions,
  ) {}

  /** Opens the stream and starts the loop; the first attempt's failure is thrown (a wrong URL should be loud). */
  start(): Promise<void> {
    const first = this.openOnce();
    this.loop = first.then((s) => this.run(s));
    // The first attempt's failure reaches the caller through the promise answered here.
    this.loop.catch(() => {});
    return first.then(() => undefined);
  }

  /** The loop's promise, once started (it ends after stop()). */
  get running(): Promise<void> | undefined {
    return this.loop;
  }

  private async openOnce(): Promise<NdjsonStream<T>> {
    const stream = await this.open();
    this.current = stream;
    if (this.stopped) stream.close();
    return stream;
  }

  private async run(first: NdjsonStream<T>): Promise<void> {
    const { name, log } = this.options;
    const initial = this.options.backoffMs ?? 250;
    const max = this.options.maxBackoffMs ?? 5_000;
    let backoff = initial;
    let stream: NdjsonStream<T> | undefined = first;
    while (!this.stopped) {
      if (!stream) {
        try {
          stream = await this.openOnce();
          if (this.stopped) return;
          this.reattached++;
          log("info", `${name} stream reattached`, this.options.fields());
        } catch (e) {
          if (this.stopped) return;
          log("warn", `cannot reattach to ${name}; retrying`, {
            ...this.options.fields(),
            error: (e as Error).message,
            retryInMs: backoff,
          });
          await this.pause(backoff);
          backoff = Math.min(backoff * 2, max);
          continue;
        }
      }
      const openedAt = performance.now();
      const lines = await this.consume(stream);
      if (this.stopped) return;
      if (lines > 0 || performance.now() - openedAt > 10_000) backoff = initial;
      log("warn", `${name} stream ended; reattaching`, {
        ...this.options.fields(),
        reason: stream.endReason ?? "ended by the server",
        linesOnStream: lines,
        retryInMs: backoff,
      });
      stream = undefined;
      this.current = undefined;
      await this.pause(backoff);
      backoff = Math.min(backoff * 2, max);
    }
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

  /** Closes the stream and ends the loop. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.close();
    this.wakeFromBackoff?.();
    await this.loop?.catch(() => {});
  }
}
