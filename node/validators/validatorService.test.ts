/**
 * The validator service against an in-memory L1 (blocks and opt-ins): what it publishes at each block, at epoch
 * boundaries and at start, and what getValidators answers.
 */
import { describe, expect, test } from "bun:test";
import type { Hex } from "viem";
import { GrpcCode, RpcError } from "../protocol/grpcCodes.ts";
import { setLogSink } from "../util/log.ts";
import { BeaconSchedule } from "./beaconSchedule.ts";
import type { ValidatorChain } from "./optInRegistry.ts";
import { FUTURE_EPOCH_MESSAGE, ValidatorService, type ValidatorTopic } from "./validatorService.ts";

setLogSink(() => {});

const GENESIS = 1_700_000_000n;

/** An L1 that mines a block every 2 s, with an opt-in set. */
class FakeChain implements ValidatorChain {
  head = 0n;
  optedIn = new Set<string>();
  calls: number[] = [];
  fail = false;
  time(n: bigint): bigint {
    return GENESIS + 2n * n;
  }
  async blockNumber() {
    return this.head;
  }
  async blockTimestamp(n: bigint) {
    return n <= this.head ? this.time(n) : undefined;
  }
  async areValidatorsOptedIn(keys: readonly Hex[]) {
    if (this.fail) throw new Error("connection refused");
    this.calls.push(keys.length);
    return keys.map((k) => this.optedIn.has(k));
  }
  /** Mines the next block and returns what the driver's hook receives. */
  mine() {
    this.head++;
    return { number: this.head, timestamp: this.time(this.head), hash: "0x" as Hex, winner: "0x" as Hex };
  }
}

function setup(slotSeconds = 2) {
  const chain = new FakeChain();
  const published: { topic: ValidatorTopic; value: Record<string, unknown> }[] = [];
  const schedule = new BeaconSchedule();
  const service = new ValidatorService({
    chain,
    schedule,
    slotSeconds,
    publish: (topic, value) => published.push({ topic, value }),
  });
  return { chain, published, schedule, service };
}

describe("ValidatorService.onL1Block", () => {
  test("announces an opted-in proposer at the mining of the block before its slot, and nothing for others", async () => {
    const { chain, published, schedule, service } = setup();
    const key = schedule.proposerOf(5n).blsKey;
    chain.optedIn.add(key);
    for (let i = 0; i < 3; i++) await service.onL1Block(chain.mine()); // blocks 1..3: slots 2..4 next
    const otherSlots = [2n, 3n, 4n].filter((s) => schedule.proposerOf(s).blsKey === key);
    expect(published.map((p) => p.value.slot)).toEqual(otherSlots.map(Number));
    published.length = 0;

    await service.onL1Block(chain.mine()); // block 4 mined: slot 5 is next
    expect(published).toEqual([{ topic: "validator_opted_in", value: { epoch: 0, slot: 5, bls_key: key } }]);
    expect(chain.calls.at(-1)).toBe(1); // one key read per ordinary block
  });

  test("block 32e-1 announces epoch e (every slot ascending, estimated start time), then slot 32e if opted in", async () => {
    const { chain, published, schedule, service } = setup();
    const firstKey = schedule.proposerOf(32n).blsKey;
    const otherKey = schedule
      .dutiesOf(1n)
      .map((d) => d.blsKey)
      .find((k) => k !== firstKey)!;
    chain.optedIn.add(firstKey).add(otherKey);
    chain.head = 30n;
    await service.onL1Block(chain.mine()); // block 31
    const [epoch, slot] = published.filter((p) => p.topic === "epoch_validators_opted_in" || p.value.slot === 32);
    expect(epoch!.topic).toBe("epoch_validators_opted_in");
    expect(epoch!.value.epoch).toBe(1);
    expect(epoch!.value.epoch_start_time).toBe(Number(chain.time(31n) + 2n)); // block 32 not mined: time(31) + 2 s
    const slots = epoch!.value.slots as { slot: number; bls_key: string; opted_in: boolean }[];
    expect(slots.map((s) => s.slot)).toEqual(Array.from({ length: 32 }, (_, i) => 32 + i));
    for (const s of slots) {
      expect(s.bls_key).toBe(schedule.proposerOf(BigInt(s.slot)).blsKey);
      expect(s.opted_in).toBe(s.bls_key === firstKey || s.bls_key === otherKey);
    }
    expect(slot).toEqual({ topic: "validator_opted_in", value: { epoch: 1, slot: 32, bls_key: firstKey } });
    expect(published.indexOf(epoch!)).toBeLessThan(published.indexOf(slot!)); // epoch first, as upstream (T-2 s, T-1 s)
    expect(chain.calls).toEqual([32]); // one registry call for the whole epoch

    // The epoch is announced once: later blocks of epoch 1 only announce their next slot.
    published.length = 0;
    for (let i = 0; i < 31; i++) await service.onL1Block(chain.mine()); // blocks 32..62
    expect(published.every((p) => p.topic === "validator_opted_in")).toBe(true);
    await service.onL1Block(chain.mine()); // block 63: epoch 2
    expect(published.filter((p) => p.topic === "epoch_validators_opted_in").map((p) => p.value.epoch)).toEqual([2]);
  });

  test("an epoch with no opted-in slot is still announced", async () => {
    const { chain, published, service } = setup();
    chain.head = 62n;
    await service.onL1Block(chain.mine());
    expect(published).toHaveLength(1);
    expect(published[0]!.value.epoch).toBe(2);
    expect((published[0]!.value.slots as { opted_in: boolean }[]).every((s) => !s.opted_in)).toBe(true);
  });

  test("opt-ins are read live: opting in mid-epoch announces the key's next slot", async () => {
    const { chain, published, schedule, service } = setup();
    chain.head = 40n;
    const key = schedule.proposerOf(42n).blsKey;
    await service.onL1Block(chain.mine()); // block 41, key not opted in yet
    expect(published.filter((p) => p.value.slot === 42)).toEqual([]);
    chain.optedIn.add(key);
    chain.head = 40n; // replay is ignored: block 41 was handled already
    await service.onL1Block(chain.mine());
    expect(published.filter((p) => p.value.slot === 42)).toEqual([]);
    const next = schedule.nextSlotOf(key, 42n)!;
    chain.head = next - 2n;
    await service.onL1Block(chain.mine());
    expect(published.at(-1)).toEqual({
      topic: "validator_opted_in",
      value: { epoch: Number(next / 32n), slot: Number(next), bls_key: key },
    });
  });

  test("a failed registry read is logged and skipped; the hook never throws", async () => {
    const { chain, published, service } = setup();
    chain.fail = true;
    chain.head = 30n;
    await expect(service.onL1Block(chain.mine())).resolves.toBeUndefined();
    expect(published).toEqual([]);
    chain.fail = false;
    await service.onL1Block(chain.mine()); // block 32: the service carries on
    expect(chain.calls).toEqual([1]);
  });
});

