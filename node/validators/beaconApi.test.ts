/**
 * The beacon API over real HTTP, backed by a real manual-mining Anvil L1: the three endpoints upstream's validator
 * service calls, their JSON shapes (numbers as decimal strings), the future-epoch refusal upstream recognises, the
 * implied genesis time, simulated finality, and errors in the beacon API's `{code, message}` form.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createPublicClient, http } from "viem";
import { type Served, serve } from "../api/serve.ts";
import { type AnvilChain, startAnvil } from "../chain/anvil.ts";
import { L1BlockDriver } from "../l1/blockDriver.ts";
import { setLogSink } from "../util/log.ts";
import { freePort } from "../util/ports.ts";
import { beaconApi, checkpointsAt, FUTURE_EPOCH_TEXT } from "./beaconApi.ts";
import { L1ValidatorChain } from "./optInRegistry.ts";
import { ValidatorService } from "./validatorService.ts";

setLogSink(() => {});

const SLOT_SECONDS = 2;
let anvil: AnvilChain;
let driver: L1BlockDriver;
let served: Served;
let service: ValidatorService;

beforeAll(async () => {
  anvil = await startAnvil({ name: "beacon", port: await freePort(), chainId: 31337, mining: "manual" });
  driver = new L1BlockDriver(anvil.rpcUrl, []);
  // No registry deployed: every key reads as not opted in, which the beacon API does not need anyway.
  const chain = new L1ValidatorChain({ rpcUrl: anvil.rpcUrl, registry: "0x000000000000000000000000000000000000dEaD" });
  service = new ValidatorService({ chain, slotSeconds: SLOT_SECONDS, publish: () => {} });
  served = serve(beaconApi(service), "127.0.0.1", 0, "beacon API");
  await driver.mine(3);
}, 30_000);

afterAll(async () => {
  await served?.stop();
  await driver?.drain();
  await anvil?.stop();
});

async function get(path: string): Promise<{ status: number; type: string; body: any }> {
  const r = await fetch(served.url + path, { headers: { accept: "application/json" } });
  return { status: r.status, type: r.headers.get("content-type") ?? "", body: await r.json() };
}

const head = () => createPublicClient({ transport: http(anvil.rpcUrl) }).getBlock({ blockTag: "latest" });

describe("GET /eth/v1/beacon/genesis", () => {
  test("genesis time implied by the L1 head: time(head) - slotSeconds x head, as decimal strings", async () => {
    const r = await get("/eth/v1/beacon/genesis");
    const h = await head();
    expect(r.status).toBe(200);
    expect(r.type).toStartWith("application/json");
    expect(r.body.data.genesis_time).toBe((h.timestamp - BigInt(SLOT_SECONDS) * h.number).toString());
    expect(r.body.data.genesis_validators_root).toMatch(/^0x[0-9a-f]{64}$/);
    expect(r.body.data.genesis_fork_version).toBe("0x00000000");
  });
});

describe("GET /eth/v1/validator/duties/proposer/{epoch}", () => {
  test("the 32 proposers of the epoch, slot order, from the simulated schedule", async () => {
    const r = await get("/eth/v1/validator/duties/proposer/0");
    expect(r.status).toBe(200);
    expect(r.body.execution_optimistic).toBe(false);
    expect(r.body.dependent_root).toMatch(/^0x[0-9a-f]{64}$/);
    expect(r.body.data).toHaveLength(32);
    const expected = service.schedule.dutiesOf(0n);
    expect(r.body.data).toEqual(
      expected.map((d) => ({ pubkey: d.blsKey, validator_index: String(d.validatorIndex), slot: d.slot.toString() })),
    );
    expect(r.body.data[5].pubkey).toMatch(/^0x[0-9a-f]{96}$/);
  });

  test("the next epoch is served; the one after is refused with the text upstream maps to InvalidArgument", async () => {
    expect((await get("/eth/v1/validator/duties/proposer/1")).body.data[0].slot).toBe("32");
    const r = await get("/eth/v1/validator/duties/proposer/2");
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(400);
    expect(r.body.message).toContain(FUTURE_EPOCH_TEXT);
    expect(r.body.message).toContain("current: 0, requested: 2");
  });

  test("an epoch that is not a uint64 is 400", async () => {
    for (const bad of ["abc", "-1", "18446744073709551616"]) {
      const r = await get(`/eth/v1/validator/duties/proposer/${bad}`);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ code: 400, message: `Invalid epoch: ${bad}` });
    }
  });

  test("past epochs stay served once the L1 moved on", async () => {
    await driver.mine(64 - Number((await head()).number)); // head = slot 64, epoch 2
    expect((await get("/eth/v1/validator/duties/proposer/0")).status).toBe(200);
    expect((await get("/eth/v1/validator/duties/proposer/3")).status).toBe(200);
    expect((await get("/eth/v1/validator/duties/proposer/4")).status).toBe(400);
  }, 30_000);
});

describe("GET /eth/v1/beacon/states/{state_id}/finality_checkpoints", () => {
  test("head: justified one epoch behind, finalized two; upstream reads current_justified + 1 as the current epoch", async () => {
    const h = await head();
    const r = await get("/eth/v1/beacon/states/head/finality_checkpoints");
    expect(r.status).toBe(200);
    const epoch = h.number / 32n;
    expect(r.body.data.current_justified.epoch).toBe((epoch - 1n).toString());
    expect(r.body.data.previous_justified.epoch).toBe((epoch - 2n).toString());
    expect(r.body.data.finalized.epoch).toBe((epoch - 2n).toString());
    expect(BigInt(r.body.data.current_justified.epoch) + 1n).toBe(await service.currentEpoch());
    expect(r.body.data.current_justified.root).toMatch(/^0x[0-9a-f]{64}$/);
  });

  test("other state ids: genesis, finalized, justified, a slot; unknown ones are 404/400", async () => {
    expect((await get("/eth/v1/beacon/states/genesis/finality_checkpoints")).body.data.finalized).toEqual({
      epoch: "0",
      root: `0x${"00".repeat(32)}`,
    });
    expect((await get("/eth/v1/beacon/states/40/finality_checkpoints")).body.data.current_justified.epoch).toBe("0");
    expect((await get("/eth/v1/beacon/states/finalized/finality_checkpoints")).status).toBe(200);
    expect((await get("/eth/v1/beacon/states/justified/finality_checkpoints")).status).toBe(200);
    expect(await get("/eth/v1/beacon/states/999999/finality_checkpoints")).toMatchObject({
      status: 404,
      body: { code: 404, message: "State not found" },
    });
    expect(await get("/eth/v1/beacon/states/nope/finality_checkpoints")).toMatchObject({
      status: 400,
      body: { code: 400 },
    });
  });

  test("checkpointsAt never goes below epoch 0", () => {
    expect(checkpointsAt(0n)).toEqual({ previousJustified: 0n, currentJustified: 0n, finalized: 0n });
    expect(checkpointsAt(32n)).toEqual({ previousJustified: 0n, currentJustified: 0n, finalized: 0n });
    expect(checkpointsAt(100n)).toEqual({ previousJustified: 1n, currentJustified: 2n, finalized: 1n });
  });
});

test("unknown paths are the beacon API's 404", async () => {
  expect(await get("/eth/v1/node/nothing")).toMatchObject({ status: 404, body: { code: 404, message: "NOT_FOUND" } });
});
