/**
 * Why providers did not commit to a bid, as far as the target can tell: the bidder's deposit for the bid's window
 * (none, or a per-block allowance below the amount), and, where the target has a control API, a provider node that
 * is stopped or has no provider application reading its bids. A provider's refusal never reaches the bidder's API
 * (the bidder logs it), so these are read from the target afterwards.
 */
import type { Target } from "../../node/devnet/target.ts";
import { BLOCKS_PER_WINDOW, windowOfBlock } from "../../node/protocol/windows.ts";

export interface BidFacts {
  blockNumber: bigint;
  amount: bigint;
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
  const [deposit, nodes] = await Promise.all([depositReason(target, bid), providerNodes(target)]);
  const reasons = new Map<string, string>();
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
