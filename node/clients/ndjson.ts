import { HttpCallError } from "./http.ts";

/** One line of a grpc-gateway stream. */
export type StreamLine<T> = { result: T } | { error: { code: number; message: string; details: unknown[] } };

export interface StreamOpenOptions {
  /**
   * Close the connection when no byte arrives for this long, ms (Bun's fetch `timeout`; its default is 300 s, and
   * it checks every few seconds, so the stream ends up to ~8 s later). 0 = never.
   */
  idleTimeoutMs?: number;
}

/**
 * An open NDJSON stream (SendBid, ReceiveBids, Subscribe): read lines as they arrive, or close it. `status` and
 * `headers` are known once the response has started. Blank lines (servers' keep-alives) are skipped.
 */
export class NdjsonStream<T> {
  private buffer = "";
  private readonly decoder = new TextDecoder();
  private done = false;
  /** Why the stream ended, once it has: the server ended it, the connection failed (its error), or we closed it. */
  endReason: string | undefined;

  private constructor(
    readonly status: number,
    readonly headers: Headers,
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly controller: AbortController,
  ) {}

  static async open<T>(
    method: string,
    url: string,
    body?: unknown,
    options: StreamOpenOptions = {},
  ): Promise<NdjsonStream<T>> {
    const controller = new AbortController();
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
        headers: body === undefined ? {} : { "content-type": "application/json" },
        signal: controller.signal,
        ...(options.idleTimeoutMs === undefined
          ? {}
          : { timeout: options.idleTimeoutMs === 0 ? false : options.idleTimeoutMs }),
      } as RequestInit);
    } catch (e) {
      throw new HttpCallError(method, url, e);
    }
    return new NdjsonStream<T>(
      res.status,
      res.headers,
      res.body!.getReader() as ReadableStreamDefaultReader<Uint8Array>,
      controller,
    );
  }

  /** The next line, or undefined at the end of the stream. */
  async next(): Promise<StreamLine<T> | undefined> {
    for (;;) {
      const nl = this.buffer.indexOf("\n");
      if (nl >= 0) {
        const line = this.buffer.slice(0, nl).trim();
        this.buffer = this.buffer.slice(nl + 1);
        if (line) return JSON.parse(line) as StreamLine<T>;
        continue;
      }
      if (this.done) {
        const rest = this.buffer.trim();
        this.buffer = "";
        return rest ? (JSON.parse(rest) as StreamLine<T>) : undefined;
      }
      let chunk;
      try {
        chunk = await this.reader.read();
      } catch (e) {
        this.done = true;
        this.endReason ??= `connection lost: ${(e as Error)?.name ?? "Error"}: ${(e as Error)?.message ?? e}`;
        continue;
      }
      if (chunk.done) {
        this.done = true;
        this.endReason ??= "ended by the server";
      } else this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
  }

  /** Reads every line until the server ends the stream. */
  async all(): Promise<StreamLine<T>[]> {
    const out: StreamLine<T>[] = [];
    for (let l = await this.next(); l !== undefined; l = await this.next()) out.push(l);
    return out;
  }

  close(): void {
    this.done = true;
    this.endReason ??= "closed by the client";
    this.controller.abort();
  }
}
