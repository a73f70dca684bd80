/**
 * The validator service of the devnet: the simulated beacon schedule joined with the opt-in registry on L1.
 *
 * - `getValidators(epoch)`: every slot of the epoch with its proposer's key and opt-in state (one registry call).
 * - `onL1Block(block)`, registered on the L1 block driver: after block b is mined, slot b+1 is next.
 *   - If b+1 is the first slot of epoch e: publish `epoch_validators_opted_in` for e (every slot, ascending; upstream
 *     lists them in Go map order, i.e. random), with `epoch_start_time` estimated as time(b) + slotSeconds.
 *   - If the proposer of b+1 is opted in (registry read at block b): publish `validator_opted_in` for b+1. This is
 *     upstream's "shortly before the slot" (upstream: 1 s before the slot's start time).
 * - `start()`: at node start, announces the epoch in progress (the epoch of head+1) and, if opted in, the proposer
 *   of head+1, as if block `head` had just been mined. On a fresh chain (head = genesis = slot 0) this gives
 *   epoch 0 and slot 1, which no block would otherwise announce.
 *
 * Opt-in state is read live: opting in a key in block b makes its slots from b+1 on announced, even in an epoch
 * already announced with `opted_in: false` (upstream snapshots the epoch when it fetches the duties).
 */
import type { Hex } from "viem";
import { InternalError, InvalidArgumentError } from "../protocol/grpcCodes.ts";
import { logger } from "../util/log.ts";
import { SerialQueue } from "../util/serial.ts";
import {
  BeaconSchedule,
  DEFAULT_SLOT_SECONDS,
  epochOfSlot,
  estimateSlotTime,
  firstSlotOfEpoch,
  isFirstSlotOfEpoch,
  type SlotAnchor,
} from "./beaconSchedule.ts";
import type { ValidatorChain } from "./optInRegistry.ts";

export type ValidatorTopic = "validator_opted_in" | "epoch_validators_opted_in";
export type PublishFn = (topic: ValidatorTopic, value: Record<string, unknown>) => void;

/** One slot of an epoch: its proposer's key and whether that key is opted in. */
export interface SlotInfo {
  blsKey: Hex;
  optedIn: boolean;
}

/** A mined L1 block, as the block driver reports it (other fields are ignored). */
export interface L1BlockInfo {
  number: bigint;
  /** Unix seconds. */
  timestamp: bigint;
}

export interface ValidatorServiceOptions {
  /** L1 reads (block numbers and times, the opt-in registry). */
  chain: ValidatorChain;
  /** Where notifications go (every node's notifier, for example). */
  publish: PublishFn;
  /** The beacon schedule; default `new BeaconSchedule()` (default seed, 64 validators). */
  schedule?: BeaconSchedule;
  /** Seconds per slot for slots not mined yet (the devnet's L1 block time); default 12. */
  slotSeconds?: number;
}

/** What a beacon node answers for duties too far ahead (upstream maps it to InvalidArgument). */
export const FUTURE_EPOCH_MESSAGE = "Proposer duties were requested for a future epoch";

export class ValidatorService {
  readonly schedule: BeaconSchedule;
  readonly slotSeconds: number;
  private readonly chain: ValidatorChain;
  private readonly publish: PublishFn;
  private readonly queue = new SerialQueue();
  private readonly log = logger("validators");
  /** Highest block whose "next slot" has been handled (undefined: none yet). */
  private lastHandled: bigint | undefined;

  constructor(opts: ValidatorServiceOptions) {
    this.chain = opts.chain;
    this.publish = opts.publish;
    this.schedule = opts.schedule ?? new BeaconSchedule();
    this.slotSeconds = opts.slotSeconds ?? DEFAULT_SLOT_SECONDS;
  }

  /** The latest mined slot (L1 block) and its time. */
  async head(): Promise<SlotAnchor> {
    const slot = await this.chain.blockNumber();
    const timestamp = await this.chain.blockTimestamp(slot);
    if (timestamp === undefined) throw new InternalError(`L1 block ${slot} has no timestamp`);
    return { slot, timestamp };
  }

  /** The epoch of the latest mined slot (L1 block). */
  async currentEpoch(): Promise<bigint> {
    return epochOfSlot(await this.chain.blockNumber());
  }

  /**
   * Every slot of `epoch` (ascending) with its proposer and opt-in state. Like a beacon node, it serves any past
   * epoch, the current one and the next; a later epoch is InvalidArgument (`FUTURE_EPOCH_MESSAGE`). A failed
   * registry read is Internal, with upstream's "checking if validators are opted in: …" text.
   */
  async getValidators(epoch: bigint): Promise<Map<bigint, SlotInfo>> {
    if (epoch > (await this.currentEpoch()) + 1n)
      throw new InvalidArgumentError(FUTURE_EPOCH_MESSAGE, { context: { epoch } });
    return this.readEpoch(epoch);
  }

