import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseEther } from "viem";
import { devAccount } from "../chain/accounts.ts";
import { bidderRegistryV12Abi } from "../chain/contractsV12.ts";
import { call } from "../clients/http.ts";
import { type LocalDevnet, startLocalDevnet } from "../devnet/localDevnet.ts";
import { type RoleChild, type RoleProcess, startRoleProcess } from "../testing/roleProcess.ts";
import { stopProcesses } from "../testing/stopProcesses.ts";
import { parseRoleArgs, RoleConfigError } from "./roleConfig.ts";

/**
 * A v1.2 bidder's `--enable-deposit-manager` and `--target-deposit-amount` (upstream v1.2.5): parsed as upstream
 * parses them, and, in a bidder process of its own on a v1.2 devnet, the manager enabled at start with the target
 * set and topped up toward every valid provider; a restart finds it enabled already and keeps running.
 */
const ROOT = resolve(import.meta.dir, "../..");
const BIDDER = devAccount(12);
const TARGET = parseEther("2");

let dir: string;

describe("parsing", () => {
  const key = devAccount(2).privateKey;
  const role = (protocol: string, argv: string[]) => {
    const contracts = join(dir, `${protocol}.json`);
    writeFileSync(
      contracts,
      JSON.stringify({
        contracts: {
          blockTracker: "0x0000000000000000000000000000000000000001",
          providerRegistry: "0x0000000000000000000000000000000000000002",
          bidderRegistry: "0x0000000000000000000000000000000000000003",
          preconfManager: "0x0000000000000000000000000000000000000004",
          oracle: "0x0000000000000000000000000000000000000005",
        },
        settlementRpcUrl: "http://127.0.0.1:1",
        protocol,
      }),
    );
    const c = parseRoleArgs(["--role", "bidder", "--key", key, "--contracts", contracts, ...argv]);
    if (c === "help") throw new Error("help");
    return c;
  };

  test("the target is read only with --enable-deposit-manager, as upstream", () => {
    const both = role("v1.2", ["--enable-deposit-manager", "--target-deposit-amount", "1000"]);
    expect([both.enableDepositManager, both.targetDepositAmount]).toEqual([true, 1000n]);
    const alone = role("v1.2", ["--target-deposit-amount", "1000"]);
    expect([alone.enableDepositManager, alone.targetDepositAmount]).toEqual([false, undefined]);
    const none = role("v1.2", []);
    expect([none.enableDepositManager, none.targetDepositAmount]).toEqual([false, undefined]);
  });

  test("a target that is not wei, or the manager on v1.1, is refused", () => {
    expect(() => role("v1.2", ["--enable-deposit-manager", "--target-deposit-amount", "1e18"])).toThrow(
      new RoleConfigError('failed to parse target deposit amount "1e18"'),
    );
    expect(() => role("v1.1", ["--enable-deposit-manager"])).toThrow(
      /--enable-deposit-manager: protocol v1.1 has no deposit manager/,
    );
  });
});

describe("a bidder process with --enable-deposit-manager on a v1.2 devnet", () => {
  let dev: LocalDevnet;
  const children: RoleChild[] = [];

  beforeAll(async () => {
    dev = await startLocalDevnet(
      { protocol: "v1.2", network: "libp2p", autodepositAmount: parseEther("1") },
      join(ROOT, "reports", "role-deposit-manager.log"),
    );
  }, 180_000);

  afterAll(async () => {
    try {
      await stopProcesses(children);
    } finally {
      await dev?.stop();
    }
  }, 90_000);

  /** Starts the bidder process and waits until it served and handled the flag (a log line either way). */
  const bidder = (): Promise<RoleProcess> =>
    startRoleProcess(dev.devnet, {
      role: "bidder",
      key: BIDDER.privateKey,
      dataDir: join(dir, "bidder"),
      extra: ["--enable-deposit-manager", "--target-deposit-amount", TARGET.toString()],
      children,
      ready: /target deposit amount set|failed to handle the --enable-deposit-manager/,
      timeoutMs: 90_000,
    });

  test("enables the manager and tops every valid provider up to the target; a restart finds it enabled", async () => {
    const d = dev.devnet;
    const first = await bidder();
    expect(first.out()).toContain("deposit manager enabled");
    expect(first.out()).toContain("target deposit amount set for all valid providers");
    const status = (await call("GET", `${first.url}/v1/bidder/deposit_manager_status`)).json as {
      enabled: boolean;
      targetDeposits: { provider: string; targetDeposit: string }[];
    };
    expect(status.enabled).toBe(true);
    expect(status.targetDeposits.map((t) => [t.provider.toLowerCase(), t.targetDeposit]).sort()).toEqual(
      d.providers.map((p) => [p.address.toLowerCase(), TARGET.toString()]).sort(),
    );
    for (const p of d.providers)
      expect(
        await d.settlementClient.readContract({
          address: d.contracts.bidderRegistry,
          abi: bidderRegistryV12Abi,
          functionName: "getDeposit",
          args: [BIDDER.address, p.address],
        }),
      ).toBe(TARGET);

    first.proc.kill("SIGTERM");
    await first.proc.exited;
    const again = await bidder();
    expect(again.out()).toContain("deposit manager already enabled");
    expect(again.out()).toContain("target deposit amount set for all valid providers");
  }, 240_000);
});

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "role-deposit-manager-"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
