/**
 * Faults on real hosts: three network namespaces on a bridge, a TCP listener on each; a partition between two
 * stops their traffic (and only theirs), a heal brings it back, loss of 100 % on a host cuts it off, a bandwidth
 * cap is a tbf on the host's interface, and nothing (table, qdisc, namespace) is left once they are torn down.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { type Subprocess, spawn, spawnSync } from "bun";
import { cannotMakeHosts, NetnsHosts, removeNetwork } from "../role/netnsHosts.ts";
import { FAULTS_TABLE } from "./faultRules.ts";
import { NetFaults } from "./netFaults.ts";

const skip = cannotMakeHosts() ?? (spawnSync(["nft", "--version"]).exitCode === 0 ? undefined : "needs nft (nftables)");
if (skip) console.warn(`netFaults test skipped: ${skip}`);
const PORT = 18_080;
const hosts = new NetnsHosts(["a", "b", "c"]);
const servers: Subprocess[] = [];
let faults: NetFaults | undefined;

/** Whether `from` opens a TCP connection to `to`'s listener within 1.5 s. */
async function reaches(from: "a" | "b" | "c", to: "a" | "b" | "c"): Promise<boolean> {
  const probe = `const s=await Bun.connect({hostname:"${hosts.ipOf(to)}",port:${PORT},socket:{data(){}}}).catch(()=>undefined);process.exit(s?0:1)`;
  const p = spawn(hosts.exec(from, ["timeout", "1.5", process.execPath, "-e", probe]), {
    stdout: "ignore",
    stderr: "ignore",
  });
  return (await p.exited) === 0;
}

/** Whether `from` opens a TCP connection to a listener of the root namespace (`port`) within 1.5 s. */
async function reachesRoot(from: "a" | "b" | "c", port: number): Promise<boolean> {
  const probe = `const s=await Bun.connect({hostname:"${hosts.rootIp}",port:${port},socket:{data(){}}}).catch(()=>undefined);process.exit(s?0:1)`;
  const p = spawn(hosts.exec(from, ["timeout", "1.5", process.execPath, "-e", probe]), {
    stdout: "ignore",
    stderr: "ignore",
  });
  return (await p.exited) === 0;
}

function shows(host: "a" | "b" | "c", argv: string[]): string {
  return spawnSync(hosts.exec(host, argv)).stdout.toString();
}

afterAll(() => {
  for (const s of servers) s.kill("SIGKILL");
  faults?.removeAll();
  hosts.tearDown();
});

