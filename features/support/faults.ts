/**
 * Network faults on a target with `sim-faults` (the reference devnet with --network netns): a partition between
 * two of its nodes' hosts and its heal, loss, a bandwidth cap and a delay on one host, through `/sim/v1/network/faults` (docs/devnet.md, Network faults). Every
 * fault a scenario sets is healed at its end, whatever happened.
 */
import { MevCommitError } from "../../lib/errors.ts";
import { call } from "./clients/http.ts";
import { SKIPPED_PREFIX } from "./health.ts";
import type { ConformanceWorld } from "./world.ts";

export class FaultsSuiteError extends MevCommitError {}

const PATH = "/sim/v1/network/faults";
const healing = new WeakSet<ConformanceWorld>();

/**
 * The host of "the bidder" or "provider N" (1-based): as the target file's nodeHosts says, else as the control API's
 * status names the node there.
 */
export async function hostOf(world: ConformanceWorld, node: string): Promise<string> {
  const named = world.target.nodeHosts;
  if (named && node === "the bidder") return named.bidder;
  if (node === "the bidder") return "bidder";
  // Pseudo-hosts of the control API: the settlement chain's RPC, and the clients of a node's own APIs (the suite's).
  if (node === "the settlement chain") return "settlement";
  if (node === "its API clients") return "clients";
  const m = /^provider (\d+)$/.exec(node);
  // Nodes the control API does not run: the target file says which host runs which.
  const host = m && named ? named.providers[Number(m[1]) - 1] : undefined;
  if (host) return host;
  const address = m ? world.target.providerAddresses[Number(m[1]) - 1] : undefined;
  if (!address)
    throw new FaultsSuiteError(
      `no node "${node}": say "the bidder" or "provider N" (1 to ${world.target.providerAddresses.length})`,
    );
  const status = await world.control.status();
  const found = status.nodes?.find((n) => n.address.toLowerCase() === address.toLowerCase());
  if (!found) throw new FaultsSuiteError(`the control API's status names no node with ${node}'s address ${address}`);
  return found.name;
}

/** The control API's FailedPrecondition: the target cannot make that kind of fault (its reason says why). */
export class FaultUnavailable extends MevCommitError {}

async function faultsCall(world: ConformanceWorld, method: "POST" | "DELETE", query: string, body?: unknown) {
  const url = `${world.target.controlUrl}${PATH}${query}`;
  const r = await call(method, url, { body, scope: world.scope });
  const code = (r.json as { code?: number } | undefined)?.code;
  if (r.status !== 200 && code === 9) throw new FaultUnavailable((r.json as { message: string }).message);
  if (r.status !== 200)
    throw new FaultsSuiteError(
      `${method} ${url} ${body ? JSON.stringify(body) : ""} answered HTTP ${r.status}: ${r.text}`,
    );
  return r.json;
}

/** Sets a fault (the scenario's end heals every fault if no step did); "skipped" where the target lacks its kind. */
async function setFault(world: ConformanceWorld, fault: Record<string, unknown>): Promise<"skipped" | undefined> {
  if (!healing.has(world)) {
    healing.add(world);
    world.onTeardown("heal the network faults the scenario set", async () => {
      await faultsCall(world, "DELETE", "");
    });
  }
  try {
    await faultsCall(world, "POST", "", fault);
  } catch (e) {
    if (!(e instanceof FaultUnavailable)) throw e;
    world.attach(`${SKIPPED_PREFIX}the target cannot make this fault: ${e.message}`, "text/plain");
    return "skipped";
  }
}

/** Cuts every packet between two nodes' hosts (both ways). */
export async function partition(world: ConformanceWorld, a: string, b: string) {
  return setFault(world, { hosts: [await hostOf(world, a), await hostOf(world, b)], partition: true });
}

/** Drops each packet to or from a node's host with this chance. */
export async function loss(world: ConformanceWorld, node: string, percent: number) {
  return setFault(world, { hosts: [await hostOf(world, node)], lossPercent: percent });
}

/** Caps what a node's host sends at this rate. */
export async function rate(world: ConformanceWorld, node: string, kbit: number) {
  return setFault(world, { hosts: [await hostOf(world, node)], rateKbit: kbit });
}

