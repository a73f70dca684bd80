import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Address, parseEther } from "viem";
import { devAccount } from "../chain/accounts.ts";
import { registerProvider } from "../chain/deploy.ts";
import { call } from "../clients/http.ts";
import { type LocalDevnet, startLocalDevnet } from "../devnet/localDevnet.ts";
import { windowOfBlock } from "../protocol/windows.ts";
import { bidProviders } from "../testing/bidProviders.ts";
import { type RoleThread, RoleThreadError, startNodeThreads, startRoleThread } from "./roleThread.ts";

/**
 * Nodes on threads of their own (`npm run bench:processes -- --nodes threads`): a bidder and two staked providers,
 * each a Worker meeting the others over MessagePorts, against a devnet without nodes; the bidder gets both providers'
 * commitments, and a node that cannot start says why.
 */
const ROOT = resolve(import.meta.dir, "../..");
const PROVIDERS = [devAccount(11), devAccount(12)];
const BIDDER = devAccount(13);
let dev: LocalDevnet;
let dir: string;
const threads: RoleThread[] = [];

const args = (name: string, role: string, key: string) => [
  "--role",
  role,
  "--key",
  key,
  "--contracts",
  dev.devnet.dir.targetFile,
  "--http-port",
  "0",
  "--rpc-port",
  "0",
  "--data-dir",
  join(dir, name),
  "--log-level",
  "error",
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "role-threads-"));
  dev = await startLocalDevnet({ nodes: false }, join(ROOT, "reports", "role-threads.log"));
  for (const p of PROVIDERS)
    await registerProvider({
      rpcUrl: dev.devnet.chains.settlement.rpcUrl,
      addresses: dev.devnet.contracts,
      providerKey: p.privateKey,
      stake: parseEther("20"),
    });
}, 120_000);

afterAll(async () => {
  try {
    for (const t of threads.reverse()) await t.stop();
  } finally {
    await dev?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);

test("a bidder thread gets commitments from two provider threads over MessagePorts", async () => {
  const nodes = await startNodeThreads(
    PROVIDERS.map((p, i) => [...args(`provider-${i}`, "provider", p.privateKey), "--auto-accept"]),
    args("bidder", "bidder", BIDDER.privateKey),
  );
  threads.push(...nodes.providers, nodes.bidder);
  const bidder = nodes.bidder;
  const block = (await dev.devnet.driver.blockNumber()) + 1n;
  const dep = await call(
    "POST",
    `${bidder.url}/v1/bidder/deposit/${parseEther("1")}?window_number=${windowOfBlock(block)}`,
  );
  expect(dep.status).toBe(200);
  const providers = await bidProviders(bidder.url, block, 1);
  expect(providers).toEqual(PROVIDERS.map((p) => p.address.toLowerCase() as Address).sort());
}, 120_000);

test("a node thread that cannot start rejects with the reason", async () => {
  const failed = await startRoleThread("bootnode", args("bootnode", "bootnode", BIDDER.privateKey), []).catch(
    (e: Error) => e,
  );
  expect(failed).toBeInstanceOf(RoleThreadError);
  expect((failed as Error).message).toContain("a node thread runs a bidder or a provider");
}, 30_000);
