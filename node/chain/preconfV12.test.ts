/**
 * The v1.2 PreconfManager, BidderRegistry settlement, ProviderRegistry and BlockTracker on a real Prague Anvil:
 * the bid digest vectors of upstream-head-delta.md §2.6 (in TS and on-chain), opening with bid options (escrow on
 * deposits[bidder][committer], BidAmountReduced, the DepositManager top-up on open and TopUpFailed), and the §2.7
 * money flows of reward, slash and slash with a short stake, to the wei.
 */
import { describe, expect, test } from "bun:test";
import {
  type Address,
  encodeDeployData,
  encodeFunctionData,
  type Hex,
  hexToBigInt,
  parseEther,
  zeroAddress,
} from "viem";
import type { BidInput } from "../testing/chainHarness.ts";
import { addr, domainSeparator, key } from "../testing/chainHarness.ts";
import {
  type BuiltCommitmentV12,
  bidDigestV12,
  buildCommitmentV12,
  type HarnessV12,
  v12ChainPerTestFile,
} from "../testing/chainHarnessV12.ts";
import { VECTOR } from "../testing/testVectors.ts";
import { ROLES } from "./accounts.ts";
import { compileV12Contracts } from "./compileV12.ts";
import { depositManagerV12Abi } from "./contractsV12.ts";
import { builderKeyFor } from "./deploy.ts";

const OWNER = ROLES.owner;
const ORACLE = ROLES.oracle;
const BIDDER = ROLES.bidder;
const P0i = ROLES.firstProvider;
const P0 = addr(P0i);
const P1 = addr(ROLES.firstProvider + 1);
const OUTSIDER = 8;
const ONE = parseEther("1");

let h: HarnessV12;
v12ChainPerTestFile({ name: "preconf-v12", providers: 2 }, (x) => (h = x));

const vectorBid = {
  txnHash: VECTOR.bidFields.txnHash,
  revertingTxHashes: VECTOR.bidFields.revertingTxHashes,
  bidAmt: VECTOR.bidFields.bidAmt,
  blockNumber: VECTOR.bidFields.blockNumber,
  decayStartTimeStamp: VECTOR.bidFields.decayStart,
  decayEndTimeStamp: VECTOR.bidFields.decayEnd,
  slashAmt: VECTOR.bidFields.slashAmt,
  bidderPKx: VECTOR.bidFields.bidderPK.x,
  bidderPKy: VECTOR.bidFields.bidderPK.y,
};
const DIGEST_WITH_OPTIONS = "0x63fc79776bb6995561cf5850551f6abf99471e5130bd3785feff90285f7dda26";
const DIGEST_WITHOUT_OPTIONS = "0xabfb28441e35ddbe17a41f3d306127fb6049dcc46a3ebbc9c68719f370dc2784";

/** Dispatch at 1250 ms with decay 1000 → 2000: residual 0.75e18 (the dispatch window is widened for it). */
const RESIDUAL = parseEther("0.75");

async function openedCommitment(opts: {
  bid: BidInput;
  deposit?: bigint;
  bidOptions?: Hex;
  opener?: "provider" | "bidder";
}): Promise<{ c: BuiltCommitmentV12; open: Awaited<ReturnType<HarnessV12["tx"]>> }> {
  if (opts.deposit) await h.tx(BIDDER, "bidderRegistry", "depositAsBidder", [P0], { value: opts.deposit });
  await h.tx(OWNER, "preconfManager", "updateCommitmentDispatchWindow", [2n ** 64n - 1n]);
  const c = await buildCommitmentV12({
    chainId: h.chainId,
    preconfManager: h.addresses.preconfManager,
    bidderKey: key(BIDDER),
    providerKey: key(P0i),
    bid: opts.bid,
    bidOptions: opts.bidOptions,
  });
  await h.tx(P0i, "preconfManager", "storeUnopenedCommitment", [c.commitmentDigest, c.commitmentSignature, 1250n]);
  await h.recordWinner(opts.bid.blockNumber, P0);
  const opener = opts.opener ?? "provider";
  const open = await h.tx(opener === "provider" ? P0i : BIDDER, "preconfManager", "openCommitment", [
    c.openParams(opener),
  ]);
  return { c, open };
}

const settle = (idx: Hex, block: bigint, isSlash: boolean, residual = RESIDUAL) =>
  h.tx(ORACLE, "oracle", "processBuilderCommitmentForBlockNumber", [idx, block, P0, isSlash, residual]);

const exampleBid = (over: Partial<BidInput> = {}): BidInput => ({
  bidAmt: ONE,
  blockNumber: 5n,
  decayStartTimeStamp: 1000n,
  decayEndTimeStamp: 2000n,
  slashAmt: parseEther("0.1"),
  ...over,
});