export async function heal(world: ConformanceWorld, a: string, b: string): Promise<void> {
  const hosts = [await hostOf(world, a), await hostOf(world, b)];
  await faultsCall(world, "DELETE", `?hosts=${hosts.map(encodeURIComponent).join(",")}`);
}

/** Delays what a node's host sends by `ms`, varied by up to `jitter` either way. */
export async function delay(world: ConformanceWorld, node: string, ms: number, jitter: number) {
  return setFault(world, { hosts: [await hostOf(world, node)], delayMs: ms, jitterMs: jitter });
}

/** The control API's FailedPrecondition for a bid's outcomes: it does not see the target's bidder (its reason says why). */
export class OutcomesUnavailable extends MevCommitError {}

interface RecordedBid {
  providers: { provider: string; outcome: string; reason?: string; reasonText?: string }[];
}

/**
 * The outcome the target's control API records for `provider` (an address) of the bid one of whose commitments is
 * `commitmentDigest` (GET /sim/v1/bids/{digest}): waits while it is still pending (the bidder may report it a
 * little after the stream ended) and answers its reason, or the outcome when it has none. OutcomesUnavailable where
 * the control API records no outcomes of the target's bidder (a node it does not run, e.g. upstream's).
 */
export async function recordedOutcome(
  world: ConformanceWorld,
  commitmentDigest: string,
  provider: string,
): Promise<string> {
  const url = `${world.target.controlUrl}/sim/v1/bids/0x${commitmentDigest.replace(/^0x/, "")}`;
  const want = provider.replace(/^0x/, "").toLowerCase();
  let last = "";
  for (const until = Date.now() + 15_000; Date.now() < until; await Bun.sleep(250)) {
    const r = await call("GET", url, { scope: world.scope });
    last = `HTTP ${r.status}: ${r.text.slice(0, 400)}`;
    if (r.status === 404) continue;
    // FailedPrecondition: the control API records no outcomes of this bidder's bids (it does not run it).
    if ((r.json as { code?: number } | undefined)?.code === 9)
      throw new OutcomesUnavailable((r.json as { message: string }).message);
    if (r.status !== 200) break;
    const p = (r.json as RecordedBid).providers.find((x) => x.provider.replace(/^0x/, "").toLowerCase() === want);
    if (p && p.outcome !== "pending") return p.reason ?? p.outcome;
  }
  throw new FaultsSuiteError(
    `GET ${url} names no settled outcome for provider ${provider} within 15 s; the last answer: ${last}`,
  );
}

/** A bid digest as a provider application or a node gives it (hex, with or without 0x, or base64), as bare hex. */
export function digestHex(d: string): string {
  const bare = d.replace(/^0x/, "").toLowerCase();
  return /^[0-9a-f]{64}$/.test(bare) ? bare : Buffer.from(d, "base64").toString("hex");
}

/**
 * Where a commitment's dispatch time is not the one its provider's application chose when it decided: in the bid's
 * stream (what the provider signed) and in the bidder's record of the bid (GetBidInfo), which must keep the
 * provider's time and not put in when the bidder heard. Empty when both hold the chosen time.
 */
export function dispatchProblems(
  streamed: { bid: string; provider: string; dispatch: string }[],
  chosen: ReadonlyMap<string, bigint>,
  recorded: { bid: string; provider: string; dispatch: string }[],
): string[] {
  const problems: string[] = [];
  const chosenHex = new Map([...chosen].map(([k, v]) => [digestHex(k), v]));
  for (const c of streamed) {
    const bid = digestHex(c.bid);
    const want = chosenHex.get(bid);
    if (want === undefined) {
      problems.push(`the application chose no dispatch time for bid ${bid}`);
      continue;
    }
    if (BigInt(c.dispatch) !== want)
      problems.push(
        `the commitment to bid ${bid} in the stream carries dispatch time ${c.dispatch}, the application chose ${want}`,
      );
    const address = (a: string) => a.replace(/^0x/, "").toLowerCase();
    const r = recorded.filter((x) => digestHex(x.bid) === bid && address(x.provider) === address(c.provider));
    if (r.length !== 1) problems.push(`the bidder lists ${r.length} commitments of ${c.provider} to bid ${bid}`);
    else if (BigInt(r[0]!.dispatch) !== want)
      problems.push(
        `the bidder's record of bid ${bid} has dispatch time ${r[0]!.dispatch}, the application chose ${want}`,
      );
  }
  return problems;
}
