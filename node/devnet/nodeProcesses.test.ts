/**
 * A devnet whose bidder and provider nodes are `--role` processes (`--network netns` where network namespaces can be
 * made, each node on a host of its own; else `--network processes` on loopback): the control API's operations reach
 * the processes. A provider killed with a real SIGKILL comes back on its store and ports and commits again; a fault
 * the node refuses comes back with the node's own code and message.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseEther } from "viem";
import { call } from "../clients/http.ts";
import { windowOfBlock } from "../protocol/windows.ts";
import { cannotMakeHosts } from "../role/netnsHosts.ts";
import { bidProviders } from "../testing/bidProviders.ts";
import { type LocalDevnet, startLocalDevnet } from "./localDevnet.ts";

const noNetns = cannotMakeHosts();
const network = noNetns ? "processes" : "netns";
if (noNetns) console.warn(`node processes test on loopback (--network processes), not in namespaces: ${noNetns}`);

let local: LocalDevnet;

beforeAll(async () => {
  local = await startLocalDevnet(
    { network, providers: 2, autoAccept: true, autodepositAmount: undefined },
    "reports/node-processes-devnet.log",
  );
}, 180_000);

afterAll(async () => {
  await local?.stop();
}, 60_000);

const control = (path: string, body?: unknown) =>
  call("POST", `${local.devnet.controlUrl}/sim/v1${path}`, body === undefined ? {} : { body });

describe(`a devnet of node processes (--network ${network})`, () => {
  test("each node is a process of its own, on its own host with netns", async () => {
    const procs = local.devnet.procs!;
    const pids = [procs.bidder, ...procs.providers].map((p) => p.pid);
    expect(new Set([process.pid, ...pids]).size).toBe(4);
    if (network === "netns")
      expect(new URL(local.devnet.nodeEndpoints().bidder.url).hostname).toBe(procs.hosts!.ipOf("bidder"));
    const status = (await call("GET", `${local.devnet.controlUrl}/sim/v1/status`)).json as {
      nodes: { name: string; running: boolean; receivers?: number }[];
    };
    expect(status.nodes.map((n) => [n.name, n.running])).toEqual([
      ["bidder", true],
      ["provider-0", true],
      ["provider-1", true],
    ]);
  });

  test("a provider killed with SIGKILL comes back on its store and ports and commits to new bids", async () => {
    const d = local.devnet;
    const { bidder, providers } = d.nodeEndpoints();
    const all = providers.map((p) => p.address.toLowerCase()).sort();
    const block = (await d.driver.blockNumber()) + 3n;
    expect(
      (await call("POST", `${bidder.url}/v1/bidder/deposit/${parseEther("5")}?window_number=${windowOfBlock(block)}`))
        .status,
    ).toBe(200);
    expect((await bidProviders(bidder.url, block, 1)) as string[]).toEqual(all);

    const oldPid = d.procs!.providers[0]!.pid;
    const killed = await control("/nodes/provider-0/kill");
    expect(killed.status).toBe(200);
    expect((killed.json as { url: string }).url).toBe(providers[0]!.url);
    expect(d.procs!.providers[0]!.pid).not.toBe(oldPid);
    // Its accept-all application (--auto-accept) starts with the new process; bid until it answers again.
    let got: string[] = [];
    for (
      let i = 2, until = Date.now() + 30_000;
      got.join() !== all.join() && Date.now() < until;
      i++, await Bun.sleep(200)
    )
      got = (await bidProviders(bidder.url, block, i)) as string[];
    expect(got).toEqual(all);
  }, 90_000);

  test("a fault the node refuses comes back with the node's code and message", async () => {
    const r = await control("/faults", { node: "bidder", fail: "store" });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      code: 3,
      message: "the bidder node sends no store transactions; fault must be open or none",
    });
    expect(
      (await control("/faults", { node: local.devnet.nodeEndpoints().providers[1]!.address, fail: "none" })).status,
    ).toBe(200);
  });
});
