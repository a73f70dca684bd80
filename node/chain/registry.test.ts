/**
 * BlockTracker, BidderRegistry and ProviderRegistry against a real automining Anvil: windows and winners,
 * deposits and withdrawal rules, registration, stake, unstake/withdraw delay, builder keys, revert decoding.
 */
import { describe, expect, test } from "bun:test";
import { encodeFunctionData, getAddress, type Hex, parseEther, zeroAddress } from "viem";
import { addr, chainPerTestFile, type Harness } from "../testing/chainHarness.ts";
import { ROLES } from "./accounts.ts";
import { bidderRegistryAbi, decodeRevert } from "./contracts.ts";
import { builderKeyFor, DEFAULT_DEPLOY_PARAMS } from "./deploy.ts";

const OWNER = ROLES.owner;
const ORACLE = ROLES.oracle;
const BIDDER = ROLES.bidder;
const P0 = ROLES.firstProvider;
const P1 = ROLES.firstProvider + 1;
const OUTSIDER = 8;

let h: Harness;
chainPerTestFile({ name: "registry", chainId: 31337, providers: 2 }, (x) => (h = x));

describe("deployment", () => {
  test("wiring and upstream default parameters", async () => {
    const { read, addresses } = h;
    for (const a of Object.values(addresses)) expect(a).toBe(getAddress(a));
    expect(await read.blockTracker.read.providerRegistry()).toBe(addresses.providerRegistry);
    expect(await read.blockTracker.read.oracleAccount()).toBe(addr(ORACLE));
    expect(await read.bidderRegistry.read.preconfManager()).toBe(addresses.preconfManager);
    expect(await read.bidderRegistry.read.blockTrackerContract()).toBe(addresses.blockTracker);
    expect(await read.providerRegistry.read.preconfManager()).toBe(addresses.preconfManager);
    expect(await read.preconfManager.read.oracleContract()).toBe(addresses.oracle);
    expect(await read.preconfManager.read.blockTracker()).toBe(addresses.blockTracker);
    expect(await read.preconfManager.read.bidderRegistry()).toBe(addresses.bidderRegistry);
    expect(await read.preconfManager.read.providerRegistry()).toBe(addresses.providerRegistry);
    expect(await read.oracle.read.preconfManager()).toBe(addresses.preconfManager);
    expect(await read.oracle.read.blockTracker()).toBe(addresses.blockTracker);
    expect(await read.oracle.read.oracleAccount()).toBe(addr(ORACLE));
    for (const c of Object.values(read)) expect(await c.read.owner()).toBe(addr(OWNER));

    expect(await read.providerRegistry.read.minStake()).toBe(parseEther("10"));
    expect(await read.providerRegistry.read.feePercent()).toBe(5n * 10n ** 16n);
    expect(await read.providerRegistry.read.withdrawalDelay()).toBe(86_400_000n);
    expect(await read.bidderRegistry.read.feePercent()).toBe(2n * 10n ** 16n);
    expect(await read.preconfManager.read.commitmentDispatchWindow()).toBe(500n);
    const [recipient, accumulated, last, period] = await read.bidderRegistry.read.protocolFeeTracker();
    expect([recipient, accumulated, period]).toEqual([addr(OWNER), 0n, DEFAULT_DEPLOY_PARAMS.feePayoutPeriod]);
    const block = await h.publicClient.getBlock();
    expect(last).toBeLessThanOrEqual(block.timestamp * 1000n); // stored in ms
    expect(last).toBeGreaterThan((block.timestamp - 60n) * 1000n);
  });
});

