import { describe, expect, test } from "bun:test";
import { type Hex, keccak256, stringToHex } from "viem";
import {
  BeaconSchedule,
  BeaconScheduleError,
  DEFAULT_BEACON_SEED,
  epochOfSlot,
  estimateSlotTime,
  firstSlotOfEpoch,
  isFirstSlotOfEpoch,
  lastSlotOfEpoch,
  proposerIndex,
  slotsOfEpoch,
  validatorKey,
  validatorSet,
} from "./beaconSchedule.ts";

describe("epochs and slots", () => {
  test("32 slots an epoch: epoch e spans 32e … 32e+31", () => {
    expect(epochOfSlot(0n)).toBe(0n);
    expect(epochOfSlot(31n)).toBe(0n);
    expect(epochOfSlot(32n)).toBe(1n);
    expect(epochOfSlot(63n)).toBe(1n);
    expect(epochOfSlot(64n)).toBe(2n);
    expect(firstSlotOfEpoch(3n)).toBe(96n);
    expect(lastSlotOfEpoch(3n)).toBe(127n);
    expect(slotsOfEpoch(1n)).toEqual(Array.from({ length: 32 }, (_, i) => 32n + BigInt(i)));
    expect(isFirstSlotOfEpoch(0n)).toBe(true);
    expect(isFirstSlotOfEpoch(32n)).toBe(true);
    expect(isFirstSlotOfEpoch(33n)).toBe(false);
    expect(isFirstSlotOfEpoch(31n)).toBe(false);
  });

  test("slots and epochs are uint64", () => {
    expect(() => epochOfSlot(-1n)).toThrow(BeaconScheduleError);
    expect(() => firstSlotOfEpoch(1n << 64n)).toThrow(BeaconScheduleError);
    expect(epochOfSlot((1n << 64n) - 1n)).toBe(((1n << 64n) - 1n) / 32n);
  });
});

describe("validator set", () => {
  test("64 distinct 48-byte keys shaped like compressed BLS keys, same for the same seed", () => {
    const set = validatorSet(DEFAULT_BEACON_SEED);
    expect(set).toHaveLength(64);
    expect(new Set(set).size).toBe(64);
    for (const k of set) {
      expect(k).toMatch(/^0x[0-9a-f]{96}$/);
      expect(parseInt(k.slice(2, 4), 16) & 0xe0).toBe(0x80); // compression flag set, infinity and sign clear
    }
    expect(validatorSet(DEFAULT_BEACON_SEED)).toEqual(set);
    expect(validatorKey(DEFAULT_BEACON_SEED, 5)).toBe(set[5]!);
  });

  test("another seed gives another set; the default seed is keccak256 of its label", () => {
    expect(DEFAULT_BEACON_SEED).toBe(keccak256(stringToHex("mev-commit devnet beacon")));
    const other = validatorSet(keccak256(stringToHex("other")), 8);
    expect(other).toHaveLength(8);
    const defaults = new Set(validatorSet(DEFAULT_BEACON_SEED));
    expect(other.some((k) => defaults.has(k))).toBe(false);
  });

  test("bad seed or count is refused", () => {
    expect(() => new BeaconSchedule({ seed: "0x1234" as Hex })).toThrow("32 bytes");
    expect(() => new BeaconSchedule({ validatorCount: 0 })).toThrow("positive integer");
  });
});

describe("proposer schedule", () => {
  const schedule = new BeaconSchedule();

  test("deterministic: two schedules with the same seed agree on every slot", () => {
    const again = new BeaconSchedule({ seed: DEFAULT_BEACON_SEED.toUpperCase().replace("0X", "0x") as Hex });
    for (let s = 0n; s < 200n; s++) expect(again.proposerOf(s)).toEqual(schedule.proposerOf(s));
  });

  test("the proposer is keccak(seed, epoch, slot) mod set size", () => {
    for (const slot of [0n, 1n, 31n, 32n, 1000n]) {
      const d = schedule.proposerOf(slot);
      expect(d.slot).toBe(slot);
      expect(d.validatorIndex).toBe(proposerIndex(DEFAULT_BEACON_SEED, slot, 64));
      expect(d.blsKey).toBe(schedule.validators[d.validatorIndex]!);
    }
  });

  test("duties of an epoch: its 32 slots ascending, at the epoch boundaries", () => {
    const d1 = schedule.dutiesOf(1n);
    expect(d1.map((d) => d.slot)).toEqual(slotsOfEpoch(1n));
    expect(d1[0]).toEqual(schedule.proposerOf(32n));
    expect(d1[31]).toEqual(schedule.proposerOf(63n));
    expect(schedule.dutiesOf(0n)[31]).toEqual(schedule.proposerOf(31n));
    expect(schedule.dutiesOf(2n)[0]).toEqual(schedule.proposerOf(64n));
  });

  test("proposers vary across slots and epochs (not a constant or a plain rotation)", () => {
    const epoch0 = schedule.dutiesOf(0n).map((d) => d.validatorIndex);
    const epoch1 = schedule.dutiesOf(1n).map((d) => d.validatorIndex);
    expect(new Set(epoch0).size).toBeGreaterThan(10);
    expect(epoch1).not.toEqual(epoch0);
    // Over many slots every validator proposes sometimes.
    const seen = new Set<number>();
    for (let s = 0n; s < 64n * 32n; s++) seen.add(schedule.proposerOf(s).validatorIndex);
    expect(seen.size).toBe(64);
  });

  test("nextSlotOf finds a validator's next slot", () => {
    const key = schedule.proposerOf(40n).blsKey;
    const next = schedule.nextSlotOf(key, 20n)!;
    expect(next).toBeGreaterThan(20n);
    expect(next).toBeLessThanOrEqual(40n);
    expect(schedule.proposerOf(next).blsKey).toBe(key);
    for (let s = 21n; s < next; s++) expect(schedule.proposerOf(s).blsKey).not.toBe(key);
    expect(schedule.nextSlotOf(`0x${"00".repeat(48)}`, 0n, 100n)).toBeUndefined();
  });
});

describe("estimateSlotTime", () => {
  test("anchor time + slotSeconds per slot; genesis anchor and 12 s give a beacon chain's clock", () => {
    expect(estimateSlotTime(64n, { slot: 0n, timestamp: 1_700_000_000n })).toBe(1_700_000_000n + 12n * 64n);
    expect(estimateSlotTime(32n, { slot: 31n, timestamp: 1000n }, 2)).toBe(1002n);
    expect(estimateSlotTime(33n, { slot: 31n, timestamp: 1000n }, 0.5)).toBe(1001n);
    expect(estimateSlotTime(30n, { slot: 31n, timestamp: 1000n }, 2)).toBe(998n);
    expect(() => estimateSlotTime(1n, { slot: 0n, timestamp: 0n }, -1)).toThrow(BeaconScheduleError);
  });
});
