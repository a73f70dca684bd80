/**
 * POST /sim/v1/mine on a real devnet: each block answers once the oracle has recorded it on the settlement chain, so
 * many blocks take minutes (about a settlement block interval each). The request answers by its timeout with 504
 * DEADLINE_EXCEEDED and the count mined, and mines no more; a body it cannot read is refused and mines nothing.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { call } from "../clients/http.ts";
import { type LocalDevnet, startLocalDevnet } from "../devnet/localDevnet.ts";

let local: LocalDevnet;
beforeAll(async () => {
  local = await startLocalDevnet({ nodes: false, minBlockIntervalMs: 0 }, "reports/mine-timeout-devnet.log");
}, 120_000);
afterAll(() => local?.stop());

const l1Block = async () =>
  BigInt(
    ((await call("GET", `${local.devnet.controlUrl}/sim/v1/status`)).json as { l1: { blockNumber: string } }).l1
      .blockNumber,
  );
const mine = (body: unknown) =>
  call("POST", `${local.devnet.controlUrl}/sim/v1/mine`, { body, timeoutMs: 30_000 }).catch((e: Error) => ({
    status: 0,
    text: e.message,
    json: undefined,
  }));

test("mining more blocks than fit in timeoutMs answers 504 with the count mined by then, and mines no more", async () => {
  const before = await l1Block();
  const started = performance.now();
  const r = await mine({ blocks: 1000, timeoutMs: 2_000 });
  const tookMs = performance.now() - started;
  expect(r.status, r.text).toBe(504);
  const body = r.json as { code: number; message: string };
  expect(body.code).toBe(4);
  expect(body.message).toMatch(/^mined \d+ of 1000 L1 blocks in timeoutMs 2000 /);
  expect(tookMs).toBeLessThan(15_000);
  const mined = Number(/^mined (\d+)/.exec(body.message)![1]);
  // The block being mined at the timeout still is; none after it.
  await Bun.sleep(3_000);
  const after = await l1Block();
  expect(after - before).toBeGreaterThanOrEqual(BigInt(mined));
  expect(after - before).toBeLessThanOrEqual(BigInt(mined + 1));
  await Bun.sleep(1_000);
  expect(await l1Block()).toBe(after);
}, 60_000);

test("a body that is not a JSON object of known fields is refused with 400 and mines nothing", async () => {
  const before = await l1Block();
  for (const [body, message] of [
    ["{bad", /^the body is not JSON: /],
    ["[1]", /^the body must be a JSON object/],
    [{ block: 2 }, /^unknown field "block"; known: blocks, winner, timeoutMs$/],
    [{ blocks: 0 }, /^blocks must be an integer from 1 to 1000, got 0$/],
    [{ timeoutMs: "5s" }, /^timeoutMs must be an integer from 1 to 600000, got "5s"$/],
    [{ winner: "0x12" }, /^winner is not an address: "0x12"$/],
  ] as const) {
    const r = await mine(body);
    expect(r.status, `${JSON.stringify(body)}: ${r.text}`).toBe(400);
    expect((r.json as { code: number; message: string }).code).toBe(3);
    expect((r.json as { message: string }).message).toMatch(message);
  }
  expect(await l1Block()).toBe(before);
  const ok = await mine({ blocks: 2 });
  expect(ok.status, ok.text).toBe(200);
  expect(await l1Block()).toBe(before + 2n);
}, 60_000);
