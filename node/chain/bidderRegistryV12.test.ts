/**
 * The v1.2 BidderRegistry's deposits and withdrawals (upstream-head-delta.md §2.2) and the DepositManager's
 * delegation rules (§2.3) on a real Prague Anvil: deposit, depositEvenly (remainder to the last provider),
 * withdrawal requests, withdraw strictly after the period, EIP-7702 delegation, targets only by the EOA itself, and
 * the top-up rule order.
 */
import { describe, expect, test } from "bun:test";
import {
  type Address,
  concat,
  encodeAbiParameters,
  encodeFunctionData,
  keccak256,
  parseEther,
  zeroAddress,
} from "viem";
import { addr } from "../testing/chainHarness.ts";
import { type HarnessV12, v12ChainPerTestFile } from "../testing/chainHarnessV12.ts";
import { ROLES } from "./accounts.ts";
import { depositManagerV12Abi } from "./contractsV12.ts";

const BIDDER = ROLES.bidder;
const P0 = addr(ROLES.firstProvider);
const P1 = addr(ROLES.firstProvider + 1);
const P2 = addr(ROLES.firstProvider + 2);
const OUTSIDER = 8;
const PERIOD_MS = 600_000n;

let h: HarnessV12;
v12ChainPerTestFile({ name: "bidder-registry-v12", providers: 2 }, (x) => (h = x));

const deposit = (provider: Address, value: bigint, from = BIDDER) =>
  h.tx(from, "bidderRegistry", "depositAsBidder", [provider], { value });
const available = (provider: Address, bidder = addr(BIDDER)) =>
  h.read<bigint>("bidderRegistry", "getDeposit", [bidder, provider]);
const blockMs = async (blockNumber: bigint) => (await h.publicClient.getBlock({ blockNumber })).timestamp * 1000n;

/** Delegates dev account i to `impl` with a self-sponsored EIP-7702 transaction, optionally calling itself. */
async function delegate(i: number, impl: Address, data: `0x${string}` = "0x") {
  const w = h.wallet(i);
  const authorization = await w.signAuthorization({ contractAddress: impl, executor: "self" });
  const hash = await w.sendTransaction({ authorizationList: [authorization], to: addr(i), data });
  const r = await h.publicClient.waitForTransactionReceipt({ hash });
  expect(r.status).toBe("success");
  return r;
}

describe("deposits", () => {
  test("depositAsBidder adds to deposits[bidder][provider] and emits BidderDeposited with this deposit and the new total", async () => {
    const r1 = await deposit(P0, parseEther("1"));
    expect(h.events(r1, "bidderRegistry", "BidderDeposited")[0]!.args).toEqual({
      bidder: addr(BIDDER),
      provider: P0,
      depositedAmount: parseEther("1"),
      newAvailableAmount: parseEther("1"),
    });
    const r2 = await deposit(P0, parseEther("0.5"));
    expect(h.events(r2, "bidderRegistry", "BidderDeposited")[0]!.args.newAvailableAmount).toBe(parseEther("1.5"));
    expect(await available(P0)).toBe(parseEther("1.5"));
    expect(await available(P1)).toBe(0n);
    expect(await h.read("bidderRegistry", "deposits", [addr(BIDDER), P0])).toEqual([
      true,
      parseEther("1.5"),
      0n,
      { exists: false, timestamp: 0n },
    ]);
    expect(await h.read("bidderRegistry", "getDepositConsideringWithdrawalRequest", [addr(BIDDER), P0])).toBe(
      parseEther("1.5"),
    );
    await h.expectRevert(deposit(P0, 0n), "DepositAmountIsZero");
    await h.expectRevert(deposit(zeroAddress, 1n), "ProviderIsZeroAddress");
  });

  test("depositEvenlyAsBidder splits the value, the last provider also gets the remainder", async () => {
    const r = await h.tx(BIDDER, "bidderRegistry", "depositEvenlyAsBidder", [[P0, P1, P2]], { value: 10n });
    expect(
      h.events(r, "bidderRegistry", "BidderDeposited").map((e) => [e.args.provider, e.args.depositedAmount]),
    ).toEqual([
      [P0, 3n],
      [P1, 3n],
      [P2, 4n],
    ]);
    expect([await available(P0), await available(P1), await available(P2)]).toEqual([3n, 3n, 4n]);
    await h.expectRevert(h.tx(BIDDER, "bidderRegistry", "depositEvenlyAsBidder", [[]], { value: 10n }), "NoProviders");
    expect(
      await h.expectRevert(
        h.tx(BIDDER, "bidderRegistry", "depositEvenlyAsBidder", [[P0, P1, P2]], { value: 2n }),
        "DepositAmountIsLessThanProviders",
      ),
    ).toEqual([2n, 3n]);
    await h.expectRevert(
      h.tx(BIDDER, "bidderRegistry", "depositEvenlyAsBidder", [[P0, zeroAddress]], { value: 2n }),
      "ProviderIsZeroAddress",
    );
  });

  test("plain ether transfers are refused", async () => {
    let err: unknown;
    try {
      await h.wallet(BIDDER).sendTransaction({ to: h.addresses.bidderRegistry, value: 1n });
    } catch (e) {
      err = e;
    }
    expect(String((err as Error)?.message)).toContain("Invalid call");
  });
});