describe("BlockTracker", () => {
  test("windows start at 1, 10 blocks each; NewWindow and NewL1Block", async () => {
    const bt = h.read.blockTracker;
    expect(await bt.read.getCurrentWindow()).toBe(1n);
    expect(await bt.read.currentWindow()).toBe(1n);
    expect(await bt.read.getBlocksPerWindow()).toBe(10n);

    let r = await h.recordWinner(10n, addr(P0));
    expect(h.events(r, "blockTracker", "NewWindow")).toHaveLength(0);
    expect(h.events(r, "blockTracker", "NewL1Block")[0]!.args).toEqual({
      blockNumber: 10n,
      winner: addr(P0),
      window: 1n,
    });
    expect(await bt.read.getBlockWinner([10n])).toBe(addr(P0));

    r = await h.recordWinner(11n, addr(P1));
    expect(h.events(r, "blockTracker", "NewWindow")[0]!.args).toEqual({ window: 2n });
    expect(h.events(r, "blockTracker", "NewL1Block")[0]!.args).toEqual({
      blockNumber: 11n,
      winner: addr(P1),
      window: 2n,
    });
    expect(await bt.read.getCurrentWindow()).toBe(2n);

    // An older block does not move the window back; the event carries the current window.
    r = await h.recordWinner(3n, addr(P0));
    expect(h.events(r, "blockTracker", "NewL1Block")[0]!.args).toEqual({
      blockNumber: 3n,
      winner: addr(P0),
      window: 2n,
    });
    expect(await bt.read.getCurrentWindow()).toBe(2n);
  });

  test("unknown or empty builder key → winner address(0); block 0 and non-oracle rejected", async () => {
    await h.tx(ORACLE, "blockTracker", "recordL1Block", [21n, `0x${"11".repeat(48)}`]);
    expect(await h.read.blockTracker.read.getBlockWinner([21n])).toBe(zeroAddress);
    await h.recordWinner(22n, null);
    expect(await h.read.blockTracker.read.getBlockWinner([22n])).toBe(zeroAddress);
    expect(await h.read.blockTracker.read.getCurrentWindow()).toBe(3n);
    await h.expectRevert(h.tx(ORACLE, "blockTracker", "recordL1Block", [0n, "0x"]), "BlockNumberIsZero");
    const e = await h.expectRevert(h.tx(BIDDER, "blockTracker", "recordL1Block", [5n, "0x"]), "NotOracleAccount");
    expect(e.text).toBe(`NotOracleAccount(sender=${addr(BIDDER)}, oracleAccount=${addr(ORACLE)})`);
  });

  test("builder name map (vestigial) and owner setters", async () => {
    const r = await h.tx(ORACLE, "blockTracker", "addBuilderAddress", ["titan", addr(P0)]);
    expect(h.events(r, "blockTracker", "BuilderAddressAdded")).toHaveLength(1);
    expect(await h.read.blockTracker.read.getBuilder(["titan"])).toBe(addr(P0));
    await h.expectRevert(
      h.tx(BIDDER, "blockTracker", "addBuilderAddress", ["x", addr(P0)]),
      "OwnableUnauthorizedAccount",
    );
    await h.expectRevert(
      h.tx(ORACLE, "blockTracker", "setOracleAccount", [addr(BIDDER)]),
      "OwnableUnauthorizedAccount",
    );
    const r2 = await h.tx(OWNER, "blockTracker", "setOracleAccount", [addr(OUTSIDER)]);
    expect(h.events(r2, "blockTracker", "OracleAccountSet")[0]!.args).toEqual({
      oldOracleAccount: addr(ORACLE),
      newOracleAccount: addr(OUTSIDER),
    });
  });
});