  /**
   * Start time (Unix seconds) of an epoch: the timestamp of the L1 block of its first slot when mined, else an
   * estimate from the latest block (`slotSeconds` per slot).
   */
  async epochStartTime(epoch: bigint): Promise<bigint> {
    const first = firstSlotOfEpoch(epoch);
    const head = await this.chain.blockNumber();
    if (first <= head) {
      const ts = await this.chain.blockTimestamp(first);
      if (ts !== undefined) return ts;
    }
    const headTime = await this.chain.blockTimestamp(head);
    if (headTime === undefined) throw new InternalError(`L1 block ${head} has no timestamp`);
    return estimateSlotTime(first, { slot: head, timestamp: headTime }, this.slotSeconds);
  }

  /**
   * Hook for `L1BlockDriver.onAfterMine`: announces what slot `block.number + 1` brings. Never throws (a failed
   * L1 read is logged and that block's notifications are skipped); a block at or below one already handled is
   * ignored.
   */
  readonly onL1Block = (block: L1BlockInfo): Promise<void> =>
    this.queue.run(async () => {
      if (this.lastHandled !== undefined && block.number <= this.lastHandled) return;
      this.lastHandled = block.number;
      await this.announceNext({ slot: block.number, timestamp: block.timestamp }).catch((e) =>
        this.log.error("validator notifications failed", { block: block.number, error: e }),
      );
    });

  /**
   * Announces at node start: the epoch in progress (of slot head+1) and the proposer of head+1 if opted in.
   * Rejects if L1 cannot be read.
   */
  start(): Promise<void> {
    return this.queue.run(async () => {
      const head = await this.chain.blockNumber();
      if (this.lastHandled !== undefined && head <= this.lastHandled) return;
      const headTime = await this.chain.blockTimestamp(head);
      if (headTime === undefined) throw new InternalError(`L1 block ${head} has no timestamp`);
      this.lastHandled = head;
      const anchor = { slot: head, timestamp: headTime };
      const next = head + 1n;
      if (!isFirstSlotOfEpoch(next)) {
        // The epoch is already under way: its first slot is mined, so its start time is that block's time.
        const epoch = epochOfSlot(next);
        const first = firstSlotOfEpoch(epoch);
        const startTime = (await this.chain.blockTimestamp(first)) ?? estimateSlotTime(first, anchor, this.slotSeconds);
        const slots = await this.readEpoch(epoch);
        this.publishEpoch(epoch, startTime, slots);
        this.publishSlotIfOptedIn(next, slots.get(next)!);
        return;
      }
      await this.announceNext(anchor);
    });
  }

  private async announceNext(mined: SlotAnchor): Promise<void> {
    const next = mined.slot + 1n;
    let info: SlotInfo;
    if (isFirstSlotOfEpoch(next)) {
      const epoch = epochOfSlot(next);
      const slots = await this.readEpoch(epoch);
      this.publishEpoch(epoch, estimateSlotTime(next, mined, this.slotSeconds), slots);
      info = slots.get(next)!;
    } else {
      const { blsKey } = this.schedule.proposerOf(next);
      const [optedIn] = await this.readOptIns([blsKey]);
      info = { blsKey, optedIn: optedIn ?? false };
    }
    this.publishSlotIfOptedIn(next, info);
  }

  private async readEpoch(epoch: bigint): Promise<Map<bigint, SlotInfo>> {
    const duties = this.schedule.dutiesOf(epoch);
    const optedIn = await this.readOptIns(duties.map((d) => d.blsKey));
    return new Map(duties.map((d, i) => [d.slot, { blsKey: d.blsKey, optedIn: optedIn[i] ?? false }]));
  }

  private async readOptIns(keys: Hex[]): Promise<boolean[]> {
    try {
      return await this.chain.areValidatorsOptedIn(keys);
    } catch (e) {
      throw new InternalError(`checking if validators are opted in: ${(e as Error).message ?? String(e)}`, {
        cause: e,
      });
    }
  }

  private publishEpoch(epoch: bigint, startTime: bigint, slots: Map<bigint, SlotInfo>): void {
    this.publish("epoch_validators_opted_in", {
      epoch: Number(epoch),
      epoch_start_time: Number(startTime),
      slots: [...slots].map(([slot, s]) => ({ slot: Number(slot), bls_key: s.blsKey, opted_in: s.optedIn })),
    });
    this.log.debug("epoch announced", { epoch, optedIn: [...slots.values()].filter((s) => s.optedIn).length });
  }

  private publishSlotIfOptedIn(slot: bigint, info: SlotInfo): void {
    if (!info.optedIn) return;
    this.publish("validator_opted_in", { epoch: Number(epochOfSlot(slot)), slot: Number(slot), bls_key: info.blsKey });
    this.log.debug("opted-in proposer announced", { slot, blsKey: info.blsKey });
  }
}
