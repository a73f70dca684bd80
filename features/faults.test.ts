/**
 * The network-fault scenario (features/faults.feature) on a devnet that can run it: `--network netns`, each node on a
 * network namespace of its own. `npm test`'s suite runs use devnets without namespaces, where the scenario is
 * reported skipped; this runs it once (protocol v1.1, over HTTP), and checks that nothing of the devnet's network
 * (namespace, rule, qdisc) is left once it stopped. Skipped with the reason where namespaces or nft are missing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawn, spawnSync } from "bun";
import { cannotStartNetnsDevnet, type LocalDevnet, startLocalDevnet } from "../node/devnet/localDevnet.ts";
import { OWN_DEVNET_TIMEOUTS } from "./support/target.ts";

const ROOT = resolve(import.meta.dir, "..");
const skip =
  cannotStartNetnsDevnet() ??
  (spawnSync(["nft", "--version"]).exitCode === 0
    ? undefined
    : "needs nft (nftables): scripts/install-netfilter.sh installs it");
if (skip) console.warn(`faults scenario test skipped: ${skip}`);
const reports = mkdtempSync(join(tmpdir(), "conformance-faults-"));
let local: LocalDevnet | undefined;

beforeAll(async () => {
  if (skip) return;
  local = await startLocalDevnet(
    {
      network: "netns",
      providers: 2,
      autoAccept: false,
      autodepositAmount: undefined,
      settlementHistory: 64,
      ...OWN_DEVNET_TIMEOUTS,
    },
    "reports/faults-devnet.log",
  );
}, 180_000);

afterAll(async () => {
  await local?.stop();
  rmSync(reports, { recursive: true, force: true });
});

describe.skipIf(!!skip)("network faults scenario on a netns devnet", () => {
  test("the partition-and-heal, loss, bandwidth and delay scenarios pass (delay skipped without netem), and the stopped devnet leaves no namespace, rule or qdisc", async () => {
    const devnet = local!.devnet;
    const tag = devnet.procs!.hosts!.tag;
    expect(devnet.targetFile().capabilities).toContain("sim-faults");
    const json = join(reports, "r.json");
    const p = spawn(
      [
        "bun",
        "features/cli/conformance.ts",
        "--target",
        devnet.dir.targetFile,
        "--tags",
        "@faults",
        "--reports",
        reports,
        "--json",
        json,
      ],
      { cwd: ROOT, env: { ...process.env, TARGET: "" }, stdout: "pipe", stderr: "pipe" },
    );
    const [code, out, err] = await Promise.all([
      p.exited,
      new Response(p.stdout).text(),
      new Response(p.stderr).text(),
    ]);
    const { totals } = JSON.parse(readFileSync(json, "utf8")) as { totals: Record<string, number> };
    // The delay scenario needs netem: a kernel without it reports that scenario skipped with the reason.
    const noNetem = devnet.netFaults!.kinds.delay;
    expect({ code, totals }, `${out}\n${err}`).toEqual({
      code: 0,
      totals: { passed: noNetem ? 3 : 4, failed: 0, skipped: noNetem ? 1 : 0, notRun: 0 },
    });
    if (noNetem) expect(out).toContain(`the target cannot make this fault: ${noNetem}`);

    await local!.stop();
    local = undefined;
    expect(spawnSync(["ip", "netns", "list"]).stdout.toString()).not.toContain(`mcns-${tag}-`);
    expect(spawnSync(["ip", "link", "show", `mc${tag}ra`]).exitCode).not.toBe(0);
  }, 240_000);
});
