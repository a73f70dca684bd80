/**
 * The slow reader holds a real grpc-js server back with HTTP/2 flow control: a server that waits for the window
 * delivers every message once the reader reads on; one that stops writing when its buffer is full ends the stream
 * early, and the reader sees both the missing messages and the end.
 */
import { afterEach, expect, test } from "bun:test";
import { Server, ServerCredentials, type ServerWritableStream } from "@grpc/grpc-js";
import { SlowReader } from "./support/holesSlowReader.ts";

const N = 40;
const identity = (x: Buffer) => x;
const definition = {
  S: {
    path: "/t.T/S",
    requestStream: false,
    responseStream: true,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};

let server: Server | undefined;
let reader: SlowReader | undefined;
afterEach(() => {
  reader?.close();
  server?.forceShutdown();
});

/** A server that writes N messages of 300 bytes, 10 ms apart; `dropWhenFull` stops at the first full buffer. */
async function serve(dropWhenFull: boolean): Promise<{ port: number; waitedMs: () => number }> {
  let waited = 0;
  server = new Server();
  server.addService(definition as never, {
    S: async (call: ServerWritableStream<Buffer, Buffer>) => {
      for (let i = 0; i < N; i++) {
        await Bun.sleep(10);
        if (call.write(Buffer.alloc(300, i))) continue;
        if (dropWhenFull) break;
        const t = performance.now();
        await new Promise((r) => call.once("drain", r));
        waited += performance.now() - t;
      }
      call.end();
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server!.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { port, waitedMs: () => waited };
}

async function readSlowly(port: number): Promise<SlowReader> {
  reader = new SlowReader({
    address: `127.0.0.1:${port}`,
    path: "/t.T/S",
    request: new Uint8Array([1]),
    windowBytes: 1024,
  });
  await reader.open();
  await Bun.sleep(1_500);
  expect(reader.messages.length).toBeLessThan(5);
  reader.resume();
  await reader.waitFor(N, 10_000);
  await Bun.sleep(200);
  return reader;
}

test("a server that waits for the window delivers every message, then ends the stream", async () => {
  const s = await serve(false);
  const r = await readSlowly(s.port);
  expect(r.messages.length).toBe(N);
  expect(r.messages.map((m) => m[0])).toEqual(Array.from({ length: N }, (_, i) => i));
  expect(s.waitedMs()).toBeGreaterThan(0);
  expect(r.endReason).toBe("the node ended the stream (trailers)");
});

test("a server that stops writing when its buffer is full is seen ending early", async () => {
  const s = await serve(true);
  const r = await readSlowly(s.port);
  expect(r.messages.length).toBeLessThan(N);
  expect(r.ended).toBe(true);
});
