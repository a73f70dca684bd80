/**
 * `--network auto` (the default of `npm run node`): a process per node where the machine has the cores, else every
 * node on the devnet's one event loop. docs/performance.md "On 16 cores" measured the sides: on 16 cores the
 * processes (with 4 crypto workers each) answer about 3 to 5 times the bids of the one loop; on 2 cores the one loop
 * is the better choice ("Limits on 2 cores").
 */
import { availableParallelism } from "node:os";
import { MevCommitError } from "../../lib/errors.ts";

/** DEVNET_CORES is not a number of cores. */
export class CoresEnvError extends MevCommitError {}

/** The fewest cores at which auto runs a process per node. */
export const AUTO_PROCESSES_MIN_CORES = 8;

/** Pretends the machine has this many cores (tests, and a try of the other side): a positive integer. */
export const CORES_ENV = "DEVNET_CORES";

export interface NetworkChoice {
  network: "libp2p" | "processes";
  cryptoWorkers: number;
  /** What the banner says, e.g. "16 cores: a process per node, 4 crypto workers each". */
  reason: string;
}

/**
 * What auto picks for `cores`: processes from AUTO_PROCESSES_MIN_CORES cores, each node with a quarter of the cores
 * as crypto workers (at most 4, the measured side), unless `cryptoWorkers` was given; `blocker` names a flag a node
 * process cannot take (then the one loop).
 */
export function chooseNetwork(cores: number, o: { cryptoWorkers?: number; blocker?: string } = {}): NetworkChoice {
  const loop = (why: string): NetworkChoice => ({
    network: "libp2p",
    cryptoWorkers: o.cryptoWorkers ?? 0,
    reason: `${cores} core${cores === 1 ? "" : "s"}${why}: every node on one event loop`,
  });
  if (o.blocker) return loop(`, but ${o.blocker}`);
  if (cores < AUTO_PROCESSES_MIN_CORES) return loop(` (a process per node pays from ${AUTO_PROCESSES_MIN_CORES})`);
  const workers = o.cryptoWorkers ?? Math.min(4, Math.floor(cores / 4));
  return {
    network: "processes",
    cryptoWorkers: workers,
    reason: `${cores} cores: a process per node, ${workers} crypto worker${workers === 1 ? "" : "s"} each`,
  };
}

/** The cores this process may use, or what DEVNET_CORES pretends. */
export function availableCores(env: Record<string, string | undefined> = process.env): number {
  const given = env[CORES_ENV];
  if (given === undefined || given === "") return availableParallelism();
  if (!/^[1-9][0-9]{0,3}$/.test(given))
    throw new CoresEnvError(`${CORES_ENV} must be a number of cores, got "${given}"`);
  return Number(given);
}