async function delegateWithTarget(impl: Address, target: bigint) {
  const w = h.wallet(BIDDER);
  const authorization = await w.signAuthorization({ contractAddress: impl, executor: "self" });
  const data = encodeFunctionData({ abi: depositManagerV12Abi, functionName: "setTargetDeposit", args: [P0, target] });
  const hash = await w.sendTransaction({ authorizationList: [authorization], to: addr(BIDDER), data });
  expect((await h.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
}

describe("bid digest (§2.6)", () => {
  test("the vectors: options 0x1234 and none", () => {
    expect(bidDigestV12(vectorBid, "0x1234", VECTOR.chainId, VECTOR.preconfManager)).toBe(DIGEST_WITH_OPTIONS);
    expect(bidDigestV12(vectorBid, "0x", VECTOR.chainId, VECTOR.preconfManager)).toBe(DIGEST_WITHOUT_OPTIONS);
  });

  test("getBidHash on-chain gives the vectors under the vector contract's domain", async () => {
    // Slot 2 holds domainSeparatorBid (after Owned's owner and domainSeparatorPreconf): point it at the vector's
    // verifying contract, so the deployed code hashes exactly the vector's inputs.
    const slot = "0x0000000000000000000000000000000000000000000000000000000000000002";
    expect(await h.publicClient.getStorageAt({ address: h.addresses.preconfManager, slot })).toBe(
      await h.read<Hex>("preconfManager", "domainSeparatorBid"),
    );
    await h.testClient.setStorageAt({
      address: h.addresses.preconfManager,
      index: slot,
      value: domainSeparator("PreConfBid", VECTOR.chainId, VECTOR.preconfManager),
    });
    const params = (bidOptions: Hex) => ({
      unopenedCommitmentIndex: `0x${"00".repeat(32)}`,
      bidAmt: vectorBid.bidAmt,
      slashAmt: vectorBid.slashAmt,
      blockNumber: vectorBid.blockNumber,
      decayStartTimeStamp: vectorBid.decayStartTimeStamp,
      decayEndTimeStamp: vectorBid.decayEndTimeStamp,
      txnHash: vectorBid.txnHash,
      revertingTxHashes: vectorBid.revertingTxHashes,
      bidSignature: "0x",
      zkProof: [0n, 0n, 1n, 2n, 0n, 0n, 0n, 0n],
      bidOptions,
    });
    expect(await h.read("preconfManager", "getBidHash", [params("0x1234")])).toBe(DIGEST_WITH_OPTIONS);
    expect(await h.read("preconfManager", "getBidHash", [params("0x")])).toBe(DIGEST_WITHOUT_OPTIONS);
  });
});

describe("openCommitment", () => {
  test("escrows the bid on deposits[bidder][committer] and stores the bid options", async () => {
    const { c, open } = await openedCommitment({
      bid: exampleBid({ bidAmt: parseEther("0.3") }),
      deposit: ONE,
      bidOptions: "0x1234",
    });
    expect(await h.read("bidderRegistry", "getDeposit", [addr(BIDDER), P0])).toBe(parseEther("0.7"));
    expect(await h.read("bidderRegistry", "getEscrowedAmount", [addr(BIDDER), P0])).toBe(parseEther("0.3"));
    expect(h.events(open, "bidderRegistry", "BidAmountReduced")).toEqual([]);
    const stored = h.events(open, "preconfManager", "OpenedCommitmentStored")[0]!.args;
    expect([
      stored.commitmentIndex,
      stored.bidder,
      stored.committer,
      stored.bidAmt,
      stored.dispatchTimestamp,
      stored.bidOptions,
    ]).toEqual([c.index, addr(BIDDER), P0, parseEther("0.3"), 1250n, "0x1234"]);
    const got = await h.read<{ bidOptions: Hex; bidAmt: bigint }>("preconfManager", "getCommitment", [c.index]);
    expect([got.bidOptions, got.bidAmt]).toEqual(["0x1234", parseEther("0.3")]);
    const tuple = await h.read<unknown[]>("preconfManager", "openedCommitments", [c.index]);
    expect([tuple.length, tuple[13]]).toEqual([14, "0x1234"]);
    expect(await h.read("preconfManager", "getOpenedCommitmentIndex", [got])).toBe(c.index);
  });

  test("a bid above the available deposit is reduced to it (BidAmountReduced) and the commitment keeps the reduced amount", async () => {
    const { c, open } = await openedCommitment({
      bid: exampleBid({ bidAmt: ONE }),
      deposit: parseEther("0.4"),
      opener: "bidder",
    });
    expect(h.events(open, "bidderRegistry", "BidAmountReduced")[0]!.args).toEqual({
      bidder: addr(BIDDER),
      provider: P0,
      newBidAmt: parseEther("0.4"),
    });
    expect((await h.read<{ bidAmt: bigint }>("preconfManager", "getCommitment", [c.index])).bidAmt).toBe(
      parseEther("0.4"),
    );
    expect(await h.read("bidderRegistry", "getDeposit", [addr(BIDDER), P0])).toBe(0n);
    expect(await h.read("bidderRegistry", "getEscrowedAmount", [addr(BIDDER), P0])).toBe(parseEther("0.4"));
  });

  test("without a deposit manager implementation every open reverts DepositManagerNotSet", async () => {
    await h.tx(OWNER, "bidderRegistry", "setDepositManagerImpl", [zeroAddress]);
    await h.expectRevert(openedCommitment({ bid: exampleBid(), deposit: ONE }), "DepositManagerNotSet");
  });

  test("a bidder delegated to the DepositManager is topped up to its target when a bid is opened; refunds reach the EOA", async () => {
    await delegateWithTarget(h.addresses.depositManager, ONE);
    await h.tx(BIDDER, "bidderRegistry", "depositAsBidder", [P0], { value: ONE });
    const eoaBefore = await h.balance(addr(BIDDER));
    const { c, open } = await openedCommitment({ bid: exampleBid({ bidAmt: parseEther("0.3") }) });
    expect(h.events(open, "depositManager", "DepositToppedUp", addr(BIDDER))[0]!.args).toEqual({
      provider: P0,
      amount: parseEther("0.3"),
    });
    expect(h.events(open, "bidderRegistry", "TopUpFailed")).toEqual([]);
    expect(await h.read("bidderRegistry", "getDeposit", [addr(BIDDER), P0])).toBe(ONE);
    expect(await h.read("bidderRegistry", "getEscrowedAmount", [addr(BIDDER), P0])).toBe(parseEther("0.3"));
    // The provider opened, so the EOA paid exactly the top-up.
    expect(await h.balance(addr(BIDDER))).toBe(eoaBefore - parseEther("0.3"));
    // The 2300-gas refund push reaches the delegated EOA (its receive accepts ether): slashAmt 0.1 + the 0.3 bid.
    await settle(c.index, 5n, true);
    expect(await h.balance(addr(BIDDER))).toBe(eoaBefore - parseEther("0.3") + parseEther("0.4"));
    expect(await h.read("bidderRegistry", "getDeposit", [addr(BIDDER), P0])).toBe(ONE);
  });

  test("a failing top-up emits TopUpFailed and the open still succeeds", async () => {
    // A delegate whose registry is BlockTracker: its top-up reverts (BlockTracker's fallback), openBid catches it.
    const compiled = await compileV12Contracts();
    const hash = await h.wallet(OWNER).sendTransaction({
      data: encodeDeployData({
        abi: depositManagerV12Abi,
        bytecode: compiled.contracts.DepositManager.bytecode,
        args: [h.addresses.blockTracker, 0n],
      }),
    });
    const broken = (await h.publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
    await h.tx(OWNER, "bidderRegistry", "setDepositManagerImpl", [broken]);
    await delegateWithTarget(broken, ONE);
    const { open } = await openedCommitment({ bid: exampleBid({ bidAmt: parseEther("0.3") }), deposit: ONE });
    expect(h.events(open, "bidderRegistry", "TopUpFailed")[0]!.args).toEqual({ bidder: addr(BIDDER), provider: P0 });
    expect(await h.read("bidderRegistry", "getDeposit", [addr(BIDDER), P0])).toBe(parseEther("0.7"));
  });
});

describe("settlement (§2.7: bid 1 ETH, residual 0.75, slashAmt 0.1)", () => {
  test("reward: provider +0.735, protocol fee 0.015, 0.25 to the bidder EOA, escrow emptied", async () => {
    const { c } = await openedCommitment({ bid: exampleBid(), deposit: parseEther("2") });
    const bidderBefore = await h.balance(addr(BIDDER));
    const r = await settle(c.index, 5n, false);
    expect(h.events(r, "bidderRegistry", "FundsRewarded")[0]!.args).toEqual({
      commitmentDigest: c.commitmentDigest,
      bidder: addr(BIDDER),
      provider: P0,
      amount: parseEther("0.75"),
    });
    expect(await h.read("bidderRegistry", "getProviderAmount", [P0])).toBe(parseEther("0.735"));
    expect(await h.read("bidderRegistry", "getAccumulatedProtocolFee")).toBe(parseEther("0.015"));
    expect(await h.balance(addr(BIDDER))).toBe(bidderBefore + parseEther("0.25"));
    expect(await h.read("bidderRegistry", "getEscrowedAmount", [addr(BIDDER), P0])).toBe(0n);
    expect(await h.read("bidderRegistry", "getDeposit", [addr(BIDDER), P0])).toBe(ONE);
    expect(await h.read("bidderRegistry", "bidPayment", [c.commitmentDigest])).toEqual([addr(BIDDER), 0n, 2]);
  });

  test("slash: stake −0.105 (0.1 to the bidder, 0.005 penalty), the whole 1 ETH bid to the bidder EOA", async () => {
    const { c } = await openedCommitment({ bid: exampleBid(), deposit: parseEther("2") });
    const bidderBefore = await h.balance(addr(BIDDER));
    const r = await settle(c.index, 5n, true);
    expect(h.events(r, "oracle", "CommitmentProcessed")[0]!.args).toEqual({ commitmentIndex: c.index, isSlash: true });
    expect(h.events(r, "providerRegistry", "FundsSlashed")[0]!.args).toEqual({
      provider: P0,
      amount: parseEther("0.105"),
    });
    expect(h.events(r, "providerRegistry", "InsufficientFundsToSlash")).toEqual([]);
    expect(h.events(r, "bidderRegistry", "FundsUnlocked")[0]!.args).toEqual({
      commitmentDigest: c.commitmentDigest,
      bidder: addr(BIDDER),
      provider: P0,
      amount: ONE,
    });
    expect(await h.read("providerRegistry", "getProviderStake", [P0])).toBe(parseEther("10") - parseEther("0.105"));
    expect(await h.read("providerRegistry", "getAccumulatedPenaltyFee")).toBe(parseEther("0.005"));
    expect(await h.balance(addr(BIDDER))).toBe(bidderBefore + parseEther("1.1"));
    expect(await h.read("bidderRegistry", "getEscrowedAmount", [addr(BIDDER), P0])).toBe(0n);
    expect(await h.read("bidderRegistry", "getDeposit", [addr(BIDDER), P0])).toBe(ONE);
  });

  test("slash with a short stake: the bidder is paid first (capped at the stake), the penalty gets the rest", async () => {
    const { c } = await openedCommitment({ bid: exampleBid({ slashAmt: parseEther("12") }), deposit: parseEther("2") });
    const bidderBefore = await h.balance(addr(BIDDER));
    const r = await settle(c.index, 5n, true);
    expect(h.events(r, "providerRegistry", "InsufficientFundsToSlash")[0]!.args).toEqual({
      provider: P0,
      providerStake: parseEther("10"),
      penaltyFee: parseEther("0.6"),
      bidderPortion: parseEther("12"),
    });
    expect(h.events(r, "providerRegistry", "FundsSlashed")[0]!.args).toEqual({
      provider: P0,
      amount: parseEther("10"),
    });
    expect(await h.read("providerRegistry", "getProviderStake", [P0])).toBe(0n);
    expect(await h.read("providerRegistry", "getAccumulatedPenaltyFee")).toBe(0n);
    expect(await h.balance(addr(BIDDER))).toBe(bidderBefore + parseEther("10") + ONE);
  });
});

describe("ProviderRegistry and BlockTracker", () => {
  test("areProvidersValid; overrideAddBLSKey refuses a mapped key; overrideRemoveBLSKey", async () => {
    expect(await h.read("providerRegistry", "areProvidersValid", [[P0, P1, addr(OUTSIDER)]])).toEqual([
      true,
      true,
      false,
    ]);
    const k0 = builderKeyFor(P0);
    expect(
      await h.expectRevert(h.tx(OWNER, "providerRegistry", "overrideAddBLSKey", [P1, k0]), "BLSKeyAlreadyExists"),
    ).toEqual([k0]);
    await h.expectRevert(h.tx(OWNER, "providerRegistry", "overrideRemoveBLSKey", [P1, k0]), "BLSKeyDoesNotExist");
    const r = await h.tx(OWNER, "providerRegistry", "overrideRemoveBLSKey", [P0, k0]);
    expect(h.events(r, "providerRegistry", "BLSKeyRemoved")[0]!.args).toEqual({ provider: P0, blsPublicKey: k0 });
    expect(await h.read("providerRegistry", "getEoaFromBLSKey", [k0])).toBe(zeroAddress);
    expect(await h.read("providerRegistry", "getBLSKeys", [P0])).toEqual([]);
    expect(await h.read("providerRegistry", "areProvidersValid", [[P0, P1]])).toEqual([false, true]);
    const a = await h.tx(OWNER, "providerRegistry", "overrideAddBLSKey", [P1, k0]);
    expect(h.events(a, "providerRegistry", "BLSKeyAdded")[0]!.args).toEqual({ provider: P1, blsPublicKey: k0 });
  });

  test("recordL1Block records the winner and emits NewL1Block(blockNumber, winner)", async () => {
    const r = await h.recordWinner(123n, P1);
    expect(h.events(r, "blockTracker", "NewL1Block")[0]!.args).toEqual({ blockNumber: 123n, winner: P1 });
    expect(await h.read("blockTracker", "getBlockWinner", [123n])).toBe(P1);
    expect(hexToBigInt(r.logs[0]!.topics[1]!)).toBe(123n);
  });
});
