/**
 * `--protocol` on the devnet and on `--role` nodes: parsing, help, the target file's field, and a data dir of the other
 * version refused before anything starts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "bun";
import { devAccount } from "../chain/accounts.ts";
import { rulesOf } from "../protocol/rules.ts";
import { parseRoleArgs, RoleConfigError } from "../role/roleConfig.ts";
import { ConfigError, type DevnetConfig, HELP, parseDevnetArgs } from "./config.ts";
import { DataDirProtocolMismatchError, ensureContracts } from "./contractsSetup.ts";
import { DataDir } from "./dataDir.ts";

const tmp = mkdtempSync(join(tmpdir(), "protocol-flag-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function parse(argv: string[]): DevnetConfig {
  const c = parseDevnetArgs(argv);
  if (c === "help") throw new Error("help");
  return c;
}

const ADDRESSES = {
  blockTracker: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  providerRegistry: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
  bidderRegistry: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
  preconfManager: "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
  oracle: "0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9",
};

describe("the devnet's --protocol", () => {
  test("v1.1 is the default; v1.2 and its withdrawal period are taken", () => {
    expect(parse([]).rules).toBe(rulesOf("v1.1"));
    const c = parse(["--protocol", "v1.2", "--bidder-withdrawal-period", "30000"]);
    expect(c.rules).toBe(rulesOf("v1.2"));
    expect(c.bidderWithdrawalPeriodMs).toBe(30_000);
    expect(parse(["--protocol", "v1.2"]).bidderWithdrawalPeriodMs).toBe(600_000);
  });

  test("--bid-options-slash-enabled is off by default and a v1.2 setting", () => {
    expect(parse(["--protocol", "v1.2"]).bidOptionsSlash).toBe(false);
    expect(parse(["--protocol", "v1.2", "--bid-options-slash-enabled"]).bidOptionsSlash).toBe(true);
    expect(() => parse(["--bid-options-slash-enabled"])).toThrow(
      "--bid-options-slash-enabled is a v1.2 setting: add --protocol v1.2",
    );
    expect(HELP).toContain("--bid-options-slash-enabled");
  });

  test("an unknown version or a v1.2 setting without v1.2 is a ConfigError naming the flag", () => {
    expect(() => parse(["--protocol", "v2"])).toThrow(ConfigError);
    expect(() => parse(["--protocol", "v2"])).toThrow(
      /--protocol: unknown protocol version "v2": expected one of v1.1, v1.2/,
    );
    expect(() => parse(["--bidder-withdrawal-period", "1000"])).toThrow(/v1.2 setting: add --protocol v1.2/);
  });

  test("--help lists --protocol and the withdrawal period, and the CLI fails with one error line", () => {
    expect(HELP).toContain("--protocol VERSION");
    expect(HELP).toContain("--bidder-withdrawal-period MS");
    const r = spawnSync(["bun", join(import.meta.dir, "../main.ts"), "--protocol", "v9"], { stderr: "pipe" });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.toString().trim().split("\n")).toEqual([
      'error: --protocol: unknown protocol version "v9": expected one of v1.1, v1.2',
    ]);
  });

  test("a data dir that holds the other version's devnet is refused before any chain is asked", async () => {
    const dir = new DataDir(join(tmp, "v11-devnet"));
    dir.ensure();
    // A v1.1 devnet's saved contracts have no "protocol".
    dir.writeJson(dir.contractsFile, { chainId: 17864, addresses: ADDRESSES });
    const unreachable = {
      name: "settlement" as const,
      rpcUrl: "http://127.0.0.1:9",
      chainId: 17864,
      owned: false,
      stop: async () => {},
    };
    const attempt = () =>
      ensureContracts(unreachable, dir, devAccount(0).privateKey, devAccount(1).address, {}, rulesOf("v1.2"));
    await expect(attempt()).rejects.toThrow(DataDirProtocolMismatchError);
    await expect(attempt()).rejects.toThrow(/holds a v1.1 devnet, not v1.2: start with --fresh, or another --data-dir/);
  });
});

describe("--role nodes' --protocol", () => {
  const key = devAccount(2).privateKey;
  const file = (name: string, extra: object) => {
    const path = join(tmp, name);
    writeFileSync(path, JSON.stringify({ contracts: ADDRESSES, settlementRpcUrl: "http://127.0.0.1:1", ...extra }));
    return path;
  };
  const role = (argv: string[]) => {
    const c = parseRoleArgs(["--role", "bidder", "--key", key, ...argv]);
    if (c === "help") throw new Error("help");
    return c;
  };

  test("from the flag, else from the contracts file, else v1.1", () => {
    expect(role(["--contracts", file("v11.json", {})]).rules.version).toBe("v1.1");
    expect(role(["--contracts", file("v12.json", { protocol: "v1.2" })]).rules.version).toBe("v1.2");
    expect(role(["--contracts", file("plain.json", {}), "--protocol", "v1.2"]).rules.version).toBe("v1.2");
  });

  test("a flag that contradicts the file, an unknown version or a window auto-deposit on v1.2 is refused", () => {
    const v12 = file("v12b.json", { protocol: "v1.2" });
    expect(() => role(["--contracts", v12, "--protocol", "v1.1"])).toThrow(RoleConfigError);
    expect(() => role(["--contracts", v12, "--protocol", "v1.1"])).toThrow(/contradicts the --contracts file/);
    expect(() => role(["--contracts", v12, "--protocol", "1.2"])).toThrow(/--protocol: unknown protocol version "1.2"/);
    expect(() => role(["--contracts", v12, "--autodeposit-amount", "1000"])).toThrow(
      /--autodeposit-amount deposits per window, which protocol v1.2 does not have/,
    );
  });

  test("--autodeposit-current-window goes with --autodeposit-amount", () => {
    const v11 = file("v11c.json", {});
    expect(role(["--contracts", v11, "--autodeposit-amount", "1000"]).autodepositCurrentWindow).toBe(false);
    expect(
      role(["--contracts", v11, "--autodeposit-amount", "1000", "--autodeposit-current-window"])
        .autodepositCurrentWindow,
    ).toBe(true);
    expect(() => role(["--contracts", v11, "--autodeposit-current-window"])).toThrow(
      new RoleConfigError("--autodeposit-current-window says where --autodeposit-amount starts; give both"),
    );
  });

  test("--autodeposit-keep-saved lets a saved auto-deposit setting win over --autodeposit-amount", () => {
    const v11 = file("v11k.json", {});
    expect(role(["--contracts", v11, "--autodeposit-amount", "1000"]).autodepositFromFlag).toBe(true);
    const kept = role(["--contracts", v11, "--autodeposit-amount", "1000", "--autodeposit-keep-saved"]);
    expect([kept.autodepositAmount, kept.autodepositFromFlag]).toEqual([1000n, false]);
    expect(() => role(["--contracts", v11, "--autodeposit-keep-saved"])).toThrow(
      new RoleConfigError("--autodeposit-keep-saved says what --autodeposit-amount does to a saved setting; give both"),
    );
  });
});
