import { MevCommitError } from "../../lib/errors.ts";

/**
 * One long POST whose body is a stream of JSON lines, each sent the moment it is written: the way a provider
 * application streams its decisions to SendProcessedBids (interface.md §4.4: "one message per bid") without a
 * request per decision. The answer comes when the body ends (`close`) or the server ends the exchange early. No
 * client-side timeout: an upload may rest between lines for as long as no bid comes.
 */
export class NdjsonUploadError extends MevCommitError {
  constructor(
    readonly url: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`POST ${url} (streamed body): ${message}`, { ...options, context: { url } });
  }
}

export interface UploadResult {
  status: number;
  text: string;
}

const encoder = new TextEncoder();

export class NdjsonUpload {
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  /** Settles when the server answers (after the body ends, or earlier if it gives up on it). */
  readonly result: Promise<UploadResult>;
  private ended = false;
  /** Lines written before the exchange ended; a caller may want to know how many were possibly lost. */
  written = 0;

  constructor(readonly url: string) {
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (this.controller = c) });
    this.result = fetch(url, {
      method: "POST",
      body,
      headers: { "content-type": "application/x-ndjson" },
      duplex: "half",
      timeout: false,
    } as RequestInit)
      .then(async (res) => ({ status: res.status, text: await res.text() }))
      .catch((e: unknown) => {
        throw new NdjsonUploadError(url, (e as Error)?.message ?? String(e), { cause: e });
      })
      .finally(() => void (this.ended = true));
    this.result.catch(() => undefined); // the owner reads it; an unawaited failure must not crash the process
  }

  /** True once the exchange is over: a write now would go nowhere. */
  get closed(): boolean {
    return this.ended;
  }

  /** Sends one line now. Throws NdjsonUploadError once the exchange is over. */
  write(value: unknown): void {
    if (this.ended) throw new NdjsonUploadError(this.url, "the exchange is over");
    try {
      this.controller.enqueue(encoder.encode(`${JSON.stringify(value)}\n`));
      this.written++;
    } catch (e) {
      this.ended = true;
      throw new NdjsonUploadError(this.url, (e as Error).message, { cause: e });
    }
  }

  /** Ends the body and waits for the server's answer. */
  async close(): Promise<UploadResult> {
    if (!this.ended) {
      try {
        this.controller.close();
      } catch {
        // already closed by a failed exchange
      }
    }
    return this.result;
  }
}