describe("withdrawals", () => {
  test("a request records the time (ms), freezes deposits, and zeroes getDepositConsideringWithdrawalRequest", async () => {
    await h.expectRevert(h.tx(BIDDER, "bidderRegistry", "requestWithdrawalsAsBidder", [[P0]]), "DepositDoesNotExist");
    await deposit(P0, parseEther("2"));
    const r = await h.tx(BIDDER, "bidderRegistry", "requestWithdrawalsAsBidder", [[P0]]);
    const at = await blockMs(r.blockNumber);
    expect(h.events(r, "bidderRegistry", "WithdrawalRequested")[0]!.args).toEqual({
      bidder: addr(BIDDER),
      provider: P0,
      availableAmount: parseEther("2"),
      escrowedAmount: 0n,
      timestamp: at,
    });
    expect(await h.read("bidderRegistry", "withdrawalRequestExists", [addr(BIDDER), P0])).toBe(true);
    expect(await h.read("bidderRegistry", "getDepositConsideringWithdrawalRequest", [addr(BIDDER), P0])).toBe(0n);
    expect(await available(P0)).toBe(parseEther("2"));
    expect(await h.expectRevert(deposit(P0, 1n), "WithdrawalOccurrenceExists")).toEqual([addr(BIDDER), P0, at]);
    await h.expectRevert(
      h.tx(BIDDER, "bidderRegistry", "requestWithdrawalsAsBidder", [[P0]]),
      "WithdrawalRequestAlreadyExists",
    );
    await h.expectRevert(h.tx(BIDDER, "bidderRegistry", "withdrawAsBidder", [[P1]]), "DepositDoesNotExist");
  });

  test("withdraw pays the available amount only once request + period < now (strictly), then deposits work again", async () => {
    expect(await h.read("bidderRegistry", "bidderWithdrawalPeriodMs")).toBe(PERIOD_MS);
    await deposit(P0, parseEther("2"));
    await h.expectRevert(h.tx(BIDDER, "bidderRegistry", "withdrawAsBidder", [[P0]]), "WithdrawalRequestDoesNotExist");
    const r = await h.tx(BIDDER, "bidderRegistry", "requestWithdrawalsAsBidder", [[P0]]);
    const requestedAt = await blockMs(r.blockNumber);
    const early = await h.expectRevert(
      h.tx(BIDDER, "bidderRegistry", "withdrawAsBidder", [[P0]]),
      "WithdrawalPeriodNotElapsed",
    );
    expect(early.slice(1)).toEqual([requestedAt, PERIOD_MS]);

    // A block exactly one period after the request: not yet (the rule is strictly less).
    const requestS = requestedAt / 1000n;
    await h.testClient.setNextBlockTimestamp({ timestamp: requestS + PERIOD_MS / 1000n });
    const atBoundary = await h.send(BIDDER, "bidderRegistry", "withdrawAsBidder", [[P0]], { gas: 200_000n });
    expect(atBoundary.status).toBe("reverted");
    expect(await available(P0)).toBe(parseEther("2"));

    await h.testClient.setNextBlockTimestamp({ timestamp: requestS + PERIOD_MS / 1000n + 1n });
    const before = await h.balance(addr(BIDDER));
    const w = await h.tx(BIDDER, "bidderRegistry", "withdrawAsBidder", [[P0]], { gas: 200_000n });
    expect(h.events(w, "bidderRegistry", "BidderWithdrawal")[0]!.args).toEqual({
      bidder: addr(BIDDER),
      provider: P0,
      amountWithdrawn: parseEther("2"),
      amountStillEscrowed: 0n,
    });
    expect(await h.balance(addr(BIDDER))).toBe(before + parseEther("2") - h.gasCost(w));
    expect(await available(P0)).toBe(0n);
    expect(await h.read("bidderRegistry", "withdrawalRequestExists", [addr(BIDDER), P0])).toBe(false);
    await deposit(P0, 5n);
    expect(await available(P0)).toBe(5n);
  });
});

