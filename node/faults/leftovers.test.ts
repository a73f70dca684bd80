/**
 * What a killed run leaves: a process that made hosts and set a fault between them is killed with SIGKILL; its
 * namespaces (and the fault's table in them) are still there, and the next start's sweep (removeOrphanNetworks)
 * removes them, while a network whose owner still runs is left alone.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { spawn, spawnSync } from "bun";
import { cannotMakeHosts, NETWORK_OWNERS_DIR, NetnsHosts, removeOrphanNetworks } from "../role/netnsHosts.ts";
import { FAULTS_TABLE } from "./faultRules.ts";

const skip = cannotMakeHosts() ?? (spawnSync(["nft", "--version"]).exitCode === 0 ? undefined : "needs nft (nftables)");
if (skip) console.warn(`leftovers test skipped: ${skip}`);
const ROOT = resolve(import.meta.dir, "../..");
const mine = new NetnsHosts(["x"]);
const namespaces = () => spawnSync(["ip", "netns", "list"]).stdout.toString();

afterAll(() => mine.tearDown());

describe.skipIf(!!skip)("networks a killed run left", () => {
  test("the sweep removes a killed owner's namespaces and rules, and leaves a live owner's", async () => {
    mine.setUp();
    const script = `
      import { NetnsHosts } from "./node/role/netnsHosts.ts";
      import { NetFaults } from "./node/faults/netFaults.ts";
      const h = new NetnsHosts(["a", "b"]);
      h.setUp();
      new NetFaults(h).set({ hosts: ["a", "b"], partition: true });
      console.log(h.tag);
      setInterval(() => {}, 1000);`;
    const child = spawn([process.execPath, "-e", script], { cwd: ROOT, stdout: "pipe", stderr: "inherit" });
    const reader = child.stdout.getReader();
    const tag = new TextDecoder().decode((await reader.read()).value).trim();
    expect(tag).toMatch(/^[a-z0-9]{5}$/);
    child.kill("SIGKILL");
    await child.exited;
    expect(namespaces()).toContain(`mcns-${tag}-a`);
    const table = spawnSync(["ip", "netns", "exec", `mcns-${tag}-a`, "nft", "list", "tables"]).stdout.toString();
    expect(table).toContain(FAULTS_TABLE);

    const gone = removeOrphanNetworks();
    expect(gone.filter((n) => n.startsWith(`mcns-${tag}-`)).sort()).toEqual(
      ["a", "b", "hub"].map((h) => `mcns-${tag}-${h}`),
    );
    expect(namespaces()).not.toContain(`mcns-${tag}-`);
    expect(spawnSync(["ip", "link", "show", `mc${tag}ra`]).exitCode).not.toBe(0);
    expect(existsSync(join(NETWORK_OWNERS_DIR, tag))).toBe(false);
    // This process still runs: its network stays.
    expect(namespaces()).toContain(mine.namespace("x"));
    mine.tearDown();
    expect(existsSync(join(NETWORK_OWNERS_DIR, mine.tag))).toBe(false);
  }, 60_000);
});
