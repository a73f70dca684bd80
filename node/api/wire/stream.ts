import { toRpcError } from "../../protocol/grpcCodes.ts";
import { logger } from "../../util/log.ts";

const log = logger("stream");
const enc = new TextEncoder();

/**
 * A grpc-gateway server stream over HTTP: one `{"result":…}` line per message, flushed at once; an error after
 * the stream opened ends it with one `{"error":…}` line (status stays 200). Headers go out when the stream opens
 * (upstream waits for the first message; see docs/divergences.md). When the client leaves, the source iterator
 * is closed (`return()`), which is how producers learn to clean up.
 */
export function ndjsonResponse(source: AsyncIterable<unknown>): Response {
  const it = source[Symbol.asyncIterator]();
  let closed = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await it.next();
        if (closed) return;
        if (done) {
          closed = true;
          controller.close();
          return;
        }
        controller.enqueue(enc.encode(JSON.stringify({ result: value }) + "\n"));
      } catch (err) {
        if (closed) return;
        closed = true;
        const e = toRpcError(err);
        log.debug("stream ended with error", { code: e.code, message: e.message });
        controller.enqueue(enc.encode(JSON.stringify({ error: e.toStatusBody() }) + "\n"));
        controller.close();
      }
    },
    async cancel() {
      closed = true;
      await it.return?.();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { "content-type": "application/json", "cache-control": "no-cache", "x-accel-buffering": "no" },
  });
}
