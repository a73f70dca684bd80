/**
 * Network faults on a target with `sim-faults` (the reference devnet with --network netns): a partition between
 * two of its nodes' hosts and its heal, through `/sim/v1/network/faults` (docs/devnet.md, Network faults). Every
 * fault a scenario sets is healed at its end, whatever happened.
 */
import { MevCommitError } from "../../lib/errors.ts";
import { call } from "./clients/http.ts";
import type { ConformanceWorld } from "./world.ts";

export class FaultsSuiteError extends MevCommitError {}

const PATH = "/sim/v1/network/faults";
const healing = new WeakSet<ConformanceWorld>();

/** The host of "the bidder" or "provider N" (1-based), as the control API's status names the node there. */
export async function hostOf(world: ConformanceWorld, node: string): Promise<string> {
  if (node === "the bidder") return "bidder";
  const m = /^provider (\d+)$/.exec(node);
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

async function faultsCall(world: ConformanceWorld, method: "POST" | "DELETE", query: string, body?: unknown) {
  const url = `${world.target.controlUrl}${PATH}${query}`;
  const r = await call(method, url, { body, scope: world.scope });
  if (r.status !== 200)
    throw new FaultsSuiteError(
      `${method} ${url} ${body ? JSON.stringify(body) : ""} answered HTTP ${r.status}: ${r.text}`,
    );
  return r.json;
}

/** Cuts every packet between two nodes' hosts (both ways); the scenario's end heals it if no step did. */
export async function partition(world: ConformanceWorld, a: string, b: string): Promise<void> {
  const hosts = [await hostOf(world, a), await hostOf(world, b)];
  if (!healing.has(world)) {
    healing.add(world);
    world.onTeardown("heal the network faults the scenario set", async () => {
      await faultsCall(world, "DELETE", "");
    });
  }
  await faultsCall(world, "POST", "", { hosts, partition: true });
}

export async function heal(world: ConformanceWorld, a: string, b: string): Promise<void> {
  const hosts = [await hostOf(world, a), await hostOf(world, b)];
  await faultsCall(world, "DELETE", `?hosts=${hosts.map(encodeURIComponent).join(",")}`);
}
