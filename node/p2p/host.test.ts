/**
 * A libp2p host whose dial is aborted at any point (its caller gives up, or the host stops mid-dial) leaves no
 * uncaught error behind: an AbortError thrown by the dial's socket outside any promise would fail whichever test
 * runs next (bun: "Unhandled error between tests") and crash a node.
 */
import { afterAll, expect, test } from "bun:test";
import net from "node:net";
import { lpStream } from "@libp2p/utils";
import { until } from "../util/deadline.ts";
import { Blocklist, createHost, type Host } from "./host.ts";

const KEYS = [
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9ad8cfee0ab8c",
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
] as const;
const listen = ["/ip4/127.0.0.1/tcp/0"];
let target: Host | undefined;

afterAll(async () => {
  await target?.stop();
});

test("aborting a dial at any moment, or stopping the host mid-dial, throws nothing outside the dial's promise", async () => {
  const uncaught: unknown[] = [];
  const onUncaught = (e: unknown) => uncaught.push(e);
  process.on("uncaughtException", onUncaught);
  try {
    target = await createHost({ nodeKey: KEYS[0], listen, blocklist: new Blocklist() });
    await target.start();
    for (let i = 0; i < 24; i++) {
      const dialer = await createHost({ nodeKey: KEYS[1], listen, blocklist: new Blocklist() });
      await dialer.start();
      const ctrl = new AbortController();
      const dialed = dialer.dial(target.getMultiaddrs(), { signal: ctrl.signal }).then(
        () => "connected",
        (e: Error) => e.name,
      );
      // From before the socket exists to after it connected: a few turns of the event loop, a different count each time.
      for (let k = 0; k < i % 8; k++) await new Promise((r) => setImmediate(r));
      if (i % 2) ctrl.abort();
      else await dialer.stop();
      await dialed;
      await dialer.stop();
      await Bun.sleep(10);
    }
    await Bun.sleep(50);
  } finally {
    process.off("uncaughtException", onUncaught);
  }
  expect(uncaught.map((e) => String(e))).toEqual([]);
}, 60_000);

test("a message of 5,000 bytes crosses a connection (Noise's path for messages of 1,200 bytes and more)", async () => {
  const a = await createHost({ nodeKey: KEYS[0], listen, blocklist: new Blocklist() });
  const b = await createHost({ nodeKey: KEYS[1], listen, blocklist: new Blocklist() });
  await a.start();
  await b.start();
  try {
    const PROTOCOL = "/mev-commit-test/echo/1.0.0";
    await a.handle(PROTOCOL, async (stream) => {
      const lp = lpStream(stream);
      await lp.write((await lp.read()).subarray());
    });
    const lp = lpStream(await b.dialProtocol(a.getMultiaddrs(), PROTOCOL));
    const big = new Uint8Array(5_000).fill(7);
    await lp.write(big);
    expect((await lp.read()).subarray()).toEqual(big);
  } finally {
    await b.stop();
    await a.stop();
  }
});

/**
 * Two started hosts, `a` with a sink protocol that records every length-prefixed message it reads, and a spy on the
 * socket writes of the process (`spyWrites`: every chunk written from then on). `close` takes the spy off and stops both.
 */
async function sinkPair() {
  const a = await createHost({ nodeKey: KEYS[0], listen, blocklist: new Blocklist() });
  const b = await createHost({ nodeKey: KEYS[1], listen, blocklist: new Blocklist() });
  await a.start();
  await b.start();
  const PROTOCOL = "/mev-commit-test/sink/1.0.0";
  const received: Uint8Array[] = [];
  await a.handle(PROTOCOL, async (stream) => {
    const lp = lpStream(stream);
    for (;;) received.push((await lp.read()).subarray());
  });
  const write = net.Socket.prototype.write;
  return {
    received,
    dial: async () => lpStream(await b.dialProtocol(a.getMultiaddrs(), PROTOCOL)),
    spyWrites(): Uint8Array[] {
      const written: Uint8Array[] = [];
      net.Socket.prototype.write = function (this: net.Socket, ...args: Parameters<net.Socket["write"]>) {
        const chunk = args[0];
        written.push(chunk instanceof Uint8Array ? Uint8Array.from(chunk) : new Uint8Array());
        return write.apply(this, args);
      } as net.Socket["write"];
      return written;
    },
    async close() {
      net.Socket.prototype.write = write;
      await b.stop();
      await a.stop();
    },
  };
}

test("a frame is one socket write, and a small message read asks for no window update", async () => {
  const pair = await sinkPair();
  try {
    const { received } = pair;
    const lp = await pair.dial();
    await lp.write(new Uint8Array(100).fill(1));
    await until("the first message", 5_000, () => received.length === 1);
    await Bun.sleep(100); // the stream's opening frames (SYN, ACK, multistream-select) are all out
    const written = pair.spyWrites();
    await lp.write(new Uint8Array(100).fill(2));
    await until("the second message", 5_000, () => received.length === 2);
    await Bun.sleep(100);
    // One data frame from b; a sends nothing back (js-yamux alone: a window update; Noise alone: 2 writes a frame).
    expect(written.length).toBe(1);
  } finally {
    await pair.close();
  }
});

test("frames sent in one turn of the event loop, on two streams of a connection, are one socket write", async () => {
  const pair = await sinkPair();
  try {
    const { received } = pair;
    const one = await pair.dial();
    const two = await pair.dial();
    await Promise.all([one.write(Uint8Array.of(0)), two.write(Uint8Array.of(0))]);
    await until("the first messages", 5_000, () => received.length === 2);
    await Bun.sleep(100); // the streams' opening frames are all out
    const written = pair.spyWrites();
    await Promise.all([one.write(Uint8Array.of(1)), two.write(Uint8Array.of(2)), one.write(Uint8Array.of(3))]);
    await until("the three messages", 5_000, () => received.length === 5);
    await Bun.sleep(100);
    expect(written.length).toBe(1);
    expect(
      received
        .slice(2)
        .map((m) => m[0])
        .sort(),
    ).toEqual([1, 2, 3]);
  } finally {
    await pair.close();
  }
});

test("frames sent in one turn of the event loop are one Noise message, and a long run of them arrives whole", async () => {
  const pair = await sinkPair();
  try {
    const { received } = pair;
    const one = await pair.dial();
    const two = await pair.dial();
    await Promise.all([one.write(Uint8Array.of(0)), two.write(Uint8Array.of(0))]);
    await until("the first messages", 5_000, () => received.length === 2);
    await Bun.sleep(100); // the streams' opening frames are all out
    const written = pair.spyWrites();
    await Promise.all([one.write(Uint8Array.of(1)), two.write(Uint8Array.of(2)), one.write(Uint8Array.of(3))]);
    await until("the three messages", 5_000, () => received.length === 5);
    await Bun.sleep(100);
    expect(written.length).toBe(1);
    // A Noise message is its 2-byte big-endian length, then that many bytes: the write holds exactly one.
    const w = written[0]!;
    expect(2 + ((w[0]! << 8) | w[1]!)).toBe(w.byteLength);
    // More than one Noise message's worth (65,519 bytes of plaintext) in one turn, in many frames: all of it, in order.
    const big = Array.from({ length: 40 }, (_, i) => new Uint8Array(4_000).fill(i));
    await Promise.all(big.map((m) => one.write(m)));
    await until("the long run", 5_000, () => received.length === 5 + big.length);
    expect(received.slice(5)).toEqual(big);
  } finally {
    await pair.close();
  }
});
