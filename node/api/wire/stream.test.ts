/**
 * Why idle streams died and how they live: Bun's fetch drops a connection on which no byte arrives for its idle
 * timeout (300 s by default; 1 s here, checked by Bun every few seconds), so a ReceiveBids or Subscribe stream with
 * nothing to say ended after a few minutes. A blank line on idle streams keeps them open. Real server, real client.
 */
import { afterAll, expect, test } from "bun:test";
import { NdjsonStream } from "../../clients/ndjson.ts";
import { ndjsonResponse, setStreamKeepAlive } from "./stream.ts";

/** A source that never yields until the stream is closed. */
function silent(): AsyncIterable<unknown> {
  return { [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<unknown>>(() => {}) }) };
}

const server = Bun.serve({
  port: 0,
  idleTimeout: 0,
  fetch(req) {
    const res = ndjsonResponse(silent());
    setStreamKeepAlive(res, Number(new URL(req.url).searchParams.get("keepalive")));
    return res;
  },
});
afterAll(() => server.stop(true));

async function lifetime(keepAliveMs: number, watchMs: number): Promise<{ endedAfterMs?: number; reason?: string }> {
  const t0 = performance.now();
  const s = await NdjsonStream.open("GET", `http://127.0.0.1:${server.port}/?keepalive=${keepAliveMs}`, undefined, {
    idleTimeoutMs: 1_000,
  });
  const watch = setTimeout(() => s.close(), watchMs);
  const line = await s.next();
  clearTimeout(watch);
  expect(line).toBeUndefined();
  const closedByUs = s.endReason === "closed by the client";
  return { endedAfterMs: closedByUs ? undefined : performance.now() - t0, reason: s.endReason };
}

test("a silent stream is dropped by the client's idle timeout; with keep-alive blank lines it stays open", async () => {
  const [without, withKeepAlive] = await Promise.all([lifetime(0, 15_000), lifetime(300, 10_000)]);
  expect(without.endedAfterMs).toBeDefined();
  expect(without.reason).toStartWith("connection lost: TimeoutError");
  expect(withKeepAlive.endedAfterMs).toBeUndefined();
  expect(withKeepAlive.reason).toBe("closed by the client");
}, 30_000);