describe("ValidatorService.start", () => {
  test("fresh chain (head = genesis): announces epoch 0 with the genesis time, and slot 1 if opted in", async () => {
    const { chain, published, schedule, service } = setup();
    const key1 = schedule.proposerOf(1n).blsKey;
    chain.optedIn.add(key1);
    await service.start();
    expect(published[0]!.topic).toBe("epoch_validators_opted_in");
    expect(published[0]!.value.epoch).toBe(0);
    expect(published[0]!.value.epoch_start_time).toBe(Number(GENESIS));
    expect((published[0]!.value.slots as unknown[]).length).toBe(32);
    expect(published[1]).toEqual({ topic: "validator_opted_in", value: { epoch: 0, slot: 1, bls_key: key1 } });
    expect(published).toHaveLength(2);
    // Block 0 is handled: a hook call for it (or a second start) publishes nothing more.
    await service.onL1Block({ number: 0n, timestamp: GENESIS });
    await service.start();
    expect(published).toHaveLength(2);
  });

  test("restart mid-epoch announces the epoch in progress with its first block's time", async () => {
    const { chain, published, service } = setup();
    chain.head = 100n; // epoch 3 began at block 96
    await service.start();
    expect(published[0]!.value.epoch).toBe(3);
    expect(published[0]!.value.epoch_start_time).toBe(Number(chain.time(96n)));
  });

  test("restart on the last slot of an epoch announces the next epoch, like the block hook", async () => {
    const { chain, published, service } = setup();
    chain.head = 95n;
    await service.start();
    expect(published.map((p) => p.value.epoch)).toEqual([3]);
    expect(published[0]!.value.epoch_start_time).toBe(Number(chain.time(95n) + 2n));
  });
});

describe("ValidatorService.getValidators", () => {
  test("every slot of the epoch with its proposer and opt-in state; future epochs beyond the next are refused", async () => {
    const { chain, schedule, service } = setup();
    chain.head = 40n; // epoch 1
    const key = schedule.proposerOf(70n).blsKey;
    chain.optedIn.add(key);
    const m = await service.getValidators(2n);
    expect([...m.keys()]).toEqual(Array.from({ length: 32 }, (_, i) => 64n + BigInt(i)));
    expect(m.get(70n)).toEqual({ blsKey: key, optedIn: true });
    for (const [slot, info] of m)
      expect(info).toEqual({ blsKey: schedule.proposerOf(slot).blsKey, optedIn: info.blsKey === key });
    expect(await service.currentEpoch()).toBe(1n);
    expect((await service.getValidators(0n)).size).toBe(32);

    const err = await service.getValidators(3n).catch((e) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect(err.code).toBe(GrpcCode.InvalidArgument);
    expect(err.message).toBe(FUTURE_EPOCH_MESSAGE);
  });

  test("a failed registry read is Internal with upstream's text", async () => {
    const { chain, service } = setup();
    chain.fail = true;
    const err = await service.getValidators(0n).catch((e) => e);
    expect(err.code).toBe(GrpcCode.Internal);
    expect(err.message).toBe("checking if validators are opted in: connection refused");
  });

  test("epochStartTime: the first block's time when mined, else estimated from the head", async () => {
    const { chain, service } = setup(12);
    chain.head = 40n;
    expect(await service.epochStartTime(1n)).toBe(chain.time(32n));
    expect(await service.epochStartTime(2n)).toBe(chain.time(40n) + 12n * 24n);
  });
});
