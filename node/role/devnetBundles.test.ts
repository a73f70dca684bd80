import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Address, createPublicClient, http, keccak256, parseEther } from "viem";
import { devAccount } from "../chain/accounts.ts";
import { registerProvider } from "../chain/deploy.ts";
import { type LocalDevnet, startLocalDevnet } from "../devnet/localDevnet.ts";
import { rawTransactionBidCommittedBy } from "../testing/rawTransactionBid.ts";
import { type RoleChild, startRoleProcess } from "../testing/roleProcess.ts";
import { stopProcesses } from "../testing/stopProcesses.ts";
import { until } from "../util/deadline.ts";

/**
 * A `--role provider` node in a process of its own, joined to a devnet through the devnet's target file, gets the
 * blocks it wins built with what it committed to: it posts its bundles to the devnet's builder, and the raw
 * transaction of a bid it committed to is in the L1 block it wins.
 */
const ROOT = resolve(import.meta.dir, "../..");
const PROVIDER = devAccount(14);
const BUYER = devAccount(15);

let dev: LocalDevnet;
let dir: string;
const children: RoleChild[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "devnet-bundles-"));
  dev = await startLocalDevnet({ providers: 1 }, join(ROOT, "reports", "devnet-bundles.log"));
  await registerProvider({
    rpcUrl: dev.devnet.chains.settlement.rpcUrl,
    addresses: dev.devnet.contracts,
    providerKey: PROVIDER.privateKey,
    stake: parseEther("20"),
  });
  const dataDir = join(dir, "provider");
  await startRoleProcess(dev.devnet, {
    role: "provider",
    key: PROVIDER.privateKey,
    dataDir,
    extra: ["--auto-accept"],
    children,
  });
  const lower = (a: Address) => a.toLowerCase();
  await until("the devnet bidder to see the provider process", 30_000, () =>
    dev.devnet.networks!.bidder.providers().some((p) => lower(p.address) === lower(PROVIDER.address)),
  );
}, 150_000);

afterAll(async () => {
  try {
    await stopProcesses(children);
  } finally {
    await dev?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);

test("the block a provider process wins holds the raw transaction it committed to", async () => {
  const d = dev.devnet;
  const l1 = createPublicClient({ transport: http(d.chains.l1.rpcUrl) });
  const { raw, block } = await rawTransactionBidCommittedBy(d, BUYER.privateKey, PROVIDER.address);
  await d.driver.mine(Number(block - (await d.driver.blockNumber()) - 1n));
  const [mined] = await d.driver.mine(1, PROVIDER.address);
  expect(mined!.number).toBe(block);
  expect(mined!.winner).toBe(PROVIDER.address);
  const txs = (await l1.getBlock({ blockNumber: block })).transactions;
  expect(txs).toContain(keccak256(raw));
}, 120_000);
