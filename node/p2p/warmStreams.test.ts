// WarmStreams over a real libp2p connection: streams opened ahead, and one the other side ended or reset not used.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Stream } from "@libp2p/interface";
import { until } from "../util/deadline.ts";
import { Blocklist, createHost, type Host } from "./host.ts";
import { MsgStream } from "./msgStream.ts";
import { WarmStreams } from "./warmStreams.ts";

const KEYS = [
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9ad8cfee0ab8c",
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
] as const;
const PROTOCOL = "/mev-commit-test/warm/1.0.0";
let server: Host;
let client: Host;
/** The server's ends of the streams, in the order they were opened. */
const accepted: Stream[] = [];
let opened = 0;

beforeAll(async () => {
  const listen = ["/ip4/127.0.0.1/tcp/0"];
  server = await createHost({ nodeKey: KEYS[0], listen, blocklist: new Blocklist() });
  client = await createHost({ nodeKey: KEYS[1], listen, blocklist: new Blocklist() });
  await server.start();
  await client.start();
  await server.handle(PROTOCOL, (stream) => void accepted.push(stream), { maxInboundStreams: 64 });
});

afterAll(async () => {
  await client?.stop();
  await server?.stop();
});

const warm = (o: { maxAgeMs?: number } = {}) =>
  new WarmStreams({
    ...o,
    open: async (signal) => {
      opened++;
      return new MsgStream(await client.dialProtocol(server.getMultiaddrs(), PROTOCOL, { signal }));
    },
  });

test("a stream is opened ahead, a bid takes it, and another is opened once the bid is done", async () => {
  const w = warm();
  try {
    w.fill();
    await until("one stream ready", 5_000, () => w.readyCount === 1);
    const before = opened;
    const s = await w.take(AbortSignal.timeout(5_000));
    expect(opened).toBe(before); // the bid did not wait for a stream to open
    expect(s.stream.status).toBe("open");
    expect(w.readyCount).toBe(0);
    w.release();
    s.abort("done");
    await until("one ready again", 5_000, () => w.readyCount === 1);
    expect(opened).toBe(before + 1);
  } finally {
    w.close();
  }
});

test("a ready stream the other side reset or ended, or one too old, is not used", async () => {
  const w = warm({ maxAgeMs: 60_000 });
  try {
    w.fill();
    await until("one stream ready", 5_000, () => w.readyCount === 1);
    accepted.at(-1)!.abort(new Error("the provider timed the stream out"));
    await Bun.sleep(100);
    const before = opened;
    const s = await w.take(AbortSignal.timeout(5_000));
    expect(s.stream.status).toBe("open"); // not the reset one: a fresh stream opened for the bid
    expect(opened).toBeGreaterThan(before);
    w.release();
    s.abort("done");
  } finally {
    w.close();
  }
  const old = warm({ maxAgeMs: 1 });
  try {
    old.fill();
    await until("one stream ready", 5_000, () => old.readyCount === 1);
    await Bun.sleep(5);
    const before = opened;
    (await old.take(AbortSignal.timeout(5_000))).abort("done");
    expect(opened).toBeGreaterThan(before);
  } finally {
    old.close();
  }
});
