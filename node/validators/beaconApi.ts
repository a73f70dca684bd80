/**
 * The devnet's beacon API: the few endpoints of the Ethereum beacon-node API that upstream's node calls (its
 * validator service: p2p/pkg/rpc/validator), answered from the simulated beacon schedule (beaconSchedule.ts) and the
 * devnet's L1. Slot s is L1 block s; the head slot is the latest L1 block.
 *
 * - `GET /eth/v1/beacon/genesis`: `genesis_time` is the time a beacon chain with `slotSeconds` slots would have
 *   started for the L1 head to be its current slot: time(head) − slotSeconds × head. A node that derives the current
 *   slot from the clock (upstream does) then agrees with the L1 while blocks come every `slotSeconds`.
 * - `GET /eth/v1/validator/duties/proposer/{epoch}`: the 32 proposers of an epoch; epochs after the head's + 1 are
 *   refused with a beacon node's 400 "Proposer duties were requested for a future epoch".
 * - `GET /eth/v1/beacon/states/{state_id}/finality_checkpoints`: simulated finality, one epoch of justification lag
 *   and two of finality: at a state in epoch c, current_justified = c − 1, previous_justified = finalized = c − 2
 *   (never below 0). Upstream takes current_justified + 1 as the current epoch.
 *
 * Roots are derived from the schedule's seed (nothing checks them); errors are the beacon API's `{code, message}`.
 */
import { Elysia } from "elysia";
import { concat, type Hex, keccak256, numberToHex, stringToHex } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { logger } from "../util/log.ts";
import {
  type BeaconSchedule,
  epochOfSlot,
  estimateSlotTime,
  firstSlotOfEpoch,
  type SlotAnchor,
} from "./beaconSchedule.ts";

/** What the beacon API reads: the schedule, the slot length, and the L1 head (the latest mined slot and its time). */
export interface BeaconSource {
  readonly schedule: BeaconSchedule;
  readonly slotSeconds: number;
  head(): Promise<SlotAnchor>;
}

/** A beacon API error: HTTP status and the `{code, message}` body beacon nodes answer. */
export class BeaconApiError extends MevCommitError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message, { context: { status } });
  }
}

/** The text upstream's node looks for (strings.Contains) to map a refusal to InvalidArgument. */
export const FUTURE_EPOCH_TEXT = "Proposer duties were requested for a future epoch";
const MAX_UINT64 = (1n << 64n) - 1n;

function uint64(what: string, text: string): bigint {
  if (!/^[0-9]{1,20}$/.test(text) || BigInt(text) > MAX_UINT64)
    throw new BeaconApiError(400, `Invalid ${what}: ${text}`);
  return BigInt(text);
}

/** A deterministic 32-byte root for simulated beacon objects (`kind` and `n` name the object). */
function root(seed: Hex, kind: string, n = 0n): Hex {
  return keccak256(concat([stringToHex(`mev-commit devnet beacon ${kind}`), seed, numberToHex(n, { size: 8 })]));
}

export interface Checkpoints {
  previousJustified: bigint;
  currentJustified: bigint;
  finalized: bigint;
}

/** Simulated finality of the state at `slot`: justified one epoch behind, finalized two (never below epoch 0). */
export function checkpointsAt(slot: bigint): Checkpoints {
  const c = epochOfSlot(slot);
  const back = (n: bigint) => (c > n ? c - n : 0n);
  return { previousJustified: back(2n), currentJustified: back(1n), finalized: back(2n) };
}

/** The beacon chain's genesis time implied by the L1 head: time(head) − slotSeconds × head (Unix seconds, ≥ 0). */
export function impliedGenesisTime(head: SlotAnchor, slotSeconds: number): bigint {
  return estimateSlotTime(0n, head, slotSeconds);
}

/** The slot a `state_id` names: head, genesis, finalized, justified, or a slot number not after the head. */
async function stateSlot(source: BeaconSource, stateId: string): Promise<bigint> {
  const { slot: head } = await source.head();
  switch (stateId) {
    case "head":
      return head;
    case "genesis":
      return 0n;
    case "finalized":
      return firstSlotOfEpoch(checkpointsAt(head).finalized);
    case "justified":
      return firstSlotOfEpoch(checkpointsAt(head).currentJustified);
  }
  if (/^0x[0-9a-fA-F]{64}$/.test(stateId)) throw new BeaconApiError(404, "State not found");
  const slot = uint64("state ID", stateId);
  if (slot > head) throw new BeaconApiError(404, "State not found");
  return slot;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

/** The beacon API app (serve it on its own port). */
export function beaconApi(source: BeaconSource) {
  const log = logger("beacon");
  const seed = source.schedule.seed;
  const checkpoint = (epoch: bigint) => ({
    epoch: epoch.toString(),
    root: epoch === 0n ? `0x${"00".repeat(32)}` : root(seed, "checkpoint", epoch),
  });
  return new Elysia({ name: "beacon-api" })
    .onError(({ code, error }) => {
      if (error instanceof BeaconApiError) return json(error.status, { code: error.status, message: error.message });
      if (code === "NOT_FOUND") return json(404, { code: 404, message: "NOT_FOUND" });
      log.error("beacon API request failed", { error });
      return json(500, { code: 500, message: `Internal server error: ${(error as Error).message ?? String(error)}` });
    })
    .get("/eth/v1/beacon/genesis", async () => {
      const head = await source.head();
      return json(200, {
        data: {
          genesis_time: impliedGenesisTime(head, source.slotSeconds).toString(),
          genesis_validators_root: root(seed, "genesis validators"),
          genesis_fork_version: "0x00000000",
        },
      });
    })
    .get("/eth/v1/validator/duties/proposer/:epoch", async ({ params }) => {
      const epoch = uint64("epoch", params.epoch);
      const current = epochOfSlot((await source.head()).slot);
      if (epoch > current + 1n)
        throw new BeaconApiError(400, `${FUTURE_EPOCH_TEXT} (current: ${current}, requested: ${epoch})`);
      return json(200, {
        dependent_root: root(seed, "dependent", epoch),
        execution_optimistic: false,
        data: source.schedule
          .dutiesOf(epoch)
          .map((d) => ({ pubkey: d.blsKey, validator_index: String(d.validatorIndex), slot: d.slot.toString() })),
      });
    })
    .get("/eth/v1/beacon/states/:stateId/finality_checkpoints", async ({ params }) => {
      const c = checkpointsAt(await stateSlot(source, params.stateId));
      return json(200, {
        execution_optimistic: false,
        finalized: false,
        data: {
          previous_justified: checkpoint(c.previousJustified),
          current_justified: checkpoint(c.currentJustified),
          finalized: checkpoint(c.finalized),
        },
      });
    });
}
