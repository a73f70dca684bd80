/**
 * Build plumbing of the contracts: compile cache, the typed ABIs in contracts.ts, dev accounts, deployment
 * (including its duration on an automining Anvil), builder keys and revert rendering.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createPublicClient,
  encodeAbiParameters,
  encodeErrorResult,
  getAddress,
  type Hex,
  http,
  parseEther,
  toFunctionSelector,
} from "viem";
import { freePort } from "../util/ports.ts";
import { ANVIL_DEFAULT_ACCOUNT_COUNT, devAccount, providerAccount, ROLES, requiredAnvilAccounts } from "./accounts.ts";
import { type AnvilChain, startAnvil } from "./anvil.ts";
import {
  abiTsBlock,
  COMMITTED_CONTRACTS,
  CONTRACT_NAMES,
  type CompiledContracts,
  compileContracts,
  contractSourceHash,
  currentAbiTsBlock,
  formatHumanReadableAbi,
} from "./compile.ts";
import {
  ABIS,
  ContractRevertError,
  decodeRevert,
  decodeRevertData,
  getContracts,
  preconfManagerAbi,
} from "./contracts.ts";
import { builderKeyFor, deployContracts, registerProvider } from "./deploy.ts";

describe("compileContracts", () => {
  test("caches by source hash: a second start reads the cache file instead of compiling", async () => {
    const warm = await compileContracts(); // the committed compile (or the repo cache, or solc)
    const dir = mkdtempSync(join(tmpdir(), "contracts-cache-"));
    try {
      // A cache entry under the right key is used as is (marker survives), no solc run.
      writeFileSync(join(dir, `${warm.sourceHash}.json`), JSON.stringify({ ...warm, solcVersion: "from-cache" }));
      const t = performance.now();
      const cached = await compileContracts({ cacheDir: dir });
      expect(performance.now() - t).toBeLessThan(1000);
      expect(cached.solcVersion).toBe("from-cache");
      expect(cached.contracts.PreconfManager.bytecode).toBe(warm.contracts.PreconfManager.bytecode);
      expect(warm.solcVersion).toBe("0.8.37");
      expect(warm.sourceHash).toMatch(/^[0-9a-f]{64}$/);
      for (const n of CONTRACT_NAMES) expect(warm.contracts[n].bytecode.length).toBeGreaterThan(1000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  test("the committed compiled contracts are those of the sources (else run bun node/chain/compile.ts --write-abi-ts)", () => {
    const committed = JSON.parse(readFileSync(COMMITTED_CONTRACTS, "utf8")) as CompiledContracts;
    expect(committed.sourceHash).toBe(contractSourceHash());
    for (const n of CONTRACT_NAMES) expect(committed.contracts[n].bytecode).toMatch(/^0x[0-9a-f]{2000,}$/);
  });

  test("the typed ABIs in contracts.ts match the compiled contracts (else run --write-abi-ts)", async () => {
    const compiled = await compileContracts();
    expect(currentAbiTsBlock()).toBe(abiTsBlock(compiled));
    for (const n of CONTRACT_NAMES) {
      expect(formatHumanReadableAbi(ABIS[n])).toEqual(formatHumanReadableAbi(compiled.contracts[n].abi));
    }
  });
});

describe("accounts", () => {
  test("Anvil's default mnemonic accounts and role indices", () => {
    expect(devAccount(0).address).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    expect(devAccount(0).privateKey).toBe("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
    expect(devAccount(1).address).toBe("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    expect(devAccount(ROLES.oracle)).toEqual(devAccount(1));
    expect(devAccount(ROLES.bidder).address).toBe("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC");
    expect(providerAccount(0)).toEqual(devAccount(3));
    expect(ROLES.maxProvidersWithDefaultAccounts).toBe(7);
    expect(requiredAnvilAccounts(2)).toBe(ANVIL_DEFAULT_ACCOUNT_COUNT);
    expect(requiredAnvilAccounts(9)).toBe(12);
    expect(() => devAccount(-1)).toThrow(RangeError);
  });
});

describe("builderKeyFor", () => {
  test("deterministic 48-byte key per address", () => {
    const k = builderKeyFor(devAccount(3).address);
    expect(k).toMatch(/^0x[0-9a-f]{96}$/);
    expect(builderKeyFor(devAccount(3).address.toLowerCase() as Hex)).toBe(k);
    expect(builderKeyFor(devAccount(4).address)).not.toBe(k);
  });
});

describe("decodeRevertData", () => {
  test("custom errors of any contract, Error(string), Panic and unknown selectors", () => {
    const data = encodeErrorResult({
      abi: preconfManagerAbi,
      errorName: "WinnerIsNotCommitter",
      args: [devAccount(3).address, devAccount(4).address],
    });
    const e = decodeRevertData(data);
    expect(e).toBeInstanceOf(ContractRevertError);
    expect(e.errorName).toBe("WinnerIsNotCommitter");
    expect(e.text).toBe(`WinnerIsNotCommitter(committer=${devAccount(3).address}, winner=${devAccount(4).address})`);
    expect(e.message).toBe(`execution reverted: ${e.text}`);

    const str = `0x08c379a0${encodeAbiParameters([{ type: "string" }], ["nope"]).slice(2)}` as Hex;
    expect(decodeRevertData(str).text).toBe("nope");
    const panic = `0x4e487b71${encodeAbiParameters([{ type: "uint256" }], [0x11n]).slice(2)}` as Hex;
    expect(decodeRevertData(panic).text).toBe("Panic(code=0x11, reason=arithmetic overflow or underflow)");
    const unknown = `${toFunctionSelector("function Foo()")}` as Hex;
    expect(decodeRevertData(unknown).errorName).toBe(unknown);
    expect(decodeRevert({ cause: { data: data } })?.errorName).toBe("WinnerIsNotCommitter");
  });
});

describe("deployContracts", () => {
  let anvil: AnvilChain;
  beforeAll(async () => {
    await compileContracts(); // warm the cache so the timing below is deployment only
    anvil = await startAnvil({ name: "deploy", port: await freePort(), chainId: 31337, mining: "auto" });
  }, 60_000);
  afterAll(async () => {
    await anvil?.stop();
  });

  test("deploys, wires and takes well under 2 s; params override upstream defaults", async () => {
    const t = performance.now();
    const addresses = await deployContracts({
      rpcUrl: anvil.rpcUrl,
      chainId: 31337,
      owner: devAccount(ROLES.owner).privateKey,
      oracle: devAccount(ROLES.oracle).address,
      params: { minStake: parseEther("1"), commitmentDispatchWindow: 2000n },
    });
    const ms = performance.now() - t;
    console.info(`[deploy] 5 contracts + 4 wiring transactions in ${ms.toFixed(0)} ms`);
    for (const a of Object.values(addresses)) expect(a).toBe(getAddress(a));
    const client = createPublicClient({ transport: http(anvil.rpcUrl) });
    const c = getContracts(addresses, client);
    expect(await c.providerRegistry.read.minStake()).toBe(parseEther("1"));
    expect(await c.preconfManager.read.commitmentDispatchWindow()).toBe(2000n);
    expect(await c.preconfManager.read.oracleContract()).toBe(addresses.oracle);
    expect(await c.blockTracker.read.providerRegistry()).toBe(addresses.providerRegistry);

    const p = providerAccount(0);
    const reg = await registerProvider({
      rpcUrl: anvil.rpcUrl,
      addresses,
      providerKey: p.privateKey,
      ownerKey: devAccount(ROLES.owner).privateKey,
      stake: parseEther("1"),
    });
    expect(reg).toEqual({ provider: p.address, blsKey: builderKeyFor(p.address) });
    expect(await c.providerRegistry.read.getEoaFromBLSKey([builderKeyFor(p.address)])).toBe(p.address);
    expect(await c.providerRegistry.read.getProviderStake([p.address])).toBe(parseEther("1"));

    // A second registration fails with the decoded reason.
    await expect(
      registerProvider({
        rpcUrl: anvil.rpcUrl,
        addresses,
        providerKey: p.privateKey,
        ownerKey: devAccount(0).privateKey,
        stake: parseEther("1"),
      }),
    ).rejects.toThrow(`ProviderAlreadyRegistered(sender=${p.address})`);
  });

  test("refuses a chain id that does not match the RPC", async () => {
    await expect(
      deployContracts({
        rpcUrl: anvil.rpcUrl,
        chainId: 1,
        owner: devAccount(0).privateKey,
        oracle: devAccount(1).address,
      }),
    ).rejects.toThrow("chain id mismatch");
  });
});
