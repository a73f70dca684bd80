import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { type Address, createPublicClient, http, keccak256, parseEther } from "viem";
import { devAccount } from "../chain/accounts.ts";
import { registerProvider } from "../chain/deploy.ts";
import { type LocalDevnet, startLocalDevnet } from "../devnet/localDevnet.ts";
import { rawTransactionBidCommittedBy } from "../testing/rawTransactionBid.ts";
import { type RoleChild, startRoleProcess } from "../testing/roleProcess.ts";
import { stopProcesses } from "../testing/stopProcesses.ts";
import { until } from "../util/deadline.ts";

/**
 * A `--role provider` process joined to a devnet, staked: while it runs it posts its bundles and a heartbeat to the
 * devnet's control API, wins blocks in its turn and its commitments settle; killed, it leaves the winner schedule
 * within a bounded number of blocks (the devnet's own provider wins them); started again, it is back in.
 */
const ROOT = resolve(import.meta.dir, "../..");
const LOG = join(ROOT, "reports", "provider-liveness.log");
const PROVIDER = devAccount(14);
const BUYER = devAccount(15);
const LIVENESS_BLOCKS = 3;

let dev: LocalDevnet;
let dir: string;
const children: RoleChild[] = [];

interface ScheduleEntry {
  address: string;
  inSchedule: boolean;
  schedule: string;
  lastHeardBlock: string | null;
}

async function scheduleEntry(): Promise<ScheduleEntry> {
  const status = (await (await fetch(`${dev.devnet.controlUrl}/sim/v1/status`)).json()) as {
    registeredProviders: ScheduleEntry[];
  };
  return status.registeredProviders.find((p) => p.address.toLowerCase() === PROVIDER.address.toLowerCase())!;
}

/** Starts the provider process on its data dir (the same one each time) and waits until it serves. */
async function startProvider(): Promise<Subprocess<"ignore", "pipe", "pipe">> {
  const dataDir = join(dir, "provider");
  const extra = ["--auto-accept"];
  return (await startRoleProcess(dev.devnet, { role: "provider", key: PROVIDER.privateKey, dataDir, extra, children }))
    .proc;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "provider-liveness-"));
  dev = await startLocalDevnet({ providers: 1, providerLivenessBlocks: LIVENESS_BLOCKS }, LOG);
  await registerProvider({
    rpcUrl: dev.devnet.chains.settlement.rpcUrl,
    addresses: dev.devnet.contracts,
    providerKey: PROVIDER.privateKey,
    stake: parseEther("20"),
  });
  await startProvider();
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

test("a provider process's commitment is built into the block it wins and settles (rewarded, not slashed)", async () => {
  const d = dev.devnet;
  expect(await scheduleEntry()).toMatchObject({ inSchedule: true });
  const l1 = createPublicClient({ transport: http(d.chains.l1.rpcUrl) });
  const { raw, block } = await rawTransactionBidCommittedBy(d, BUYER.privateKey, PROVIDER.address);
  await d.mine(Number(block - (await d.driver.blockNumber()) - 1n));
  const [won] = await d.mine(1, PROVIDER.address);
  expect(won!.number).toBe(block);
  expect((await l1.getBlock({ blockNumber: block })).transactions).toContain(keccak256(raw));
  const own = PROVIDER.address.slice(2).toLowerCase();
  let status: string | undefined;
  await until(
    "the provider process's commitment settled or slashed",
    60_000,
    async () => {
      await d.mine(1);
      const r = await fetch(`${d.bidder!.url}/v1/bidder/get_bid_info?block_number=${block}`);
      const text = await r.text();
      const m = new RegExp(`"providerAddress":"${own}"[^}]*?"status":"(settled|slashed)"`).exec(text);
      const n = new RegExp(`"status":"(settled|slashed)"[^}]*?"providerAddress":"${own}"`).exec(text);
      status = m?.[1] ?? n?.[1];
      return status !== undefined;
    },
    200,
  );
  expect(status).toBe("settled");
}, 150_000);

test("killed, the provider leaves the winner schedule within a bounded number of blocks; started again, it wins again", async () => {
  const d = dev.devnet;
  const child = children.at(-1)!.proc;
  child.kill("SIGKILL");
  await child.exited;
  const killedAt = await d.driver.blockNumber();
  // Out after LIVENESS_BLOCKS blocks and MIN_SILENCE_MS (5 s) without a heartbeat: 250 ms apart, about 20 blocks.
  let mined = 0;
  while ((await scheduleEntry()).inSchedule) {
    if (++mined > 40) throw new Error(`the killed provider is still in the winner schedule ${mined} blocks later`);
    await d.mine(1);
    await Bun.sleep(250);
  }
  const out = await scheduleEntry();
  expect(out.schedule).toStartWith("silent: no bundle or heartbeat since L1 block");
  expect(BigInt(out.lastHeardBlock!)).toBeLessThanOrEqual(killedAt);
  const afterOut = await d.mine(6);
  expect(afterOut.map((b) => b.winner)).toEqual(Array(6).fill(d.providers[0]!.address));

  await startProvider();
  await until(
    "the restarted provider back in the winner schedule",
    30_000,
    async () => (await scheduleEntry()).inSchedule,
  );
  const back = await d.mine(4);
  expect(back.map((b) => b.winner)).toContain(PROVIDER.address);
  const log = readFileSync(LOG, "utf8");
  expect(log.match(/provider silent: out of the winner schedule/g)).toHaveLength(1);
  expect(log.match(/provider heard from again: back in the winner schedule/g)).toHaveLength(1);
}, 150_000);