describe("BidderRegistry deposits", () => {
  test("depositForWindow accumulates; BidderRegistered carries the new total; cap = total / 10", async () => {
    const br = h.read.bidderRegistry;
    let r = await h.tx(BIDDER, "bidderRegistry", "depositForWindow", [1n], parseEther("1"));
    expect(h.events(r, "bidderRegistry", "BidderRegistered")[0]!.args).toEqual({
      bidder: addr(BIDDER),
      depositedAmount: parseEther("1"),
      windowNumber: 1n,
    });
    r = await h.tx(BIDDER, "bidderRegistry", "depositForWindow", [1n], parseEther("2.5"));
    expect(h.events(r, "bidderRegistry", "BidderRegistered")[0]!.args.depositedAmount).toBe(parseEther("3.5"));
    expect(await br.read.getDeposit([addr(BIDDER), 1n])).toBe(parseEther("3.5"));
    expect(await br.read.lockedFunds([addr(BIDDER), 1n])).toBe(parseEther("3.5"));
    expect(await br.read.maxBidPerBlock([addr(BIDDER), 1n])).toBe(parseEther("0.35"));
    // Any window may be funded, even far in the future.
    await h.tx(BIDDER, "bidderRegistry", "depositForWindow", [1000n], 7n);
    expect(await br.read.maxBidPerBlock([addr(BIDDER), 1000n])).toBe(0n);
    expect(await h.balance(h.addresses.bidderRegistry)).toBe(parseEther("3.5") + 7n);
    await h.expectRevert(h.tx(BIDDER, "bidderRegistry", "depositForWindow", [1n], 0n), "DepositAmountIsZero");
  });

  test("depositForWindows splits evenly, remainder to the last window", async () => {
    const r = await h.tx(BIDDER, "bidderRegistry", "depositForWindows", [[2n, 3n, 4n]], 10n);
    expect(
      h.events(r, "bidderRegistry", "BidderRegistered").map((e) => [e.args.windowNumber, e.args.depositedAmount]),
    ).toEqual([
      [2n, 3n],
      [3n, 3n],
      [4n, 4n],
    ]);
    await h.expectRevert(h.tx(BIDDER, "bidderRegistry", "depositForWindows", [[2n]], 0n), "DepositAmountIsZero");
  });

  test("withdrawal only after BlockTracker passed the window", async () => {
    const br = h.read.bidderRegistry;
    await h.tx(BIDDER, "bidderRegistry", "depositForWindows", [[1n, 2n]], parseEther("4"));
    const e = await h.expectRevert(
      h.tx(BIDDER, "bidderRegistry", "withdrawFromWindows", [[1n]]),
      "WithdrawAfterWindowSettled",
    );
    expect(e.text).toBe("WithdrawAfterWindowSettled(window=1, currentWindow=1)");
    await h.expectRevert(
      h.tx(BIDDER, "bidderRegistry", "withdrawBidderAmountFromWindow", [addr(BIDDER), 1n]),
      "WindowNotSettled",
    );

    await h.recordWinner(11n, null); // window 2 begins
    const before = await h.balance(addr(BIDDER));
    const r = await h.tx(BIDDER, "bidderRegistry", "withdrawFromWindows", [[1n]]);
    expect(h.events(r, "bidderRegistry", "BidderWithdrawal")[0]!.args).toEqual({
      bidder: addr(BIDDER),
      window: 1n,
      amount: parseEther("2"),
    });
    expect(await h.balance(addr(BIDDER))).toBe(before + parseEther("2") - h.gasCost(r));
    expect(await br.read.getDeposit([addr(BIDDER), 1n])).toBe(0n);
    expect(await br.read.maxBidPerBlock([addr(BIDDER), 1n])).toBe(0n);
    // window 2 is current: still locked
    await h.expectRevert(h.tx(BIDDER, "bidderRegistry", "withdrawFromWindows", [[2n]]), "WithdrawAfterWindowSettled");

    await h.recordWinner(21n, null);
    await h.expectRevert(
      h.tx(OUTSIDER, "bidderRegistry", "withdrawBidderAmountFromWindow", [addr(BIDDER), 2n]),
      "OnlyBidderCanWithdraw",
    );
    const r2 = await h.tx(BIDDER, "bidderRegistry", "withdrawBidderAmountFromWindow", [addr(BIDDER), 2n]);
    expect(h.events(r2, "bidderRegistry", "BidderWithdrawal")[0]!.args.amount).toBe(parseEther("2"));
    // An empty window withdraws 0 without reverting.
    const r3 = await h.tx(BIDDER, "bidderRegistry", "withdrawFromWindows", [[1n, 2n]]);
    expect(h.events(r3, "bidderRegistry", "BidderWithdrawal").map((x) => x.args.amount)).toEqual([0n, 0n]);
  });

  test("openBid/retrieveFunds/unlockFunds are PreconfManager-only", async () => {
    const digest = `0x${"22".repeat(32)}` as Hex;
    const e = await h.expectRevert(
      h.tx(BIDDER, "bidderRegistry", "openBid", [digest, 1n, addr(BIDDER), 5n]),
      "SenderIsNotPreconfManager",
    );
    expect(e.args).toEqual([addr(BIDDER), h.addresses.preconfManager]);
    await h.expectRevert(h.tx(BIDDER, "bidderRegistry", "unlockFunds", [1n, digest]), "SenderIsNotPreconfManager");
    await h.expectRevert(
      h.tx(BIDDER, "bidderRegistry", "retrieveFunds", [1n, digest, addr(P0), 0n]),
      "SenderIsNotPreconfManager",
    );
    await h.expectRevert(h.tx(BIDDER, "bidderRegistry", "withdrawProviderAmount", [addr(P0)]), "ProviderAmountIsZero");
  });
});

