/**
 * Lazy multistream-select between two real libp2p hosts (TCP, Noise, yamux): a protocol proposed lazily carries data
 * both ways like a negotiated one, and one the peer does not speak fails at the first read instead of at the dial.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Stream } from "@libp2p/interface";
import { lpStream } from "@libp2p/utils";
import { Blocklist, createHost, type Host } from "./host.ts";
import { MULTISTREAM_ID, multistreamLine } from "./lazySelect.ts";

const KEYS = ["0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9ad8cfee0ab8c"] as const;
const ECHO = "/mev-commit-test/echo/1.0.0";
const UNKNOWN = "/mev-commit-test/unknown/1.0.0";
const listen = ["/ip4/127.0.0.1/tcp/0"];
let listener: Host;
let dialer: Host;

beforeAll(async () => {
  listener = await createHost({ nodeKey: KEYS[0], listen, blocklist: new Blocklist() });
  dialer = await createHost({ nodeKey: KEYS[1], listen, blocklist: new Blocklist(), lazyProtocols: [ECHO, UNKNOWN] });
  await listener.start();
  await dialer.start();
  // Echoes every length-prefixed message back, the way a provider answers a bid on the same stream.
  await listener.handle(ECHO, async (stream: Stream) => {
    const lp = lpStream(stream);
    for (;;) {
      const msg = await lp.read().catch(() => undefined);
      if (!msg) return;
      await lp.write(msg.subarray());
    }
  });
});

afterAll(async () => {
  await dialer?.stop();
  await listener?.stop();
});

test("multistream lines are varint-length-prefixed and newline-terminated", () => {
  expect([...multistreamLine(MULTISTREAM_ID)]).toEqual([19, ...new TextEncoder().encode(`${MULTISTREAM_ID}\n`)]);
  const long = "x".repeat(200);
  expect([...multistreamLine(long).subarray(0, 2)]).toEqual([(201 & 0x7f) | 0x80, 201 >> 7]);
});

test("a lazily proposed protocol carries messages both ways, the first written before any answer arrived", async () => {
  const stream = await dialer.dialProtocol(listener.getMultiaddrs(), ECHO);
  expect(stream.protocol).toBe(ECHO);
  const lp = lpStream(stream);
  for (const text of ["bid 1", "bid 2", "x".repeat(5000)]) {
    await lp.write(new TextEncoder().encode(text));
    expect(new TextDecoder().decode((await lp.read()).subarray())).toBe(text);
  }
  await stream.close();
});

test("a protocol the peer does not speak: the dial succeeds at once, the first read fails", async () => {
  // js-libp2p's own select would reject this dial with UnsupportedProtocolError after the peer's "na".
  const stream = await dialer.dialProtocol(listener.getMultiaddrs(), UNKNOWN);
  const lp = lpStream(stream);
  await lp.write(new TextEncoder().encode("bid")).catch(() => {});
  const read = await lp.read().then(
    () => "read a message",
    (e: Error) => e.name,
  );
  expect(read).not.toBe("read a message");
  expect(stream.status).not.toBe("open");
});
