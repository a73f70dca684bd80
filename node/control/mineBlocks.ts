import { type Address, isAddress } from "viem";
import { BODY_LIMITS, readBodyText } from "../api/wire/limits.ts";
import { DeadlineExceededError, InvalidArgumentError } from "../protocol/grpcCodes.ts";
import { DeadlineError, within } from "../util/deadline.ts";
import { logger } from "../util/log.ts";

const log = logger("control");

/**
 * How long POST /sim/v1/mine mines by default before it answers DEADLINE_EXCEEDED: below the 60 s after which the
 * project's HTTP clients give up, so that a client learns why instead of timing out.
 */
export const MINE_TIMEOUT_MS = 45_000;
export const MAX_MINE_BLOCKS = 1000;
const MAX_MINE_TIMEOUT_MS = 600_000;

/** An L1 block the devnet mined. */
export interface MinedL1Block {
  number: bigint;
  hash: string;
  winner: Address;
}

/** What mines L1 blocks (the devnet's SimControl). */
export interface L1Miner {
  mine(blocks: number, winner?: Address): Promise<MinedL1Block[]>;
}

export interface MineRequest {
  blocks: number;
  /** Wins the first mined block. */
  winner?: Address;
  timeoutMs: number;
}

/** Mining did not finish within the request's timeout; the blocks not started by then are not mined. */
export class MineTimeoutError extends DeadlineExceededError {}

/** POST /sim/v1/mine's body: empty, or a JSON object of `blocks`, `winner` and `timeoutMs`. */
export async function parseMineRequest(request: Request): Promise<MineRequest> {
  const text = (await readBodyText(request, BODY_LIMITS.small)).trim();
  let body: unknown = {};
  if (text) {
    try {
      body = JSON.parse(text);
    } catch (e) {
      throw new InvalidArgumentError(`the body is not JSON: ${(e as Error).message}`, { cause: e });
    }
  }
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new InvalidArgumentError("the body must be a JSON object: {blocks?, winner?, timeoutMs?}");
  const { blocks = 1, winner, timeoutMs = MINE_TIMEOUT_MS, ...unknown } = body as Record<string, unknown>;
  const extra = Object.keys(unknown);
  if (extra.length > 0)
    throw new InvalidArgumentError(`unknown field ${JSON.stringify(extra[0])}; known: blocks, winner, timeoutMs`);
  if (!Number.isInteger(blocks) || (blocks as number) < 1 || (blocks as number) > MAX_MINE_BLOCKS)
    throw new InvalidArgumentError(
      `blocks must be an integer from 1 to ${MAX_MINE_BLOCKS}, got ${JSON.stringify(blocks)}`,
    );
  if (winner !== undefined && (typeof winner !== "string" || !isAddress(winner)))
    throw new InvalidArgumentError(`winner is not an address: ${JSON.stringify(winner)}`);
  if (!Number.isInteger(timeoutMs) || (timeoutMs as number) < 1 || (timeoutMs as number) > MAX_MINE_TIMEOUT_MS)
    throw new InvalidArgumentError(
      `timeoutMs must be an integer from 1 to ${MAX_MINE_TIMEOUT_MS}, got ${JSON.stringify(timeoutMs)}`,
    );
  return { blocks: blocks as number, winner: winner as Address | undefined, timeoutMs: timeoutMs as number };
}

/**
 * Mines the request's blocks one at a time (each answers once the oracle has recorded it on the settlement chain),
 * so that it can stop between two of them: at the timeout it answers MineTimeoutError, and when the client has left
 * (`signal`) it starts no more. A block being mined at the timeout is still mined and recorded.
 */
export async function mineWithin(control: L1Miner, req: MineRequest, signal?: AbortSignal): Promise<MinedL1Block[]> {
  const mined: MinedL1Block[] = [];
  const started = performance.now();
  let timedOut = false;
  const mining = (async () => {
    for (let i = 0; i < req.blocks && !timedOut && !signal?.aborted; i++)
      mined.push(...(await control.mine(1, i === 0 ? req.winner : undefined)));
    return mined;
  })();
  try {
    return await within("the L1 blocks of the request", req.timeoutMs, mining);
  } catch (e) {
    if (!(e instanceof DeadlineError)) throw e;
    timedOut = true;
    mining.catch((err) => log.error("mining after the request's timeout failed", { error: err }));
    throw new MineTimeoutError(
      `mined ${mined.length} of ${req.blocks} L1 blocks in timeoutMs ${req.timeoutMs} (each block waits until the ` +
        "oracle has recorded it on the settlement chain); no more are mined for this request: ask for fewer " +
        "blocks or a larger timeoutMs, or check that the settlement chain mines",
      { context: { blocks: req.blocks, mined: mined.length, elapsedMs: Math.round(performance.now() - started) } },
    );
  }
}