describe.skipIf(!!skip)("network faults on namespace hosts", () => {
  test("a partition cuts the pair both ways and leaves a third host alone; a heal restores it", async () => {
    hosts.setUp();
    for (const h of hosts.hosts) {
      const serve = `Bun.listen({hostname:"${hosts.ipOf(h)}",port:${PORT},socket:{data(){}}})`;
      servers.push(spawn(hosts.exec(h, [process.execPath, "-e", serve]), { stdout: "ignore", stderr: "ignore" }));
    }
    for (let i = 0; i < 50 && !((await reaches("a", "b")) && (await reaches("c", "a"))); i++) await Bun.sleep(100);
    expect(await reaches("a", "b")).toBe(true);
    faults = new NetFaults(hosts);
    expect(faults.available().available).toEqual(expect.arrayContaining(["partition", "loss"]));

    faults.set({ hosts: ["b", "a"], partition: true });
    expect(await reaches("a", "b")).toBe(false);
    expect(await reaches("b", "a")).toBe(false);
    expect(await reaches("a", "c")).toBe(true);
    expect(await reaches("c", "b")).toBe(true);
    expect(shows("a", ["nft", "list", "table", "inet", FAULTS_TABLE])).toContain(`ip daddr ${hosts.ipOf("b")} drop`);

    expect(faults.heal(["a", "b"])).toEqual([{ hosts: ["a", "b"], partition: true }]);
    expect(await reaches("a", "b")).toBe(true);
    expect(await reaches("b", "a")).toBe(true);
    expect(() => faults!.heal(["a", "b"])).toThrow("no fault on a/b");
  }, 60_000);

  test("a host cut from settlement loses the chain's port alone; cut from root, every listener of the root namespace", async () => {
    const chain = PORT + 1;
    const other = PORT + 2;
    for (const port of [chain, other]) {
      const serve = `Bun.listen({hostname:"${hosts.rootIp}",port:${port},socket:{data(){}}})`;
      servers.push(spawn([process.execPath, "-e", serve], { stdout: "ignore", stderr: "ignore" }));
    }
    for (let i = 0; i < 50 && !((await reachesRoot("a", chain)) && (await reachesRoot("a", other))); i++)
      await Bun.sleep(100);
    faults!.placeSettlement(`http://${hosts.rootIp}:${chain}`);
    expect(faults!.places().slice(3)).toEqual([
      { name: "root", ip: hosts.rootIp },
      { name: "clients", ip: hosts.rootIp },
      { name: "settlement", ip: hosts.rootIp, port: chain },
    ]);

    faults!.set({ hosts: ["a", "settlement"], partition: true });
    expect(await reachesRoot("a", chain)).toBe(false);
    expect(await reachesRoot("a", other)).toBe(true);
    expect(await reachesRoot("b", chain)).toBe(true);
    faults!.heal(["settlement", "a"]);
    expect(await reachesRoot("a", chain)).toBe(true);

    // clients: the root namespace's connections to a's own listener alone.
    const fromRoot = async (to: "a" | "b") => {
      const probe = `const s=await Bun.connect({hostname:"${hosts.ipOf(to)}",port:${PORT},socket:{data(){}}}).catch(()=>undefined);process.exit(s?0:1)`;
      const p = spawn(["timeout", "1.5", process.execPath, "-e", probe], { stdout: "ignore", stderr: "ignore" });
      return (await p.exited) === 0;
    };
    expect(() => faults!.set({ hosts: ["a", "clients"], partition: true })).toThrow(
      "the ports of a's APIs are not known",
    );
    faults!.placeClients("a", [PORT]);
    faults!.set({ hosts: ["a", "clients"], partition: true });
    expect(await fromRoot("a")).toBe(false);
    expect(await fromRoot("b")).toBe(true);
    expect(await reaches("b", "a")).toBe(true);
    expect(await reachesRoot("a", chain)).toBe(true);
    faults!.heal(["a", "clients"]);
    expect(await fromRoot("a")).toBe(true);

    faults!.set({ hosts: ["root", "a"], partition: true });
    expect(await reachesRoot("a", chain)).toBe(false);
    expect(await reachesRoot("a", other)).toBe(false);
    expect(await reaches("a", "b")).toBe(true);
    faults!.heal();
    expect(await reachesRoot("a", other)).toBe(true);
  }, 60_000);

  test("loss of 100 % on a host cuts it from every other; a bandwidth cap is a tbf on its interface", async () => {
    faults!.set({ hosts: ["c"], lossPercent: 100 });
    expect(await reaches("a", "c")).toBe(false);
    expect(await reaches("c", "b")).toBe(false);
    expect(await reaches("a", "b")).toBe(true);
    faults!.heal(["c"]);
    expect(await reaches("a", "c")).toBe(true);
    if (faults!.kinds.bandwidth) return console.warn(`bandwidth part skipped: ${faults!.kinds.bandwidth}`);
    faults!.set({ hosts: ["b"], rateKbit: 800 });
    expect(shows("b", ["tc", "qdisc", "show", "dev", hosts.ifaceOf("b")])).toContain("tbf 1: root");
    expect(await reaches("a", "b")).toBe(true);
    faults!.heal(["b"]);
  }, 60_000);

  test("a cap between a pair classifies what a sends to b into b's class, and the rest into the default one", async () => {
    if (faults!.kinds.bandwidth) return console.warn(`pair cap skipped: ${faults!.kinds.bandwidth}`);
    faults!.set({ hosts: ["a", "b"], rateKbit: 400 });
    const classes = () => shows("a", ["tc", "-s", "class", "show", "dev", hosts.ifaceOf("a")]);
    const sent = (classid: string) =>
      Number(new RegExp(`class htb ${classid} [^]*?Sent (\\d+) bytes`).exec(classes())?.[1]);
    expect(classes()).toMatch(/class htb 1:10 parent 1:1 .*ceil 400Kbit/);
    const [toB, rest] = [sent("1:10"), sent("1:2")];
    expect(await reaches("a", "b")).toBe(true);
    expect(sent("1:10")).toBeGreaterThan(toB);
    const toBNow = sent("1:10");
    expect(await reaches("a", "c")).toBe(true);
    expect(sent("1:2")).toBeGreaterThan(rest);
    expect(sent("1:10")).toBe(toBNow);
    faults!.heal(["a", "b"]);
    expect(shows("a", ["tc", "qdisc", "show", "dev", hosts.ifaceOf("a")])).not.toContain("htb");
  }, 60_000);

  test("delay needs netem: refused with the reason where the kernel has none", () => {
    if (!faults!.kinds.delay) {
      faults!.set({ hosts: ["a"], delayMs: 20 });
      expect(shows("a", ["tc", "qdisc", "show", "dev", hosts.ifaceOf("a")])).toContain("netem");
      return;
    }
    expect(() => faults!.set({ hosts: ["a"], delayMs: 20 })).toThrow(faults!.kinds.delay);
    expect(faults!.kinds.delay).toMatch(/netem/);
  });

  test("removeAll takes every table and qdisc off; removeNetwork leaves no namespace behind", () => {
    faults!.set({ hosts: ["a", "c"], partition: true });
    faults!.removeAll();
    for (const h of ["a", "b", "c"] as const) {
      expect(shows(h, ["nft", "list", "tables"])).not.toContain(FAULTS_TABLE);
      expect(shows(h, ["tc", "qdisc", "show", "dev", hosts.ifaceOf(h)])).not.toMatch(/tbf|netem/);
    }
    for (const s of servers) s.kill("SIGKILL");
    // As after a crash: the network is still there, and the next start removes it by its tag.
    const gone = removeNetwork(hosts.tag);
    expect(gone.sort()).toEqual(["a", "b", "c", "hub"].map((h) => `mcns-${hosts.tag}-${h}`).sort());
    expect(spawnSync(["ip", "netns", "list"]).stdout.toString()).not.toContain(`mcns-${hosts.tag}-`);
    expect(spawnSync(["ip", "link", "show", `mc${hosts.tag}ra`]).exitCode).not.toBe(0);
  });
});
