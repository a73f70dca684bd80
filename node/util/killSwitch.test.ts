/** A killed node's chain requests never answer, and answers still in flight are dropped (killSwitch.ts). */
import { expect, test } from "bun:test";
import { createPublicClient, custom } from "viem";
import { KillSwitch, killableTransport } from "./killSwitch.ts";

const settlesWithin = (p: Promise<unknown>, ms: number) =>
  Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    Bun.sleep(ms).then(() => false),
  ]);

test("requests pass through until the kill; then none is sent, and one in flight never resumes its caller", async () => {
  let sent = 0;
  let release: (() => void) | undefined;
  const inner = custom({
    async request({ method }) {
      sent++;
      if (method === "eth_chainId") return "0x7a69";
      await new Promise<void>((r) => (release = r));
      return "0x10";
    },
  });
  const life = new KillSwitch();
  const client = createPublicClient({ transport: killableTransport(inner, life) });
  expect(await client.getChainId()).toBe(31337);

  const inFlight = client.getBlockNumber({ cacheTime: 0 });
  await Bun.sleep(10);
  life.kill();
  release!();
  expect(await settlesWithin(inFlight, 200)).toBe(false);

  const before = sent;
  expect(await settlesWithin(client.getChainId(), 200)).toBe(false);
  expect(sent).toBe(before);
});

test("a failure after the kill is dropped too: the dead node's error handling never runs", async () => {
  let fail: ((e: Error) => void) | undefined;
  const inner = custom({ request: () => new Promise((_, reject) => (fail = reject)) }, { retryCount: 0 });
  const life = new KillSwitch();
  const client = createPublicClient({ transport: killableTransport(inner, life) });
  const inFlight = client.getBlockNumber({ cacheTime: 0 });
  await Bun.sleep(10);
  life.kill();
  fail!(new Error("connection reset"));
  expect(await settlesWithin(inFlight, 200)).toBe(false);
});