describe("DepositManager delegation (EIP-7702)", () => {
  test("setDepositManagerImpl stores keccak(0xef0100 ‖ impl); a delegated EOA's code is that designator", async () => {
    const impl = h.addresses.depositManager;
    expect(await h.read("bidderRegistry", "depositManagerImpl")).toBe(impl);
    expect(await h.read("bidderRegistry", "depositManagerHash")).toBe(keccak256(concat(["0xef0100", impl])));
    expect(await h.read("depositManager", "BIDDER_REGISTRY")).toBe(h.addresses.bidderRegistry);
    expect(await h.read("depositManager", "MIN_BALANCE")).toBe(parseEther("0.01"));
    await h.expectRevert(
      h.tx(OUTSIDER, "bidderRegistry", "setDepositManagerImpl", [impl]),
      "OwnableUnauthorizedAccount",
    );

    await delegate(BIDDER, impl);
    const code = await h.publicClient.getCode({ address: addr(BIDDER) });
    expect(code).toBe(concat(["0xef0100", impl.toLowerCase() as `0x${string}`]));
  });

  test("targets are set only by the EOA itself, live in its storage slot 0 mapping, and top-ups follow the rule order", async () => {
    const bidder = addr(BIDDER);
    const setTarget = encodeFunctionData({
      abi: depositManagerV12Abi,
      functionName: "setTargetDeposits",
      args: [
        [P0, P1],
        [parseEther("1"), 0n],
      ],
    });
    const r = await delegate(BIDDER, h.addresses.depositManager, setTarget);
    expect(h.events(r, "depositManager", "TargetDepositSet", bidder).map((e) => e.args)).toEqual([
      { provider: P0, amount: parseEther("1") },
      { provider: P1, amount: 0n },
    ]);
    expect(await h.read("depositManager", "targetDeposits", [P0], bidder)).toBe(parseEther("1"));
    const slot = keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [P0, 0n]));
    expect(BigInt((await h.publicClient.getStorageAt({ address: bidder, slot }))!)).toBe(parseEther("1"));
    expect(
      await h.expectRevert(
        h.tx(OUTSIDER, "depositManager", "setTargetDeposit", [P0, 1n], { to: bidder }),
        "NotThisEOA",
      ),
    ).toEqual([addr(OUTSIDER), bidder]);

    // Anyone may top up: target 0 → TargetDepositDoesNotExist; P0 short by 1 ETH → DepositToppedUp from the EOA's ether.
    const before = await h.balance(bidder);
    const t = await h.tx(OUTSIDER, "depositManager", "topUpDeposits", [[P1, P0]], { to: bidder });
    expect(h.events(t, "depositManager", "TargetDepositDoesNotExist", bidder).map((e) => e.args.provider)).toEqual([
      P1,
    ]);
    expect(h.events(t, "depositManager", "DepositToppedUp", bidder)[0]!.args).toEqual({
      provider: P0,
      amount: parseEther("1"),
    });
    expect(h.events(t, "bidderRegistry", "BidderDeposited")[0]!.args.bidder).toBe(bidder);
    expect(await available(P0)).toBe(parseEther("1"));
    expect(await h.balance(bidder)).toBe(before - parseEther("1"));

    // Deposit at target → CurrentDepositIsSufficient.
    const s = await h.tx(OUTSIDER, "depositManager", "topUpDeposit", [P0], { to: bidder });
    expect(h.events(s, "depositManager", "CurrentDepositIsSufficient", bidder)[0]!.args).toEqual({
      provider: P0,
      currentDeposit: parseEther("1"),
      targetDeposit: parseEther("1"),
    });

    // A pending withdrawal request comes first.
    await h.tx(BIDDER, "bidderRegistry", "requestWithdrawalsAsBidder", [[P0]]);
    const w = await h.tx(OUTSIDER, "depositManager", "topUpDeposit", [P0], { to: bidder });
    expect(h.events(w, "depositManager", "WithdrawalRequestExists", bidder).map((e) => e.args.provider)).toEqual([P0]);
    expect(h.events(w, "depositManager", "CurrentDepositIsSufficient", bidder)).toEqual([]);
  });

  test("a top-up stops at MIN_BALANCE: reduced when the EOA is short, skipped at or below it", async () => {
    const bidder = addr(BIDDER);
    const target = parseEther("5");
    await delegate(
      BIDDER,
      h.addresses.depositManager,
      encodeFunctionData({ abi: depositManagerV12Abi, functionName: "setTargetDeposit", args: [P0, target] }),
    );
    // Leave the EOA 2 ETH: the top-up deposits 2 - 0.01 and keeps MIN_BALANCE.
    await h.testClient.setBalance({ address: bidder, value: parseEther("2") });
    const r = await h.tx(OUTSIDER, "depositManager", "topUpDeposit", [P0], { to: bidder });
    const spendable = parseEther("2") - parseEther("0.01");
    expect(h.events(r, "depositManager", "TopUpReduced", bidder)[0]!.args).toEqual({
      provider: P0,
      available: spendable,
      needed: target,
    });
    expect(h.events(r, "depositManager", "DepositToppedUp", bidder)[0]!.args).toEqual({
      provider: P0,
      amount: spendable,
    });
    expect(await h.balance(bidder)).toBe(parseEther("0.01"));
    const again = await h.tx(OUTSIDER, "depositManager", "topUpDeposit", [P0], { to: bidder });
    expect(h.events(again, "depositManager", "CurrentBalanceAtOrBelowMin", bidder)[0]!.args).toEqual({
      provider: P0,
      currentBalance: parseEther("0.01"),
      minBalance: parseEther("0.01"),
    });
  });

  test("the delegate accepts ether, its fallback reverts", async () => {
    const bidder = addr(BIDDER);
    await delegate(BIDDER, h.addresses.depositManager);
    const before = await h.balance(bidder);
    const hash = await h.wallet(OUTSIDER).sendTransaction({ to: bidder, value: 7n });
    await h.publicClient.waitForTransactionReceipt({ hash });
    expect(await h.balance(bidder)).toBe(before + 7n);
    await h.expectRevert(
      h.tx(OUTSIDER, "depositManager", "setTargetDeposits", [[P0], [1n, 2n]], { to: bidder }),
      "NotThisEOA",
    );
    let err: unknown;
    try {
      await h.wallet(OUTSIDER).sendTransaction({ to: bidder, data: "0xdeadbeef" });
    } catch (e) {
      err = e;
    }
    expect(String((err as Error)?.message)).toMatch(/revert/i);
  });
});
