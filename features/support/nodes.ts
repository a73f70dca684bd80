/**
 * Killing a node of the target with SIGKILL and waiting for it to come back (capability `sim-kill`: the control
 * API's `POST /sim/v1/nodes/{name}/kill` kills the node's process and starts it again on the same data).
 */

import { MevCommitError } from "../../lib/errors.ts";
import { bidsOf } from "./bids.ts";
import { HttpCallError } from "./clients/http.ts";
import type { ConformanceWorld } from "./world.ts";

export class NodeRestartError extends MevCommitError {}

/** The control API's name of a node named the way steps name it ("the bidder", "provider 2"). */
async function controlName(world: ConformanceWorld, node: string): Promise<string> {
  const address =
    node === "the bidder"
      ? world.target.bidderAddress
      : world.target.providerAddresses[Number(/^provider (\d+)$/.exec(node)?.[1]) - 1];
  if (!address) throw new NodeRestartError(`unknown node "${node}"`);
  const nodes = (await world.control.status()).nodes ?? [];
  const n = nodes.find((x) => x.address.toLowerCase() === address.toLowerCase());
  if (!n) throw new NodeRestartError(`/sim/v1/status lists no node with address ${address}`);
  return n.name;
}

/**
 * Arms `node` to die right after it next acknowledges a commitment (the bidder: streams it to its client; a
 * provider: answers the bidder with it); the promise settles once it died there and serves again (await it after
 * the bid).
 */
export async function killAfterAck(world: ConformanceWorld, node: string): Promise<{ killed: Promise<unknown> }> {
  const name = await controlName(world, node);
  const provider = /^provider (\d+)$/.exec(node)?.[1];
  if (provider) for (const app of bidsOf(world).appsOf(Number(provider))) app.nodeWillBeKilled = true;
  const killed = world.control.kill(name, { at: "after-ack", timeoutMs: 120_000 });
  killed.catch(() => {});
  return { killed };
}

/** Waits until `node` answers /health again after a kill. */
export async function answersAgain(world: ConformanceWorld, node: string, timeoutMs = 60_000): Promise<void> {
  const url = world.nodeUrl(node === "the bidder" ? "bidder" : node);
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      const r = await world.http("GET", `${url}/health`, { timeoutMs: 2_000 });
      if (r.status === 200) return;
    } catch (e) {
      if (!(e instanceof HttpCallError)) throw e;
    }
    if (performance.now() > deadline)
      throw new NodeRestartError(`${node} did not answer /health within ${timeoutMs} ms of its restart`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Kills `node` with SIGKILL through the control API and waits until it answers /health again. */
export async function killAndRestart(
  world: ConformanceWorld,
  node: string,
  timeoutMs = 60_000,
  replayFrom?: bigint,
): Promise<void> {
  const provider = /^provider (\d+)$/.exec(node)?.[1];
  // The scenario's applications on that node would see their streams break: they leave first.
  if (provider)
    await Promise.all(
      bidsOf(world)
        .appsOf(Number(provider))
        .map((a) => a.stop()),
    );
  await world.control.kill(await controlName(world, node), { replayFrom });
  await answersAgain(world, node, timeoutMs);
}
