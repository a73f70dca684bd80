import { toRpcError } from "../../protocol/grpcCodes.ts";
import { logger } from "../../util/log.ts";

const log = logger("stream");
const enc = new TextEncoder();
const OPEN = enc.encode("\n");

/**
 * A grpc-gateway server stream over HTTP: one `{"result":…}` line per message, flushed at once; an error after
 * the stream opened ends it with one `{"error":…}` line (status stays 200). Headers go out when the stream opens,
 * followed by one newline (upstream sends nothing until the first message; see docs/divergences.md). `onClose` runs once when the stream ends for
 * any reason, the client leaving included: producers blocked waiting for data clean up there (an async
 * generator's `return()` would wait for its pending `next()`).
 */
export function ndjsonResponse(source: AsyncIterable<unknown>, onClose?: () => void): Response {
  const it = source[Symbol.asyncIterator]();
  let closed = false;
  const finish = () => {
    if (closed) return;
    closed = true;
    onClose?.();
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // Bun sends the response head only with the first body byte: one newline (JSON whitespace) commits it now.
      controller.enqueue(OPEN);
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
        controller.enqueue(enc.encode(JSON.stringify({ result: value }) + "\n"));
      } catch (err) {
        if (closed) return;
        finish();
        const e = toRpcError(err);
        log.debug("stream ended with error", { code: e.code, message: e.message });
        controller.enqueue(enc.encode(JSON.stringify({ error: e.toStatusBody() }) + "\n"));
        controller.close();
      }
    },
    cancel() {
      finish();
      void it.return?.();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { "content-type": "application/json", "cache-control": "no-cache", "x-accel-buffering": "no" },
  });
}