describe("ProviderRegistry", () => {
  test("registration: minimum stake, double registration, delegate by owner, stake top-ups", async () => {
    const pr = h.read.providerRegistry;
    expect(await pr.read.providerRegistered([addr(P0)])).toBe(true);
    expect(await pr.read.getProviderStake([addr(P0)])).toBe(parseEther("10"));
    await pr.read.isProviderValid([addr(P0)]);

    const e = await h.expectRevert(
      h.tx(OUTSIDER, "providerRegistry", "registerAndStake", [], parseEther("9")),
      "InsufficientStake",
    );
    expect(e.text).toBe(`InsufficientStake(stake=${parseEther("9")}, minStake=${parseEther("10")})`);
    await h.expectRevert(
      h.tx(P0, "providerRegistry", "registerAndStake", [], parseEther("10")),
      "ProviderAlreadyRegistered",
    );
    await h.expectRevert(h.tx(OUTSIDER, "providerRegistry", "stake", [], 1n), "ProviderNotRegistered");

    await h.expectRevert(
      h.tx(BIDDER, "providerRegistry", "delegateRegisterAndStake", [addr(OUTSIDER)], parseEther("10")),
      "OwnableUnauthorizedAccount",
    );
    const r = await h.tx(OWNER, "providerRegistry", "delegateRegisterAndStake", [addr(OUTSIDER)], parseEther("10"));
    expect(h.events(r, "providerRegistry", "ProviderRegistered")[0]!.args).toEqual({
      provider: addr(OUTSIDER),
      stakedAmount: parseEther("10"),
    });
    const r2 = await h.tx(BIDDER, "providerRegistry", "delegateStake", [addr(OUTSIDER)], parseEther("1"));
    expect(h.events(r2, "providerRegistry", "FundsDeposited")[0]!.args).toEqual({
      provider: addr(OUTSIDER),
      amount: parseEther("1"),
    });
    await h.tx(OUTSIDER, "providerRegistry", "stake", [], parseEther("2"));
    expect(await pr.read.getProviderStake([addr(OUTSIDER)])).toBe(parseEther("13"));
    expect(await pr.read.providerStakes([addr(OUTSIDER)])).toBe(parseEther("13"));

    // Below minStake after the owner raises it → invalid.
    await h.tx(OWNER, "providerRegistry", "setMinStake", [parseEther("20")]);
    const e2 = await h.expectRevert(pr.read.isProviderValid([addr(P0)]), "InsufficientStake");
    expect(e2.args).toEqual([parseEther("10"), parseEther("20")]);
  });

  test("unstake → invalid at once; withdraw only after the delay (ms) and with no pending commitments", async () => {
    const pr = h.read.providerRegistry;
    await h.expectRevert(h.tx(OUTSIDER, "providerRegistry", "unstake"), "NoStakeToWithdraw");
    await h.expectRevert(h.tx(P0, "providerRegistry", "withdraw"), "NoUnstakeRequest");

    const r = await h.tx(P0, "providerRegistry", "unstake");
    const block = await h.publicClient.getBlock({ blockNumber: r.blockNumber });
    const requestedAt = block.timestamp * 1000n;
    expect(h.events(r, "providerRegistry", "Unstake")[0]!.args).toEqual({ provider: addr(P0), timestamp: requestedAt });
    expect(await pr.read.withdrawalRequests([addr(P0)])).toBe(requestedAt);
    await h.expectRevert(pr.read.isProviderValid([addr(P0)]), "PendingWithdrawalRequest");
    await h.expectRevert(h.tx(P0, "providerRegistry", "unstake"), "UnstakeRequestExists");
    await h.expectRevert(h.tx(P0, "providerRegistry", "stake", [], 1n), "PendingWithdrawalRequest");

    const early = await h.expectRevert(h.tx(P0, "providerRegistry", "withdraw"), "DelayNotPassed");
    expect(early.args[0]).toBe(requestedAt);
    expect(early.args[1]).toBe(86_400_000n);

    await h.testClient.increaseTime({ seconds: 86_400 });
    await h.testClient.mine({ blocks: 1 });
    const before = await h.balance(addr(P0));
    const w = await h.tx(P0, "providerRegistry", "withdraw");
    expect(h.events(w, "providerRegistry", "Withdraw")[0]!.args).toEqual({
      provider: addr(P0),
      amount: parseEther("10"),
    });
    expect(await h.balance(addr(P0))).toBe(before + parseEther("10") - h.gasCost(w));
    expect(await pr.read.getProviderStake([addr(P0)])).toBe(0n);
    expect(await pr.read.providerRegistered([addr(P0)])).toBe(false);
    expect(await pr.read.withdrawalRequests([addr(P0)])).toBe(0n);
    // may register again
    await h.tx(P0, "providerRegistry", "registerAndStake", [], parseEther("10"));
  });

  test("builder BLS keys: owner override, lookup both ways, length check, no precompile on Anvil", async () => {
    const pr = h.read.providerRegistry;
    expect(await pr.read.getEoaFromBLSKey([builderKeyFor(addr(P0))])).toBe(addr(P0));
    expect(await pr.read.getBLSKeys([addr(P0)])).toEqual([builderKeyFor(addr(P0))]);
    expect(await pr.read.eoaToBlsPubkeys([addr(P0), 0n])).toBe(builderKeyFor(addr(P0)));
    expect(await pr.read.blockBuilderBLSKeyToAddress([builderKeyFor(addr(P1))])).toBe(addr(P1));

    const second = `0x${"ab".repeat(48)}` as Hex;
    const r = await h.tx(OWNER, "providerRegistry", "overrideAddBLSKey", [addr(P0), second]);
    expect(h.events(r, "providerRegistry", "BLSKeyAdded")[0]!.args).toEqual({
      provider: addr(P0),
      blsPublicKey: second,
    });
    expect(await pr.read.getBLSKeys([addr(P0)])).toEqual([builderKeyFor(addr(P0)), second]);
    // Moving a key to another provider removes it from the first.
    await h.tx(OWNER, "providerRegistry", "overrideAddBLSKey", [addr(P1), second]);
    expect(await pr.read.getBLSKeys([addr(P0)])).toEqual([builderKeyFor(addr(P0))]);
    expect(await pr.read.getEoaFromBLSKey([second])).toBe(addr(P1));

    await h.expectRevert(
      h.tx(P0, "providerRegistry", "overrideAddBLSKey", [addr(P0), second]),
      "OwnableUnauthorizedAccount",
    );
    const e = await h.expectRevert(
      h.tx(OWNER, "providerRegistry", "overrideAddBLSKey", [addr(P0), "0x1234"]),
      "InvalidBLSPublicKeyLength",
    );
    expect(e.args).toEqual([2n, 48n]);
    await h.expectRevert(
      h.tx(P0, "providerRegistry", "addVerifiedBLSKey", [`0x${"cd".repeat(48)}`, `0x${"ef".repeat(96)}`]),
      "BLSSignatureInvalid",
    );
    await h.expectRevert(
      h.tx(P0, "providerRegistry", "addVerifiedBLSKey", ["0x12", `0x${"ef".repeat(96)}`]),
      "PublicKeyLengthInvalid",
    );
  });

  test("slash is PreconfManager-only; plain ether transfers are refused", async () => {
    const e = await h.expectRevert(
      h.tx(OWNER, "providerRegistry", "slash", [1n, 0n, addr(P0), addr(BIDDER), 0n]),
      "NotPreconfContract",
    );
    expect(e.args).toEqual([addr(OWNER), h.addresses.preconfManager]);
    await h.expectRevert(
      h.wallet(BIDDER).sendTransaction({ to: h.addresses.providerRegistry, value: 1n }),
      "InvalidReceive",
    );
    await h.expectRevert(h.tx(BIDDER, "providerRegistry", "withdrawSlashedAmount"), "BidderAmountIsZero");
  });
});

describe("decodeRevert", () => {
  test("renders custom errors from writes, raw calls and simulations as Name(arg=value, ...)", async () => {
    const data = encodeFunctionData({ abi: bidderRegistryAbi, functionName: "withdrawFromWindows", args: [[5n]] });
    let caught: unknown;
    try {
      await h.publicClient.call({ account: addr(BIDDER), to: h.addresses.bidderRegistry, data });
    } catch (e) {
      caught = e;
    }
    const viaCall = decodeRevert(caught);
    expect(viaCall?.text).toBe("WithdrawAfterWindowSettled(window=5, currentWindow=1)");
    expect(viaCall?.errorName).toBe("WithdrawAfterWindowSettled");
    expect(viaCall?.args).toEqual([5n, 1n]);

    try {
      await h.publicClient.simulateContract({
        account: addr(BIDDER),
        address: h.addresses.bidderRegistry,
        abi: bidderRegistryAbi,
        functionName: "withdrawFromWindows",
        args: [[5n]],
      });
    } catch (e) {
      caught = e;
    }
    expect(decodeRevert(caught)?.text).toBe("WithdrawAfterWindowSettled(window=5, currentWindow=1)");
    expect(decodeRevert(new Error("socket hang up"))).toBeUndefined();
  });
});
