import { afterAll, expect, test } from "bun:test";
import { until } from "../util/deadline.ts";
import { type AgentLog, KeptStream } from "./keptStream.ts";
import { NdjsonStream } from "./ndjson.ts";

// A real HTTP server whose stream answers one line and ends; its second request is refused with 503.
let opens = 0;
const server = Bun.serve({
  port: 0,
  fetch() {
    opens++;
    if (opens === 2) return new Response("busy", { status: 503 });
    return new Response(`${JSON.stringify({ result: { n: opens } })}\n`, {
      headers: { "content-type": "application/x-ndjson" },
    });
  },
});
afterAll(() => server.stop(true));

test("a stream that ends is opened again with back-off, a refused try is retried, and each step is logged", async () => {
  const lines: string[] = [];
  const log: AgentLog = (level, message, fields) => lines.push(`${level} ${message} ${JSON.stringify(fields)}`);
  const seen: number[] = [];
  const kept = new KeptStream<{ n: number }>(
    async () => {
      const s = await NdjsonStream.open<{ n: number }>("GET", `http://127.0.0.1:${server.port}/`);
      if (s.status !== 200) {
        s.close();
        throw new Error(`answered HTTP ${s.status}`);
      }
      return s;
    },
    async (s) => {
      let n = 0;
      for (let line = await s.next(); line !== undefined; line = await s.next())
        if (!("error" in line)) {
          seen.push(line.result.n);
          n++;
        }
      return n;
    },
    { name: "test", fields: () => ({ at: "here" }), backoffMs: 10, maxBackoffMs: 40, log },
  );
  await kept.start();
  await until("the third open", 10_000, () => kept.reattached >= 2);
  await kept.stop();
  expect(seen.slice(0, 2)).toEqual([1, 3]);
  expect(lines[0]).toStartWith(
    'warn test stream ended; reattaching {"at":"here","reason":"ended by the server","linesOnStream":1,"retryInMs":10}',
  );
  expect(lines[1]).toStartWith(
    'warn cannot reattach to test; retrying {"at":"here","error":"answered HTTP 503","retryInMs":20}',
  );
  expect(lines[2]).toBe('info test stream reattached {"at":"here"}');
});

test("the first open's failure is thrown to the caller and nothing keeps running", async () => {
  const kept = new KeptStream(
    () => Promise.reject(new Error("no such node")),
    async () => 0,
    { name: "test", fields: () => ({}), log: () => {} },
  );
  await expect(kept.start()).rejects.toThrow("no such node");
  await kept.stop();
});
