import { toRpcError } from "../../protocol/grpcCodes.ts";
import { logger } from "../../util/log.ts";
import { noteQueuedWrite } from "../../util/queuedWrites.ts";

const log = logger("stream");
const enc = new TextEncoder();
const NEWLINE = enc.encode("\n");

/**
 * How often an idle stream sends a blank line, by default. HTTP clients close connections that stay silent (Bun's
 * fetch after 300 s, many proxies after 60 s); a blank line is JSON whitespace, which every stream client skips.
 */
export const DEFAULT_STREAM_KEEPALIVE_MS = 15_000;

/** Re-arms the keep-alive of each open stream response (see `setStreamKeepAlive`). */
const keepAlives = new WeakMap<Response, (intervalMs: number) => void>();

/**
 * A grpc-gateway server stream over HTTP: one `{"result":…}` line per message, flushed at once; an error after
 * the stream opened ends it with one `{"error":…}` line (status stays 200). Headers go out when the stream opens,
 * followed by one newline (upstream sends nothing until the first message; see docs/divergences.md). While no
 * message flows, a newline goes out every DEFAULT_STREAM_KEEPALIVE_MS (`setStreamKeepAlive` changes it) so that
 * clients and proxies do not drop a quiet stream. `onClose` runs once when the stream ends for any reason, the
 * client leaving included: producers blocked waiting for data clean up there (an async generator's `return()`
 * would wait for its pending `next()`).
 */
export function ndjsonResponse(source: AsyncIterable<unknown>, onClose?: () => void): Response {
  const it = source[Symbol.asyncIterator]();
  let closed = false;
  let lastWrite = performance.now();
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  let control: ReadableStreamDefaultController<Uint8Array> | undefined;
  const finish = () => {
    if (closed) return;
    closed = true;
    clearInterval(keepAlive);
    onClose?.();
  };
  const write = (c: ReadableStreamDefaultController<Uint8Array>, bytes: Uint8Array) => {
    lastWrite = performance.now();
    c.enqueue(bytes);
  };
  const arm = (intervalMs: number) => {
    clearInterval(keepAlive);
    keepAlive = undefined;
    if (closed || !(intervalMs > 0)) return;
    keepAlive = setInterval(() => {
      // Only into an empty queue: a client that does not read gets no pile of blank lines.
      if (closed || !control || performance.now() - lastWrite < intervalMs || (control.desiredSize ?? 0) <= 0) return;
      write(control, NEWLINE);
    }, intervalMs);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      control = controller;
      // Bun sends the response head only with the first body byte: one newline (JSON whitespace) commits it now.
      write(controller, NEWLINE);
    },
    async pull(controller) {
      try {
        const { value, done } = await it.next();
        if (closed) return;
        if (done) {
          finish();
          controller.close();
          return;
        }
        write(controller, enc.encode(`${JSON.stringify({ result: value })}\n`));
        // A message (not a keep-alive or the opening newline): let it out before the next bid's crypto.
        noteQueuedWrite();
      } catch (err) {
        if (closed) return;
        finish();
        const e = toRpcError(err);
        log.debug("stream ended with error", { code: e.code, message: e.message });
        controller.enqueue(enc.encode(`${JSON.stringify({ error: e.toStatusBody() })}\n`));
        controller.close();
      }
    },
    cancel() {
      finish();
      void it.return?.();
    },
  });
  arm(DEFAULT_STREAM_KEEPALIVE_MS);
  const response = new Response(body, {
    status: 200,
    headers: { "content-type": "application/json", "cache-control": "no-cache", "x-accel-buffering": "no" },
  });
  keepAlives.set(response, arm);
  return response;
}

/** Sets how often an idle stream made by `ndjsonResponse` sends a blank line (0 = never); other responses are left alone. */
export function setStreamKeepAlive(response: Response, intervalMs: number): void {
  keepAlives.get(response)?.(intervalMs);
}
