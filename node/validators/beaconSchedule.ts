/**
 * A simulated beacon chain for the devnet: which validator proposes each slot. Pure code (no I/O).
 *
 * - Slot s is L1 block s: the proposer of slot s proposes L1 block number s. Slot 0 is the genesis block.
 * - 32 slots per epoch: epoch e spans slots 32e … 32e+31.
 * - The validator set is fixed: `validatorCount` (default 64) BLS-like 48-byte keys derived from a seed with keccak.
 * - The proposer of a slot is drawn from the set by keccak(seed, epoch, slot) mod set size, so the schedule of any
 *   epoch, past or future, is known in advance and is the same on every run with the same seed.
 * - Slot times: a mined slot's time is its block's timestamp; a slot not mined yet is estimated from the latest
 *   known block, `slotSeconds` per slot (`estimateSlotTime`).
 */
import { concat, encodePacked, type Hex, keccak256, numberToHex, stringToHex } from "viem";
import { MevCommitError } from "../../lib/errors.ts";

export const SLOTS_PER_EPOCH = 32n;
/** Mainnet slot duration; the devnet passes its own L1 block time. */
export const DEFAULT_SLOT_SECONDS = 12;
export const DEFAULT_VALIDATOR_COUNT = 64;
/** keccak256("mev-commit devnet beacon"): the seed the devnet uses unless configured otherwise. */
export const DEFAULT_BEACON_SEED: Hex = keccak256(stringToHex("mev-commit devnet beacon"));

const KEY_DOMAIN = stringToHex("mev-commit devnet validator");

export class BeaconScheduleError extends MevCommitError {}

function assertSlot(n: bigint, what: string): void {
  if (n < 0n || n >= 1n << 64n) throw new BeaconScheduleError(`${what} must be a uint64, got ${n}`);
}

export function epochOfSlot(slot: bigint): bigint {
  assertSlot(slot, "slot");
  return slot / SLOTS_PER_EPOCH;
}

export function firstSlotOfEpoch(epoch: bigint): bigint {
  assertSlot(epoch, "epoch");
  return epoch * SLOTS_PER_EPOCH;
}

export function lastSlotOfEpoch(epoch: bigint): bigint {
  return firstSlotOfEpoch(epoch) + SLOTS_PER_EPOCH - 1n;
}

/** The 32 slots of an epoch, ascending. */
export function slotsOfEpoch(epoch: bigint): bigint[] {
  const first = firstSlotOfEpoch(epoch);
  return Array.from({ length: Number(SLOTS_PER_EPOCH) }, (_, i) => first + BigInt(i));
}

export function isFirstSlotOfEpoch(slot: bigint): boolean {
  return slot % SLOTS_PER_EPOCH === 0n;
}

/**
 * Validator i's 48-byte key: h = keccak256(domain ‖ seed ‖ uint32 i), key = h ‖ keccak256(h)[0:16], with the top
 * three bits of the first byte set to 0b100 (compression flag set, infinity and sign flags clear) so it looks like
 * a compressed BLS12-381 G1 key. It is not a curve point: nothing here verifies BLS signatures.
 */
export function validatorKey(seed: Hex, index: number): Hex {
  const h = keccak256(concat([KEY_DOMAIN, seed, numberToHex(index, { size: 4 })]));
  const tail = keccak256(h).slice(2, 34);
  const first = ((parseInt(h.slice(2, 4), 16) & 0x1f) | 0x80).toString(16).padStart(2, "0");
  return `0x${first}${h.slice(4)}${tail}`;
}

/** The validator set: `count` distinct keys, in index order. */
export function validatorSet(seed: Hex, count = DEFAULT_VALIDATOR_COUNT): Hex[] {
  if (!Number.isInteger(count) || count < 1)
    throw new BeaconScheduleError(`validator count must be a positive integer, got ${count}`);
  return Array.from({ length: count }, (_, i) => validatorKey(seed, i));
}

/** Index into the set of the proposer of `slot`: keccak256(seed ‖ uint64 epoch ‖ uint64 slot) mod count. */
export function proposerIndex(seed: Hex, slot: bigint, count: number): number {
  const epoch = epochOfSlot(slot);
  const h = keccak256(encodePacked(["bytes32", "uint64", "uint64"], [seed, epoch, slot]));
  return Number(BigInt(h) % BigInt(count));
}

export interface ProposerDuty {
  slot: bigint;
  /** Index of the proposer in the validator set. */
  validatorIndex: number;
  /** 0x-prefixed lowercase hex, 48 bytes (as a beacon node's duties API renders it). */
  blsKey: Hex;
}

export interface BeaconScheduleOptions {
  /** 32-byte seed; default DEFAULT_BEACON_SEED. */
  seed?: Hex;
  /** Size of the validator set; default 64. */
  validatorCount?: number;
}

/** The proposer schedule of one simulated beacon chain. */
export class BeaconSchedule {
  readonly seed: Hex;
  readonly validators: readonly Hex[];

  constructor(opts: BeaconScheduleOptions = {}) {
    const seed = (opts.seed ?? DEFAULT_BEACON_SEED).toLowerCase() as Hex;
    if (!/^0x[0-9a-f]{64}$/.test(seed))
      throw new BeaconScheduleError(`beacon seed must be 32 bytes of hex, got ${opts.seed}`);
    this.seed = seed;
    this.validators = Object.freeze(validatorSet(seed, opts.validatorCount ?? DEFAULT_VALIDATOR_COUNT));
  }

  proposerOf(slot: bigint): ProposerDuty {
    const validatorIndex = proposerIndex(this.seed, slot, this.validators.length);
    return { slot, validatorIndex, blsKey: this.validators[validatorIndex]! };
  }

  /** The proposer duties of an epoch, one per slot, slot order ascending. */
  dutiesOf(epoch: bigint): ProposerDuty[] {
    return slotsOfEpoch(epoch).map((s) => this.proposerOf(s));
  }

  /** The next slot strictly after `afterSlot` (up to `horizon` slots ahead) whose proposer is `blsKey`. */
  nextSlotOf(blsKey: Hex, afterSlot: bigint, horizon = 10_000n): bigint | undefined {
    const key = blsKey.toLowerCase();
    for (let s = afterSlot + 1n; s <= afterSlot + horizon; s++) if (this.proposerOf(s).blsKey === key) return s;
    return undefined;
  }
}

/** A slot whose time is known: a mined block's number and timestamp (Unix seconds). */
export interface SlotAnchor {
  slot: bigint;
  timestamp: bigint;
}

/**
 * Estimated start time (Unix seconds) of a slot from a known one: anchor time + slotSeconds × (slot − anchor slot),
 * rounded down (slotSeconds may be fractional, e.g. a devnet mining every 0.5 s).
 * With the genesis block as anchor and 12 s slots this is a beacon chain's `genesis + 12 × slot`.
 */
export function estimateSlotTime(slot: bigint, anchor: SlotAnchor, slotSeconds = DEFAULT_SLOT_SECONDS): bigint {
  if (!(slotSeconds >= 0)) throw new BeaconScheduleError(`slot duration must be >= 0 seconds, got ${slotSeconds}`);
  const t = anchor.timestamp + BigInt(Math.floor(slotSeconds * Number(slot - anchor.slot)));
  return t < 0n ? 0n : t;
}
