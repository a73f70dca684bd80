import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Address, parseEther } from "viem";
import { devAccount } from "../chain/accounts.ts";
import { registerProvider } from "../chain/deploy.ts";
import { call } from "../clients/http.ts";
import { type LocalDevnet, startLocalDevnet } from "../devnet/localDevnet.ts";
import { bidProviders as bid } from "../testing/bidProviders.ts";
import { type RoleChild, type RoleProcess, startRoleProcess } from "../testing/roleProcess.ts";
import { stopProcesses } from "../testing/stopProcesses.ts";
import { until } from "../util/deadline.ts";

/**
 * Nodes in processes of their own (`npm run node -- --role …`) join a devnet whose nodes meet over libp2p: a staked
 * provider and a bidder each in its own process exchange bids and commitments with the devnet's nodes both ways; a
 * provider without stake waits for it before it dials anyone, and joins once staked.
 */
const ROOT = resolve(import.meta.dir, "../..");
const STAKED = devAccount(11);
const BIDDER = devAccount(12);
const UNSTAKED = devAccount(13);

let dev: LocalDevnet;
let dir: string;
const children: RoleChild[] = [];

function roleNode(role: "provider" | "bidder", key: `0x${string}`, extra: string[] = []): Promise<RoleProcess> {
  const dataDir = join(dir, `${role}-${key.slice(2, 8)}`);
  return startRoleProcess(dev.devnet, { role, key, dataDir, extra: ["--log-level", "debug", ...extra], children });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "role-nodes-"));
  dev = await startLocalDevnet({ providers: 1 }, join(ROOT, "reports", "role-nodes.log"));
  // Stake only: the devnet maps the provider's builder key with the owner's key itself (two senders would race).
  await registerProvider({
    rpcUrl: dev.devnet.chains.settlement.rpcUrl,
    addresses: dev.devnet.contracts,
    providerKey: STAKED.privateKey,
    stake: parseEther("20"),
  });
}, 120_000);

afterAll(async () => {
  try {
    await stopProcesses(children);
  } finally {
    await dev?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);

describe("nodes in processes of their own", () => {
  const lower = (a: Address) => a.toLowerCase() as Address;

  test("a staked provider process joins through the bootnode and commits to the devnet bidder's bids", async () => {
    await roleNode("provider", STAKED.privateKey, ["--auto-accept"]);
    const seen = () => dev.devnet.networks!.bidder.providers().map((p) => lower(p.address));
    await until("the devnet bidder to see the provider process", 30_000, () => seen().includes(lower(STAKED.address)));
    const block = (await dev.devnet.driver.blockNumber()) + 2n;
    const providers = await bid(dev.devnet.bidder.url, block, 1);
    expect(providers).toContain(lower(STAKED.address));
    expect(providers).toContain(lower(dev.devnet.providers[0]!.address));
  }, 120_000);

  test("a bidder process gets commitments from the devnet's provider and the provider process", async () => {
    const bidder = await roleNode("bidder", BIDDER.privateKey);
    const block = (await dev.devnet.driver.blockNumber()) + 2n;
    const dep = await call("POST", `${bidder.url}/v1/bidder/deposit/${parseEther("1")}?block_number=${block}`);
    expect(dep.status).toBe(200);
    // Ready once its topology lists both providers (each took its AES key).
    for (const deadline = Date.now() + 30_000; ; await Bun.sleep(100)) {
      const topo = (await call("GET", `${bidder.url}/v1/debug/topology`)).text.toLowerCase();
      if (topo.includes(lower(STAKED.address)) && topo.includes(lower(dev.devnet.providers[0]!.address))) break;
      if (Date.now() > deadline) throw new Error(`bidder process topology after 30 s: ${topo}`);
    }
    const providers = await bid(bidder.url, block, 100);
    expect(providers).toEqual([lower(dev.devnet.providers[0]!.address), lower(STAKED.address)].sort());
  }, 120_000);

  test("a provider process without stake waits for it, and joins once it stakes through its own API", async () => {
    const p = await roleNode("provider", UNSTAKED.privateKey);
    await until("the wait for stake", 30_000, () => p.out().includes("not staked: this provider dials its bootnodes"));
    const seen = () => dev.devnet.networks!.bidder.providers().map((x) => lower(x.address));
    expect(seen()).not.toContain(lower(UNSTAKED.address));
    // Before: it dialled at once, the bootnode refused it and kept it out for 2 minutes, staked or not.
    expect(p.out()).not.toContain("handshake refused");
    const bls = `0x${"ab".repeat(48)}`;
    const sig = `0x${"cd".repeat(96)}`;
    const staked = await call(
      "POST",
      `${p.url}/v1/provider/stake/${parseEther("20")}?bls_public_keys=${bls}&bls_signatures=${sig}`,
    );
    expect(staked.status).toBe(200);
    await until("the devnet bidder to see it", 30_000, () => seen().includes(lower(UNSTAKED.address)));
    expect(p.out()).toContain("staked: dialling the bootnodes");
    expect(p.out()).not.toContain("handshake refused");
  }, 120_000);
});
