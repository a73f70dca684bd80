/**
 * A streaming HTTP call (SendBid, ReceiveBids, Subscribe) read in the background, one JSON line at a time.
 *
 * The stream exists as soon as the request is sent: a node that, like upstream's, sends no status line and no
 * headers until its first message (api-behaviour §0.5) is still being read, and the stream is judged by its
 * messages. Blank lines are skipped (grpc-gateway clients skip whitespace between JSON values). Closing the stream,
 * or ending its scenario, aborts the request whether or not headers came.
 */
import { describeFetchError, isConnectionFailure } from "./http.ts";
import { RUN_SCOPE, type ScenarioScope } from "./scope.ts";
import { Wakeup } from "./wakeup.ts";

/** A non-blank line of a stream: parsed JSON, or `{ unparsable: text }`. */
export type Line = unknown;

export class LineStream {
  readonly transport = "http" as const;
  /** Every non-blank line so far, in arrival order. */
  readonly lines: Line[] = [];
  /** The whole body as received. */
  text = "";
  status: number | undefined;
  contentType: string | undefined;
  /** ms from the request to its response head, if one came. */
  headersMs: number | undefined;
  /** ms from the request to the first `{"result":…}` line. */
  firstResultMs: number | undefined;
  /** ms from the request to the end of the body (or to the break or close). */
  endMs: number | undefined;
  ended = false;
  /** Why the stream ended: "end" (the node ended it), "closed" (by the suite) or "broken: …". */
  endReason = "";
  /** True when the stream broke because nothing answered at the address. */
  connectionFailed = false;
  /** Resolves when the stream ended, however it ended. */
  readonly done: Promise<void>;

  get ok(): boolean {
    return this.status === 200;
  }

  private readonly t0 = performance.now();
  private readonly req: ReturnType<ScenarioScope["request"]>;
  private closedByUs = false;
  private buffer = "";
  private readonly changes = new Wakeup();
  private readonly heads = new Wakeup();

  constructor(
    readonly method: string,
    readonly url: string,
    opts: { body?: string; contentType?: string; scope?: ScenarioScope } = {},
  ) {
    this.req = (opts.scope ?? RUN_SCOPE).request();
    const headers: Record<string, string> = {};
    if (opts.body !== undefined) headers["content-type"] = opts.contentType ?? "application/json";
    this.done = this.pump(fetch(url, { method, body: opts.body, headers, signal: this.req.signal }));
  }

  private async pump(response: Promise<Response>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      const res = await response;
      this.status = res.status;
      this.contentType = res.headers.get("content-type") ?? "";
      this.headersMs = performance.now() - this.t0;
      this.wakeHead();
      if (res.body) {
        const reader = res.body.getReader();
        for (;;) {
          const chunk = await reader.read();
          if (chunk.done) break;
          this.take(decoder.decode(chunk.value, { stream: true }));
        }
      }
      this.take(decoder.decode());
      if (this.buffer.trim()) this.line(this.buffer.trim());
      this.buffer = "";
      this.endReason = "end";
    } catch (e) {
      const reason = this.req.signal.aborted ? this.req.signal.reason : e;
      this.connectionFailed = !this.closedByUs && isConnectionFailure(e);
      this.endReason = this.closedByUs ? "closed" : `broken: ${describeFetchError(reason)}`;
    } finally {
      this.endMs = performance.now() - this.t0;
      this.ended = true;
      this.req.done();
      this.wake();
      this.wakeHead();
    }
  }

  private take(text: string): void {
    this.text += text;
    this.buffer += text;
    for (let nl = this.buffer.indexOf("\n"); nl >= 0; nl = this.buffer.indexOf("\n")) {
      const raw = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (raw) this.line(raw);
    }
  }

  private line(raw: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = { unparsable: raw };
    }
    if (this.firstResultMs === undefined && parsed && typeof parsed === "object" && "result" in parsed)
      this.firstResultMs = performance.now() - this.t0;
    this.lines.push(parsed);
    this.wake();
  }

  private wake(): void {
    this.changes.wake();
  }

  private wakeHead(): void {
    this.heads.wake();
  }

  /** Waits until something changes (a line, the end) or `ms` pass. */
  changed(ms: number): Promise<void> {
    return this.changes.wait(ms);
  }

  /** Waits until the response head came (true) or `ms` passed or the stream ended without one (false). */
  async head(ms: number): Promise<boolean> {
    if (this.status !== undefined) return true;
    if (this.ended) return false;
    await this.heads.wait(ms);
    return this.status !== undefined;
  }

  /** The line at `index`, waiting for it; undefined when the stream ends before it. */
  async lineAt(index: number): Promise<Line | undefined> {
    for (;;) {
      if (this.lines.length > index) return this.lines[index];
      if (this.ended) return undefined;
      await this.changed(60_000);
    }
  }

  close(): void {
    if (this.ended) return;
    this.closedByUs = true;
    this.req.abort();
  }

  /** For failure messages. */
  describe(max = 2000): string {
    const body = this.text.length > max ? `${this.text.slice(0, max)}…` : this.text;
    const head =
      this.status === undefined ? "no response head" : `HTTP ${this.status}, content type "${this.contentType}"`;
    return `${head}, body ${JSON.stringify(body)}${this.ended ? `, ${this.endReason === "end" ? "ended by the node" : this.endReason}` : ", still open"}`;
  }
}
