/**
 * Hosts for another implementation's nodes: a `--network netns --no-nodes --foreign-hosts` devnet makes empty hosts
 * on its bridge, lists them in its target file with `sim-faults`, and its control API's faults act between processes
 * started there (`ip netns exec`, as scripts/upstream.sh --netns starts upstream's nodes) exactly as between its own
 * nodes; its stop leaves no namespace, rule or qdisc.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "bun";
import { cannotStartNetnsDevnet, type LocalDevnet, startLocalDevnet } from "../devnet/localDevnet.ts";

const skip =
  cannotStartNetnsDevnet() ?? (spawnSync(["nft", "--version"]).exitCode === 0 ? undefined : "needs nft (nftables)");
if (skip) console.warn(`foreign hosts test skipped: ${skip}`);
let local: LocalDevnet | undefined;
let server: ReturnType<typeof spawn> | undefined;

beforeAll(async () => {
  if (skip) return;
  local = await startLocalDevnet(
    { network: "netns", nodes: false, foreignHosts: ["bidder", "provider-0", "provider-1"] },
    "reports/foreign-hosts-devnet.log",
  );
}, 180_000);

afterAll(async () => {
  server?.kill();
  await local?.stop();
});

/** HTTP from one host to another (curl run on the `from` host): "ok", or curl's failure. */
function fetchFrom(ns: string, url: string): string {
  const r = spawnSync(["ip", "netns", "exec", ns, "curl", "-s", "-m", "2", url]);
  return r.exitCode === 0 ? r.stdout.toString() : `curl exit ${r.exitCode}`;
}

describe.skipIf(!!skip)("foreign hosts on a netns devnet without nodes", () => {
  test("the target lists the hosts; a partition between two of them cuts a server there from one, the heal restores it; the stop removes all", async () => {
    const devnet = local!.devnet;
    const control = devnet.controlUrl;
    const target = devnet.targetFile();
    expect(target.capabilities).toContain("sim-faults");
    expect(target.bidderUrl).toBeUndefined();
    const hosts = target.netnsHosts!;
    expect(hosts.map((h) => [h.name, h.own])).toEqual([
      ["bidder", false],
      ["provider-0", false],
      ["provider-1", false],
    ]);
    const [bidder, p0, p1] = hosts as [(typeof hosts)[0], (typeof hosts)[0], (typeof hosts)[0]];
    // A process on provider-1's host, listening on its address, as upstream.sh --netns starts a node there.
    server = spawn(
      [
        "ip",
        "netns",
        "exec",
        p1.namespace,
        process.execPath,
        "-e",
        `Bun.serve({ hostname: "${p1.ip}", port: 18080, fetch: () => new Response("ok") }); setInterval(() => {}, 1000);`,
      ],
      { stdout: "ignore", stderr: "inherit" },
    );
    const url = `http://${p1.ip}:18080/`;
    for (let i = 0; i < 40 && fetchFrom(bidder.namespace, url) !== "ok"; i++) await Bun.sleep(250);
    expect(fetchFrom(bidder.namespace, url)).toBe("ok");

    const post = await fetch(`${control}/sim/v1/network/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ hosts: ["bidder", "provider-1"], partition: true }),
    });
    expect(post.status).toBe(200);
    expect(fetchFrom(bidder.namespace, url)).toMatch(/^curl exit/);
    expect(fetchFrom(p0.namespace, url)).toBe("ok");
    const healed = await fetch(`${control}/sim/v1/network/faults?hosts=bidder,provider-1`, { method: "DELETE" });
    expect(healed.status).toBe(200);
    expect(fetchFrom(bidder.namespace, url)).toBe("ok");

    await fetch(`${control}/sim/v1/network/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ hosts: ["provider-1"], rateKbit: 128 }),
    });
    const qdisc = spawnSync(["ip", "netns", "exec", p1.namespace, "tc", "qdisc", "show"]).stdout.toString();
    expect(qdisc).toContain("tbf");

    server.kill();
    await server.exited;
    server = undefined;
    const tag = devnet.netFaults!.hosts.tag;
    await local!.stop();
    local = undefined;
    expect(spawnSync(["ip", "netns", "list"]).stdout.toString()).not.toContain(`mcns-${tag}-`);
    expect(spawnSync(["ip", "link", "show", `mc${tag}ra`]).exitCode).not.toBe(0);
  }, 120_000);
});
