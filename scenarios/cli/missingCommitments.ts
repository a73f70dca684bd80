/**
 * Why providers did not commit to a bid, as far as the target can tell: the bidder's deposit for the bid's window
 * (none, or a per-block allowance below the amount), and, where the target has a control API, a provider node that
 * is stopped or has no provider application reading its bids. A provider's refusal never reaches the bidder's API
 * (the bidder logs it), so these are read from the target afterwards.
 */
import type { Target } from "../../node/clients/target.ts";
import { BLOCKS_PER_WINDOW, windowOfBlock } from "../../node/protocol/windows.ts";

export interface BidFacts {
  blockNumber: bigint;
  amount: bigint;
  /** The L1 head when the bid was sent: a bid for a block at or below it is a bid for a block already mined. */
  headAtSend?: bigint;
}

/**
 * What a bid for a block already mined gets, said before it is sent: the node sends it like any other (upstream
 * checks no block number: api-behaviour §1.1, §2.2 step 8), providers commit where its window still has a deposit,
 * and no commitment to it can settle.
 */
export function pastBlockNote(block: bigint, head: bigint): string {
  return `note: block ${block} is already mined (the L1 is at block ${head}); the bidder sends the bid anyway, as upstream's does, and a commitment to it cannot settle`;
}

/** Upstream's gRPC code names (api-behaviour §0.4), for the bidder's refusals. */
const CODE_NAMES = [
  "OK",
  "Canceled",
  "Unknown",
  "InvalidArgument",
  "DeadlineExceeded",
  "NotFound",
  "AlreadyExists",
  "PermissionDenied",
  "ResourceExhausted",
  "FailedPrecondition",
  "Aborted",
  "OutOfRange",
  "Unimplemented",
  "Internal",
  "Unavailable",
  "DataLoss",
  "Unauthenticated",
];

/**
 * The bidder's refusal of a bid in one line, whichever of upstream's two shapes it came in: the stream's
 * `{"error":{code,message,details}}` (the call started and failed) or a bare `{code,message,details}` (the gateway
 * refused a body that does not decode as a Bid, before the call; api-behaviour §0.5).
 */
export function refusalLine(status: number, line: Record<string, unknown>): string {
  const e = (typeof line.error === "object" && line.error ? line.error : line) as { code?: unknown; message?: unknown };
  if (typeof e.code !== "number" || typeof e.message !== "string")
    return `the bidder answered HTTP ${status} with a line that is neither a commitment nor an error: ${JSON.stringify(line).slice(0, 300)}`;
  const message = e.message.replace(/\n\s*-\s*/g, "; ").replace(/:;/g, ":");
  return `the bidder refused the bid (HTTP ${status}, ${CODE_NAMES[e.code] ?? "code"} ${e.code}): ${message}`;
}

const norm = (a: string) => a.toLowerCase().replace(/^0x/, "");

async function getJson(url: string): Promise<unknown> {
  const r = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  if (!r.ok) throw new Error(`GET ${url} answered HTTP ${r.status}`);
  return r.json();
}

/** The reason that holds for every provider (the bidder's deposit), or undefined. */
async function depositReason(target: Target, bid: BidFacts): Promise<string | undefined> {
  const window = windowOfBlock(bid.blockNumber);
  let deposit: bigint;
  try {
    const body = (await getJson(`${target.bidderUrl}/v1/bidder/get_deposit?window_number=${window}`)) as {
      amount?: string;
    };
    deposit = BigInt(body.amount ?? "0");
  } catch {
    return undefined;
  }
  const fix = `start auto-deposit (POST ${target.bidderUrl}/v1/bidder/auto_deposit/<wei>) or deposit (POST ${target.bidderUrl}/v1/bidder/deposit/<wei>?window_number=${window})`;
  if (deposit === 0n) return `no deposit for window ${window} (block ${bid.blockNumber}) — ${fix}`;
  const perBlock = deposit / BLOCKS_PER_WINDOW;
  if (perBlock < bid.amount)
    return `the bid's ${bid.amount} wei is above the per-block allowance of window ${window} (${perBlock} wei: its deposit / ${BLOCKS_PER_WINDOW} blocks) — bid less or ${fix}`;
  return undefined;
}

type ControlNode = { role: string; address: string; running?: boolean; receivers?: number };

/** What the control API tells about each provider node, by address (empty without one). */
async function providerNodes(target: Target): Promise<Map<string, ControlNode>> {
  if (!target.controlUrl) return new Map();
  try {
    const status = (await getJson(`${target.controlUrl}/sim/v1/status`)) as { nodes?: ControlNode[] };
    return new Map((status.nodes ?? []).filter((n) => n.role === "provider").map((n) => [norm(n.address), n]));
  } catch {
    return new Map();
  }
}

/** One reason per provider address that did not commit. */
export async function whyNotCommitted(target: Target, bid: BidFacts, missing: string[]): Promise<Map<string, string>> {
  const reasons = new Map<string, string>();
  // A block already mined: whatever else holds, the bid is for the past.
  if (bid.headAtSend !== undefined && bid.blockNumber <= bid.headAtSend) {
    for (const address of missing)
      reasons.set(
        address,
        `block ${bid.blockNumber} was already mined when the bid was sent (the L1 was at block ${bid.headAtSend}); bid for a later block (without --block: the block after the next)`,
      );
    return reasons;
  }
  const [deposit, nodes] = await Promise.all([depositReason(target, bid), providerNodes(target)]);
  for (const address of missing) {
    const node = nodes.get(norm(address));
    if (deposit) reasons.set(address, deposit);
    else if (node?.running === false)
      reasons.set(address, "its node is stopped (POST /sim/v1/providers/<index>/start, or restart the devnet)");
    else if (node?.receivers === 0)
      reasons.set(
        address,
        "no provider application is attached to its node (nothing reads ReceiveBids) — attach one, or start the devnet with --auto-accept",
      );
    else
      reasons.set(
        address,
        `it rejected the bid or did not answer within the decision timeout (${target.decisionTimeoutMs} ms) — see its node's log`,
      );
  }
  return reasons;
}

/** "1 of 2 providers committed; provider 0x…: reason; provider 0x…: reason" */
export function missingCommitmentsLine(providers: number, committed: number, reasons: Map<string, string>): string {
  const each = [...reasons].map(([address, why]) => `provider 0x${norm(address)}: ${why}`);
  const distinct = new Set(reasons.values());
  // One reason for all (the bidder's deposit): said once.
  const detail = distinct.size === 1 && reasons.size > 1 ? `every provider: ${[...distinct][0]}` : each.join("; ");
  return `${committed} of ${providers} providers committed; ${detail}`;
}
