import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Subprocess, spawn } from "bun";
import { type Address, parseEther } from "viem";
import { devAccount } from "../chain/accounts.ts";
import { registerProvider } from "../chain/deploy.ts";
import { call } from "../clients/http.ts";
import { bidProviders as bid } from "../testing/bidProviders.ts";
import { stopProcesses } from "../testing/stopProcesses.ts";
import { until } from "../util/deadline.ts";
import { cannotMakeHosts, NetnsHosts } from "./netnsHosts.ts";

/**
 * Nodes on different hosts: network namespaces joined by a bridge (ip netns, veth), one host for the devnet
 * (chains, contracts, its bootnode, bidder and provider), one for a provider node and one for a bidder node started
 * with `--role`. The nodes find each other through the devnet's bootnode and exchange bids and commitments across
 * hosts, both ways. Needs root and iproute2; without them the tests are reported as skipped.
 */
const ROOT = resolve(import.meta.dir, "../..");
type Host = "dev" | "prov" | "bid";
const hosts = new NetnsHosts<Host>(["dev", "prov", "bid"]);
const ipOf = (h: Host) => hosts.ipOf(h);

const children: { proc: Subprocess<"ignore", "pipe", "pipe">; name: string; group: true }[] = [];

/** Runs `bun node/main.ts …` on a host; resolves once `ready` matches its output. */
async function runOn(
  host: Host,
  args: string[],
  ready: RegExp,
  timeoutMs = 120_000,
): Promise<{ match: RegExpExecArray; out: () => string }> {
  // Its own process group: a devnet that needs a SIGKILL takes its Anvils with it.
  // --parent-pid: it stops by itself if this test process dies before afterAll stops it.
  const child = spawn(hosts.exec(host, ["bun", "node/main.ts", ...args, "--parent-pid", String(process.pid)]), {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
  });
  children.push({ proc: child, name: `node on ${host} (${args.slice(0, 2).join(" ")})`, group: true });
  let text = "";
  const dec = new TextDecoder();
  for (const s of [child.stdout, child.stderr])
    void (async () => {
      for await (const c of s) text += dec.decode(c);
    })();
  for (const until = Date.now() + timeoutMs; Date.now() < until && child.exitCode === null; await Bun.sleep(100)) {
    const m = ready.exec(text);
    if (m) return { match: m, out: () => text };
  }
  throw new Error(`node on ${host} did not become ready (${ready}):\n${text.slice(-3000)}`);
}

async function l1Block(rpc: string): Promise<bigint> {
  const r = await call("POST", rpc, { body: { jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] } });
  return BigInt((r.json as { result: string }).result);
}

const skip = cannotMakeHosts();
if (skip) console.warn(`namespaces test skipped: ${skip}`);
let dir = "";
let target: {
  bidderUrl: string;
  providerAddresses: Address[];
  settlementRpcUrl: string;
  l1RpcUrl: string;
  contracts: Parameters<typeof registerProvider>[0]["addresses"];
};
let bootnode = "";
const STAKED = devAccount(11);
const BIDDER = devAccount(12);
const lower = (a: string) => a.toLowerCase() as Address;

beforeAll(async () => {
  if (skip) return;
  hosts.setUp();
  dir = mkdtempSync(join(tmpdir(), "p2p-hosts-"));
  const dev = await runOn(
    "dev",
    ["--host", ipOf("dev"), "--data-dir", join(dir, "devnet"), "--fresh", "--providers", "1", "--l1-block-time", "0"],
    /bootnode=(\S+)/,
  );
  bootnode = dev.match[1]!;
  const file = join(dir, "devnet", "target.json");
  await until("the devnet's target file", 30_000, () => existsSync(file));
  target = JSON.parse(readFileSync(file, "utf8"));
  // Stake only: the devnet (another process) maps the provider's builder key with the owner's key itself.
  await registerProvider({
    rpcUrl: target.settlementRpcUrl,
    addresses: target.contracts,
    providerKey: STAKED.privateKey,
    stake: parseEther("20"),
  });
}, 180_000);

afterAll(async () => {
  try {
    await stopProcesses(children);
  } finally {
    hosts.tearDown();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);

describe.skipIf(skip !== undefined)("nodes on different hosts (network namespaces)", () => {
  const role = (host: Host, r: "provider" | "bidder", key: `0x${string}`, extra: string[] = []) =>
    runOn(
      host,
      [
        "--role",
        r,
        "--key",
        key,
        "--contracts",
        join(dir, "devnet", "target.json"),
        "--bootnodes",
        bootnode,
        "--p2p-addr",
        ipOf(host),
        "--http-addr",
        ipOf(host),
        "--rpc-port",
        "0",
        "--data-dir",
        join(dir, r),
        ...extra,
      ],
      /API\s+(http:\/\/\S+)/,
    );

  test("a provider node on its own host joins the devnet and commits to its bidder's bids", async () => {
    await role("prov", "provider", STAKED.privateKey, ["--auto-accept"]);
    const want = [lower(target.providerAddresses[0]!), lower(STAKED.address)].sort();
    let got: Address[] = [];
    // Bid until the devnet's bidder has found the new provider (discovery through the bootnode); 60 s at most.
    for (
      let i = 0, deadline = Date.now() + 60_000;
      got.join() !== want.join() && Date.now() < deadline;
      i++, await Bun.sleep(250)
    )
      got = await bid(target.bidderUrl, (await l1Block(target.l1RpcUrl)) + 2n, i + 1);
    expect(got).toEqual(want);
  }, 180_000);

  test("a bidder node on a third host gets commitments from both providers", async () => {
    const b = await role("bid", "bidder", BIDDER.privateKey);
    const url = b.match[1]!;
    const block = (await l1Block(target.l1RpcUrl)) + 2n;
    expect((await call("POST", `${url}/v1/bidder/deposit/${parseEther("1")}?block_number=${block}`)).status).toBe(200);
    const want = [lower(target.providerAddresses[0]!), lower(STAKED.address)].sort();
    let got: Address[] = [];
    for (
      let i = 0, deadline = Date.now() + 60_000;
      got.join() !== want.join() && Date.now() < deadline;
      i++, await Bun.sleep(250)
    )
      got = await bid(url, block, 100 + i);
    expect(got).toEqual(want);
  }, 180_000);
});
