/**
 * GET /v1/validator/get_validators through a node app: the exact response shape, the epoch query parameter with
 * grpc-gateway's parse errors, and the service's errors rendered as unary statuses.
 */
import { describe, expect, test } from "bun:test";
import { rulesOf } from "../protocol/rules.ts";
import { ValidatorApiService } from "../services/validatorApiService.ts";
import { setLogSink } from "../util/log.ts";
import { BeaconSchedule } from "../validators/beaconSchedule.ts";
import type { ValidatorChain } from "../validators/optInRegistry.ts";
import { FUTURE_EPOCH_MESSAGE, ValidatorService } from "../validators/validatorService.ts";
import { createNodeApp } from "./app.ts";
import { validatorRoutes } from "./validator.ts";

setLogSink(() => {});

const schedule = new BeaconSchedule();
const optedIn = new Set([schedule.proposerOf(70n).blsKey]);
const chain: ValidatorChain & { head: bigint; down: boolean } = {
  head: 40n, // epoch 1
  down: false,
  async blockNumber() {
    return this.head;
  },
  async blockTimestamp(n) {
    return n <= this.head ? 1_700_000_000n + n : undefined;
  },
  async areValidatorsOptedIn(keys) {
    if (this.down) throw new Error("connection refused");
    return keys.map((k) => optedIn.has(k));
  },
};
const service = new ValidatorService({ chain, schedule, publish: () => {} });
const app = createNodeApp({
  rules: rulesOf("v1.1"),
  role: "bidder",
  address: "0x0000000000000000000000000000000000000001",
  plugins: [validatorRoutes(new ValidatorApiService(service))],
});

async function get(query: string) {
  const res = await app.handle(new Request(`http://node/v1/validator/get_validators${query}`));
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, text: res };
}

describe("GET /v1/validator/get_validators", () => {
  test("items keyed by slot (ascending), each {BLSKey, isOptedIn}, nothing else", async () => {
    const { status, body } = await get("?epoch=2");
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(["items"]);
    const items = body.items as Record<string, { BLSKey: string; isOptedIn: boolean }>;
    expect(Object.keys(items)).toEqual(Array.from({ length: 32 }, (_, i) => String(64 + i)));
    for (const [slot, info] of Object.entries(items)) {
      expect(Object.keys(info)).toEqual(["BLSKey", "isOptedIn"]);
      expect(info.BLSKey).toBe(schedule.proposerOf(BigInt(slot)).blsKey);
      expect(info.BLSKey).toMatch(/^0x[0-9a-f]{96}$/);
      expect(info.isOptedIn).toBe(optedIn.has(info.BLSKey as `0x${string}`));
    }
    expect(items["70"]!.isOptedIn).toBe(true);
  });

  test("no epoch, or epoch 0 (proto3 cannot tell them apart), is the current epoch", async () => {
    const current = Object.keys((await get("")).body.items as object);
    expect(current[0]).toBe("32");
    expect(Object.keys((await get("?epoch=0")).body.items as object)).toEqual(current);
    expect(Object.keys((await get("?epoch=1")).body.items as object)).toEqual(current);
  });

  test("epoch is a uint64 with grpc-gateway's parse errors", async () => {
    for (const [q, message] of [
      ["?epoch=abc", 'parsing field "epoch": strconv.ParseUint: parsing "abc": invalid syntax'],
      ["?epoch=-1", 'parsing field "epoch": strconv.ParseUint: parsing "-1": invalid syntax'],
      [
        "?epoch=18446744073709551616",
        'parsing field "epoch": strconv.ParseUint: parsing "18446744073709551616": value out of range',
      ],
      ["?epoch=1&epoch=2", 'too many values for field "epoch": 1, 2'],
    ] as const) {
      const { status, body } = await get(q);
      expect(status).toBe(400);
      expect(body).toEqual({ code: 3, message, details: [] });
    }
  });

  test("an epoch beyond the next is InvalidArgument, as a beacon node refuses it", async () => {
    expect((await get("?epoch=2")).status).toBe(200);
    const { status, body } = await get("?epoch=3");
    expect(status).toBe(400);
    expect(body).toEqual({ code: 3, message: FUTURE_EPOCH_MESSAGE, details: [] });
  });

  test("a failed registry read is 500 Internal", async () => {
    chain.down = true;
    try {
      const { status, body } = await get("?epoch=1");
      expect(status).toBe(500);
      expect(body).toEqual({
        code: 13,
        message: "checking if validators are opted in: connection refused",
        details: [],
      });
    } finally {
      chain.down = false;
    }
  });

  test("a past epoch is served", async () => {
    const { status, body } = await get("?epoch=0");
    expect(status).toBe(200);
    chain.head = 1000n;
    try {
      const past = await get("?epoch=2");
      expect(Object.keys(past.body.items as object)[0]).toBe("64");
    } finally {
      chain.head = 40n;
    }
    expect(Object.keys(body.items as object)).toHaveLength(32);
  });

  test("query keys named like Object's own properties are unknown keys, ignored as any other", async () => {
    for (const key of ["__proto__", "constructor", "hasOwnProperty", "toString"]) {
      const { status } = await get(`?${key}=null&${key}=1&epoch=2`);
      expect(status).toBe(200);
    }
  });
});
