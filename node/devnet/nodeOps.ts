/**
 * What the control API does to one node, written once: the devnet applies it to its in-process nodes, and a node
 * started with `--role … --admin-port` applies it to itself when the devnet runs it as a process (node/role/adminApi.ts).
 */
import type { BidderNode } from "../nodes/bidderNode.ts";
import type { ProviderNode } from "../nodes/providerNode.ts";
import { DeadlineExceededError, FailedPreconditionError, InvalidArgumentError } from "../protocol/grpcCodes.ts";
import { NodeStore } from "../store/db.ts";

export type Fault = "store" | "open" | "none";

/** A fault named in a request (`{"fail": …}`), or InvalidArgument. */
export function parseFault(fail: string): Fault {
  if (fail !== "store" && fail !== "open" && fail !== "none")
    throw new InvalidArgumentError(`fail must be store, open or none, got ${fail}`);
  return fail;
}

/** When a killed node dies: at once (the default), or right after it next acknowledges a commitment. */
export type KillPoint = "now" | "after-ack";

export function parseKillPoint(at: string | undefined): KillPoint {
  if (at === undefined || at === "now") return "now";
  if (at !== "after-ack") throw new InvalidArgumentError(`at must be now or after-ack, got ${JSON.stringify(at)}`);
  return at;
}

/** How long a kill "after-ack" waits for the node's next acknowledgement. */
const AFTER_ACK_WAIT_MS = 60_000;

/** Arms a node to die right after its next acknowledgement and waits until it did (DeadlineExceeded if none came). */
export async function diedAfterAck(
  node: BidderNode | ProviderNode,
  name: string,
  timeoutMs = AFTER_ACK_WAIT_MS,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      node.afterAck.wait(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          node.afterAck.disarm();
          reject(
            new DeadlineExceededError(
              `${name} acknowledged no commitment within ${timeoutMs} ms; the kill is called off`,
            ),
          );
        }, timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Sets a killed node's event cursor back, so that the node started next on `storePath` handles the settlement
 * chain's events again from block `from` on (as after a restart onto a chain whose history changed under its cursor).
 * The saved block hash goes too: the replay is asked for, not a divergence to detect.
 */
export function rewindEventCursor(storePath: string, from: bigint, cursorKey = "events.cursor"): void {
  const store = new NodeStore(storePath);
  try {
    const cursor = store.getKv(cursorKey);
    if (cursor !== undefined && BigInt(cursor) < from) return;
    store.setKv(cursorKey, (from - 1n).toString());
    store.deleteKv(`${cursorKey}.hash`);
  } finally {
    store.close();
  }
}

export function parseReplayFrom(v: string | number | undefined): bigint | undefined {
  if (v === undefined) return undefined;
  if (!/^[1-9][0-9]{0,18}$/.test(String(v)))
    throw new InvalidArgumentError(`replayFrom must be a settlement block number above 0, got ${JSON.stringify(v)}`);
  return BigInt(v);
}

/** Arms (`store`, `open`) or disarms (`none`) the bidder's next failing open transaction. */
export function armBidderFault(b: BidderNode, fault: Fault): void {
  if (fault === "store")
    throw new InvalidArgumentError("the bidder node sends no store transactions; fault must be open or none");
  b.tracker.failNextOpen = fault === "open";
}

/** Arms (`store`, `open`) or disarms (`none`) a provider's next failing store or open transaction. */
export function armProviderFault(p: ProviderNode, fault: Fault, label: string = p.address): void {
  if (!p.storer || !p.tracker) throw new FailedPreconditionError(`provider ${label} is not running`);
  p.storer.failNext = fault === "store" || (fault !== "none" && p.storer.failNext);
  p.tracker.failNextOpen = fault === "open" || (fault !== "none" && p.tracker.failNextOpen);
}

/** A node's open Subscribe streams and (provider) ReceiveBids receivers, as /sim/v1/status reports them. */
export function nodeCounts(n: BidderNode | ProviderNode): { subscribers: number; receivers?: number } {
  return "dispatcher" in n
    ? { subscribers: n.notifier.subscriberCount, receivers: n.dispatcher.activeReceivers }
    : { subscribers: n.notifier.subscriberCount };
}
