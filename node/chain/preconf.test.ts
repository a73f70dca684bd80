/**
 * PreconfManager and Oracle against a real automining Anvil: store + open of commitments (digests computed in
 * the test), ZK proof for the winner, per-block cap, replay guard, reward and slash maths (the worked example of
 * crypto-contracts.md §2), insufficient-stake ordering, failed pushes, and the Oracle gate.
 */

import { describe, expect, test } from "bun:test";
import { type Address, encodeAbiParameters, type Hex, keccak256, parseEther, zeroAddress } from "viem";
import {
  addr,
  type BidInput,
  type BuiltCommitment,
  buildCommitment,
  chainPerTestFile,
  commitmentIndex,
  type Harness,
  key,
} from "../testing/chainHarness.ts";
import { VECTOR } from "../testing/testVectors.ts";
import { ROLES } from "./accounts.ts";
import { registerProvider } from "./deploy.ts";

const OWNER = ROLES.owner;
const ORACLE = ROLES.oracle;
const BIDDER = ROLES.bidder;
const P0 = ROLES.firstProvider;
const P1 = ROLES.firstProvider + 1;
const OUTSIDER = 7;
const ONE = 10n ** 18n;

let h: Harness;
chainPerTestFile({ name: "preconf", chainId: 31337, providers: 2 }, (x) => (h = x));

/** A dispatch time (ms) inside the 500 ms window of the next block, whatever the chain's clock offset. */
async function dispatchNow(): Promise<bigint> {
  const latest = await h.publicClient.getBlock();
  const wall = BigInt(Date.now());
  const chain = latest.timestamp * 1000n + 999n;
  return wall > chain ? wall : chain;
}

/** Residual as the off-chain oracle computes it (§2). */
function residual(start: bigint, end: bigint, dispatch: bigint): bigint {
  if (start >= end || dispatch >= end) return 0n;
  if (dispatch < start) return ONE;
  const r = ((end - dispatch) * ONE) / (end - start);
  return r > ONE ? ONE : r;
}

async function build(
  bid: BidInput,
  provider: number = P0,
  extra: Partial<Parameters<typeof buildCommitment>[0]> = {},
): Promise<BuiltCommitment> {
  return buildCommitment({
    chainId: h.chainId,
    preconfManager: h.addresses.preconfManager,
    bidderKey: key(BIDDER),
    providerKey: key(provider),
    bid,
    ...extra,
  });
}

async function store(c: BuiltCommitment, provider: number = P0, dispatch?: bigint) {
  return h.tx(provider, "preconfManager", "storeUnopenedCommitment", [
    c.commitmentDigest,
    c.commitmentSignature,
    dispatch ?? (await dispatchNow()),
  ]);
}

const open = (c: BuiltCommitment, sender: number, proof: "provider" | "bidder") =>
  h.tx(sender, "preconfManager", "openCommitment", [c.openParams(proof)]);

const settle = (idx: Hex, block: bigint, builder: Address, isSlash: boolean, res: bigint) =>
  h.tx(ORACLE, "oracle", "processBuilderCommitmentForBlockNumber", [idx, block, builder, isSlash, res]);

/** Deposit, build, store, record winner, open: the usual path up to an opened commitment. */
async function openedCommitment(opts: {
  bid: BidInput;
  deposit?: bigint;
  provider?: number;
  opener?: "provider" | "bidder";
  dispatch?: bigint;
}): Promise<BuiltCommitment> {
  const provider: number = opts.provider ?? P0;
  const window = (opts.bid.blockNumber - 1n) / 10n + 1n;
  if (opts.deposit) await h.tx(BIDDER, "bidderRegistry", "depositForWindow", [window], opts.deposit);
  const c = await build(opts.bid, provider);
  await store(c, provider, opts.dispatch);
  if ((await h.read.blockTracker.read.getBlockWinner([opts.bid.blockNumber])) !== addr(provider)) {
    await h.recordWinner(opts.bid.blockNumber, addr(provider));
  }
  const opener = opts.opener ?? "provider";
  await open(c, opener === "provider" ? provider : BIDDER, opener);
  return c;
}

describe("storeUnopenedCommitment", () => {
  test("stores digest, signature and dispatch time under keccak(digest ‖ sig)", async () => {
    const c = await build({ bidAmt: ONE, blockNumber: 5n });
    const dispatch = await dispatchNow();
    const r = await store(c, P0, dispatch);
    const idx = commitmentIndex(c.commitmentDigest, c.commitmentSignature);
    expect(h.events(r, "preconfManager", "UnopenedCommitmentStored")[0]!.args).toEqual({
      commitmentIndex: idx,
      committer: addr(P0),
      commitmentDigest: c.commitmentDigest,
      commitmentSignature: c.commitmentSignature,
      dispatchTimestamp: dispatch,
    });
    const u = await h.read.preconfManager.read.getUnopenedCommitment([idx]);
    expect(u).toEqual({
      isOpened: false,
      committer: addr(P0),
      dispatchTimestamp: dispatch,
      commitmentDigest: c.commitmentDigest,
      commitmentSignature: c.commitmentSignature,
    });
    expect(await h.read.preconfManager.read.getUnopenedCommitmentIndex([u])).toBe(idx);
    expect((await h.read.preconfManager.read.unopenedCommitments([idx]))[1]).toBe(addr(P0));
    await h.expectRevert(store(c, P0, dispatch), "UnopenedCommitmentAlreadyExists");
  });

  test("rejects a non-signer sender, an unstaked signer, a stale dispatch time, a malformed signature", async () => {
    const c = await build({ bidAmt: ONE, blockNumber: 5n });
    const e = await h.expectRevert(store(c, P1), "SenderIsNotCommitter");
    expect(e.args).toEqual([addr(P0), addr(P1)]);

    const byOutsider = await build({ bidAmt: ONE, blockNumber: 5n }, OUTSIDER);
    // The registry's error bubbles up through PreconfManager and is still decoded.
    const e2 = await h.expectRevert(store(byOutsider, OUTSIDER), "InsufficientStake");
    expect(e2.text).toBe(`InsufficientStake(stake=0, minStake=${parseEther("10")})`);

    const latest = await h.publicClient.getBlock();
    const stale = latest.timestamp * 1000n - 10_000n;
    const e3 = await h.expectRevert(store(c, P0, stale), "InvalidDispatchTimestamp");
    expect(e3.args[1]).toBe(stale);

    await h.expectRevert(
      h.tx(P0, "preconfManager", "storeUnopenedCommitment", [c.commitmentDigest, "0x1234", await dispatchNow()]),
      "ECDSAInvalidSignatureLength",
    );
    // v = 0/1 (go-ethereum raw form) is rejected on-chain: must be 27/28.
    const raw01 = `${c.commitmentSignature.slice(0, -2)}${c.commitmentSignature.endsWith("1b") ? "00" : "01"}` as Hex;
    await h.expectRevert(
      h.tx(P0, "preconfManager", "storeUnopenedCommitment", [c.commitmentDigest, raw01, await dispatchNow()]),
      "ECDSAInvalidSignature",
    );
  });

  test("a provider with a pending unstake cannot store", async () => {
    await h.tx(P0, "providerRegistry", "unstake");
    const c = await build({ bidAmt: ONE, blockNumber: 5n });
    await h.expectRevert(store(c), "PendingWithdrawalRequest");
  });
});

describe("openCommitment", () => {
  test("bidder opens with a zero proof; commitment, counters and bid lock are recorded", async () => {
    await h.tx(BIDDER, "bidderRegistry", "depositForWindow", [1n], parseEther("10"));
    const dispatch = await dispatchNow();
    const c = await build({
      bidAmt: ONE,
      blockNumber: 5n,
      slashAmt: parseEther("0.1"),
      txnHash: "aa,bb",
      revertingTxHashes: "bb",
    });
    await store(c, P0, dispatch);
    await h.recordWinner(5n, addr(P0));
    const pm = h.read.preconfManager;
    expect(await pm.read.getBidHash([c.openParams("bidder")])).toBe(c.bidDigest);
    expect(await pm.read.getPreConfHash([c.bidDigest, c.bidSignature, c.bidderProof])).toBe(c.commitmentDigest);
    expect(
      await pm.read.verifyPreConfCommitment([
        {
          txnHash: c.bid.txnHash,
          revertingTxHashes: c.bid.revertingTxHashes,
          bidAmt: c.bid.bidAmt,
          slashAmt: c.bid.slashAmt,
          blockNumber: c.bid.blockNumber,
          decayStartTimeStamp: c.bid.decayStartTimeStamp,
          decayEndTimeStamp: c.bid.decayEndTimeStamp,
          bidHash: c.bidDigest,
          bidSignature: c.bidSignature,
          commitmentSignature: c.commitmentSignature,
          zkProof: c.bidderProof,
        },
      ]),
    ).toEqual([c.commitmentDigest, addr(P0)]);

    const r = await open(c, BIDDER, "bidder");
    expect(h.events(r, "preconfManager", "OpenedCommitmentStored")[0]!.args).toEqual({
      commitmentIndex: c.index,
      bidder: addr(BIDDER),
      committer: addr(P0),
      bidAmt: ONE,
      slashAmt: parseEther("0.1"),
      blockNumber: 5n,
      decayStartTimeStamp: 1000n,
      decayEndTimeStamp: 2000n,
      txnHash: "aa,bb",
      revertingTxHashes: "bb",
      commitmentDigest: c.commitmentDigest,
      dispatchTimestamp: dispatch,
    });
    const stored = await pm.read.getCommitment([c.index]);
    expect(stored).toEqual({
      bidder: addr(BIDDER),
      isSettled: false,
      blockNumber: 5n,
      decayStartTimeStamp: 1000n,
      decayEndTimeStamp: 2000n,
      dispatchTimestamp: dispatch,
      committer: addr(P0),
      bidAmt: ONE,
      slashAmt: parseEther("0.1"),
      commitmentDigest: c.commitmentDigest,
      commitmentSignature: c.commitmentSignature,
      txnHash: "aa,bb",
      revertingTxHashes: "bb",
    });
    expect(await pm.read.getOpenedCommitmentIndex([stored])).toBe(c.index);
    expect(await pm.read.getTxnHashFromCommitment([c.index])).toBe("aa,bb");
    expect((await pm.read.getUnopenedCommitment([c.index])).isOpened).toBe(true);
    expect(await pm.read.commitmentsCount([addr(P0)])).toBe(1n);
    const replayKey = keccak256(
      encodeAbiParameters([{ type: "string" }, { type: "address" }, { type: "uint64" }], ["aa,bb", addr(BIDDER), 5n]),
    );
    expect(await pm.read.processedTxnHashes([replayKey])).toBe(true);

    const br = h.read.bidderRegistry;
    expect(await br.read.bidPayment([c.commitmentDigest])).toEqual([addr(BIDDER), ONE, 1]);
    expect(await br.read.usedFunds([addr(BIDDER), 5n])).toBe(ONE);
    expect(await br.read.getDeposit([addr(BIDDER), 1n])).toBe(parseEther("9"));
  });

  test("the winning provider must send a valid ZK proof", async () => {
    await h.tx(BIDDER, "bidderRegistry", "depositForWindow", [1n], parseEther("10"));
    const c = await build({ bidAmt: ONE, blockNumber: 5n });
    await store(c);
    await h.recordWinner(5n, addr(P0));
    const e = await h.expectRevert(open(c, P0, "bidder"), "ProviderZKProofInvalid");
    expect(e.args).toEqual([addr(P0), c.commitmentDigest]);
    const tampered = { ...c.openParams("provider") };
    tampered.zkProof = [...tampered.zkProof];
    tampered.zkProof[7] = (tampered.zkProof[7]! + 1n) % (1n << 253n);
    await h.expectRevert(h.tx(P0, "preconfManager", "openCommitment", [tampered]), "ProviderZKProofInvalid");
    const r = await open(c, P0, "provider");
    expect(h.events(r, "preconfManager", "OpenedCommitmentStored")[0]!.args.committer).toBe(addr(P0));
  });

  test("the §1.6 ZK proof vector (A = B = C = (1,2)) verifies on chain 31337", async () => {
    await h.tx(BIDDER, "bidderRegistry", "depositForWindow", [1n], parseEther("10"));
    const c = await build({ bidAmt: ONE, blockNumber: 5n }, P0, {
      bidderPk: { x: 1n, y: 2n },
      sharedKey: { x: 1n, y: 2n },
    });
    await store(c);
    await h.recordWinner(5n, addr(P0));
    const params = c.openParams("provider");
    params.zkProof = [...VECTOR.zkProof];
    await h.tx(P0, "preconfManager", "openCommitment", [params]);
    expect(await h.read.preconfManager.read.commitmentsCount([addr(P0)])).toBe(1n);
  });

  test("per-block cap = deposit / 10: bids are capped to what is left, never reverted", async () => {
    await h.tx(BIDDER, "bidderRegistry", "depositForWindow", [1n], parseEther("1"));
    const a = await openedCommitment({ bid: { bidAmt: parseEther("0.3"), blockNumber: 5n, txnHash: "01" } });
    expect((await h.read.preconfManager.read.getCommitment([a.index])).bidAmt).toBe(parseEther("0.1"));
    const c = await build({ bidAmt: parseEther("0.05"), blockNumber: 5n, txnHash: "02" });
    await store(c);
    const r = await open(c, P0, "provider");
    expect(h.events(r, "preconfManager", "OpenedCommitmentStored")[0]!.args.bidAmt).toBe(0n);
    const d = await openedCommitment({ bid: { bidAmt: parseEther("0.05"), blockNumber: 6n, txnHash: "03" } });
    expect((await h.read.preconfManager.read.getCommitment([d.index])).bidAmt).toBe(parseEther("0.05"));
    expect(await h.read.bidderRegistry.read.usedFunds([addr(BIDDER), 5n])).toBe(parseEther("0.1"));
    expect(await h.read.bidderRegistry.read.getDeposit([addr(BIDDER), 1n])).toBe(parseEther("0.85"));
    // Without any deposit the bid locks 0 and still opens.
    const z = await openedCommitment({ bid: { bidAmt: ONE, blockNumber: 25n, txnHash: "04" } });
    expect((await h.read.preconfManager.read.getCommitment([z.index])).bidAmt).toBe(0n);
  });

  test("order of checks: decay, winner, sender, digest; replay guard across providers", async () => {
    await h.tx(BIDDER, "bidderRegistry", "depositForWindow", [1n], parseEther("10"));
    const bad = await build({ bidAmt: ONE, blockNumber: 5n, decayStartTimeStamp: 2000n, decayEndTimeStamp: 2000n });
    await h.expectRevert(open(bad, BIDDER, "bidder"), "InvalidDecayTime");

    const c = await build({ bidAmt: ONE, blockNumber: 5n, txnHash: "cafe" });
    await store(c);
    const e = await h.expectRevert(open(c, BIDDER, "bidder"), "WinnerIsNotCommitter");
    expect(e.args).toEqual([addr(P0), zeroAddress]);
    await h.recordWinner(5n, addr(P1));
    const e2 = await h.expectRevert(open(c, BIDDER, "bidder"), "WinnerIsNotCommitter");
    expect(e2.args).toEqual([addr(P0), addr(P1)]);
    await h.recordWinner(5n, addr(P0));
    const e3 = await h.expectRevert(open(c, OUTSIDER, "bidder"), "UnauthorizedOpenCommitment");
    expect(e3.args).toEqual([addr(P0), addr(BIDDER), addr(OUTSIDER)]);
    // Changed bid fields → different digest than the one stored.
    const wrong = { ...c.openParams("bidder"), bidAmt: 2n * ONE };
    await h.expectRevert(h.tx(BIDDER, "preconfManager", "openCommitment", [wrong]), "InvalidCommitmentDigest");
    const unknown = { ...c.openParams("bidder"), unopenedCommitmentIndex: `0x${"00".repeat(32)}` as Hex };
    const e4 = await h.expectRevert(
      h.tx(BIDDER, "preconfManager", "openCommitment", [unknown]),
      "InvalidCommitmentDigest",
    );
    expect(e4.args).toEqual([`0x${"00".repeat(32)}`, c.commitmentDigest]);

    await open(c, BIDDER, "bidder");
    const again = await h.expectRevert(open(c, P0, "provider"), "TxnHashAlreadyProcessed");
    expect(again.text).toBe(`TxnHashAlreadyProcessed(txnHash=cafe, bidderAddress=${addr(BIDDER)})`);
    // Another provider's commitment to a bid with the same tx string, bidder and block: also refused.
    const other = await build({ bidAmt: ONE, blockNumber: 5n, txnHash: "cafe" }, P1);
    await store(other, P1);
    await h.expectRevert(open(other, BIDDER, "bidder"), "TxnHashAlreadyProcessed");
  });
});

describe("settlement (§2 worked example: bid 1 ETH, decay 1000→2000, dispatch 1250)", () => {
  const exampleBid: BidInput = {
    bidAmt: ONE,
    blockNumber: 5n,
    decayStartTimeStamp: 1000n,
    decayEndTimeStamp: 2000n,
    slashAmt: parseEther("0.1"),
  };
  const res = residual(1000n, 2000n, 1250n);

  async function exampleOpened(): Promise<BuiltCommitment> {
    // A dispatch time of 1250 ms (1970) is far outside the 500 ms window: widen it for the example.
    await h.tx(OWNER, "preconfManager", "updateCommitmentDispatchWindow", [2n ** 64n - 1n]);
    return openedCommitment({ bid: exampleBid, deposit: parseEther("10"), dispatch: 1250n });
  }

  test("residual is 0.75e18", () => {
    expect(res).toBe(750_000_000_000_000_000n);
  });

  test("reward: provider +0.735, protocol fee +0.015, bidder refund 0.25", async () => {
    const c = await exampleOpened();
    expect((await h.read.preconfManager.read.getCommitment([c.index])).dispatchTimestamp).toBe(1250n);
    const bidderBefore = await h.balance(addr(BIDDER));
    const r = await settle(c.index, 5n, addr(P0), false, res);
    expect(h.events(r, "oracle", "CommitmentProcessed")[0]!.args).toEqual({ commitmentIndex: c.index, isSlash: false });
    expect(h.events(r, "bidderRegistry", "FundsRewarded")[0]!.args).toEqual({
      commitmentDigest: c.commitmentDigest,
      bidder: addr(BIDDER),
      provider: addr(P0),
      window: 1n,
      amount: parseEther("0.75"),
    });
    const br = h.read.bidderRegistry;
    expect(await br.read.getProviderAmount([addr(P0)])).toBe(parseEther("0.735"));
    expect(await br.read.providerAmount([addr(P0)])).toBe(parseEther("0.735"));
    expect(await br.read.getAccumulatedProtocolFee()).toBe(parseEther("0.015"));
    expect(await h.balance(addr(BIDDER))).toBe(bidderBefore + parseEther("0.25"));
    expect(await br.read.bidPayment([c.commitmentDigest])).toEqual([addr(BIDDER), 0n, 2]);
    expect((await h.read.preconfManager.read.getCommitment([c.index])).isSettled).toBe(true);
    expect(await h.read.preconfManager.read.commitmentsCount([addr(P0)])).toBe(0n);

    const providerBefore = await h.balance(addr(P0));
    await h.tx(OUTSIDER, "bidderRegistry", "withdrawProviderAmount", [addr(P0)]);
    expect(await h.balance(addr(P0))).toBe(providerBefore + parseEther("0.735"));
    expect(await br.read.getProviderAmount([addr(P0)])).toBe(0n);

    const e = await h.expectRevert(settle(c.index, 5n, addr(P0), false, res), "CommitmentAlreadySettled");
    expect(e.args).toEqual([c.index]);

    // Owner can force the fee payout; the recipient is the owner by default.
    const ownerBefore = await h.balance(addr(OWNER));
    const w = await h.tx(OWNER, "bidderRegistry", "manuallyWithdrawProtocolFee");
    expect(h.events(w, "bidderRegistry", "FeeTransfer")[0]!.args).toEqual({
      amount: parseEther("0.015"),
      recipient: addr(OWNER),
    });
    expect(await h.balance(addr(OWNER))).toBe(ownerBefore + parseEther("0.015") - h.gasCost(w));
  });

  test("slash: stake −0.8875 (0.85 to the bidder, 0.0375 penalty) and the 1 ETH bid unlocked", async () => {
    const c = await exampleOpened();
    const bidderBefore = await h.balance(addr(BIDDER));
    const r = await settle(c.index, 5n, addr(P0), true, res);
    expect(h.events(r, "oracle", "CommitmentProcessed")[0]!.args).toEqual({ commitmentIndex: c.index, isSlash: true });
    expect(h.events(r, "providerRegistry", "FundsSlashed")[0]!.args).toEqual({
      provider: addr(P0),
      amount: parseEther("0.8875"),
    });
    expect(h.events(r, "providerRegistry", "InsufficientFundsToSlash")).toHaveLength(0);
    expect(h.events(r, "bidderRegistry", "FundsRetrieved")[0]!.args).toEqual({
      commitmentDigest: c.commitmentDigest,
      bidder: addr(BIDDER),
      window: 1n,
      amount: ONE,
    });
    expect(await h.read.providerRegistry.read.getProviderStake([addr(P0)])).toBe(
      parseEther("10") - parseEther("0.8875"),
    );
    expect(await h.read.providerRegistry.read.getAccumulatedPenaltyFee()).toBe(parseEther("0.0375"));
    expect(await h.balance(addr(BIDDER))).toBe(bidderBefore + parseEther("1.85"));
    expect(await h.read.bidderRegistry.read.getDeposit([addr(BIDDER), 1n])).toBe(parseEther("9"));
    expect(await h.read.preconfManager.read.commitmentsCount([addr(P0)])).toBe(0n);
    // P0 is now below minStake: no new commitments.
    await h.expectRevert(store(await build({ bidAmt: 1n, blockNumber: 7n })), "InsufficientStake");
  });

  test("insufficient stake: the bidder's portion is paid first, the penalty takes what is left", async () => {
    await h.tx(OWNER, "providerRegistry", "setMinStake", [parseEther("0.5")]);
    const small = [8, 9] as const; // two more providers, stakes 1.12 and 0.6 ETH
    const stakes = [parseEther("1.12"), parseEther("0.6")];
    for (const [i, p] of small.entries()) {
      await registerProvider({
        rpcUrl: h.rpcUrl,
        chainId: h.chainId,
        addresses: h.addresses,
        providerKey: key(p),
        ownerKey: key(OWNER),
        stake: stakes[i]!,
      });
    }
    await h.tx(BIDDER, "bidderRegistry", "depositForWindow", [1n], parseEther("20"));
    const bid = (txnHash: string, blockNumber: bigint): BidInput => ({
      bidAmt: ONE,
      blockNumber,
      slashAmt: parseEther("0.1"),
      txnHash,
    });

    // Stake 1.12 < 1.0 + 0.1 + 0.05: bidder gets 1.1, penalty 0.02.
    const a = await openedCommitment({ bid: bid("a1", 3n), provider: 8 });
    let before = await h.balance(addr(BIDDER));
    let r = await settle(a.index, 3n, addr(8), true, ONE);
    expect(h.events(r, "providerRegistry", "InsufficientFundsToSlash")[0]!.args).toEqual({
      provider: addr(8),
      providerStake: parseEther("1.12"),
      residualAmount: ONE,
      penaltyFee: parseEther("0.05"),
      slashAmt: parseEther("0.1"),
    });
    expect(h.events(r, "providerRegistry", "FundsSlashed")[0]!.args.amount).toBe(parseEther("1.12"));
    expect(await h.balance(addr(BIDDER))).toBe(before + parseEther("1.1") + ONE);
    expect(await h.read.providerRegistry.read.getAccumulatedPenaltyFee()).toBe(parseEther("0.02"));
    expect(await h.read.providerRegistry.read.getProviderStake([addr(8)])).toBe(0n);

    // Stake 0.6 < bidder portion 1.1: bidder gets all 0.6, no penalty.
    const b = await openedCommitment({ bid: bid("b1", 4n), provider: 9 });
    before = await h.balance(addr(BIDDER));
    r = await settle(b.index, 4n, addr(9), true, ONE);
    expect(h.events(r, "providerRegistry", "FundsSlashed")[0]!.args.amount).toBe(parseEther("0.6"));
    expect(await h.balance(addr(BIDDER))).toBe(before + parseEther("0.6") + ONE);
    expect(await h.read.providerRegistry.read.getAccumulatedPenaltyFee()).toBe(parseEther("0.02"));
  });

  test("a bidder that refuses ether: slash share kept for withdrawSlashedAmount, bid re-locked", async () => {
    const c = await exampleOpened();
    await h.testClient.setCode({ address: addr(BIDDER), bytecode: "0xfe" });
    const r = await settle(c.index, 5n, addr(P0), true, res);
    expect(h.events(r, "providerRegistry", "TransferToBidderFailed")[0]!.args).toEqual({
      bidder: addr(BIDDER),
      amount: parseEther("0.85"),
    });
    expect(h.events(r, "bidderRegistry", "TransferToBidderFailed")[0]!.args).toEqual({
      bidder: addr(BIDDER),
      amount: ONE,
    });
    expect(await h.read.providerRegistry.read.bidderSlashedAmount([addr(BIDDER)])).toBe(parseEther("0.85"));
    expect(await h.read.bidderRegistry.read.getDeposit([addr(BIDDER), 1n])).toBe(parseEther("10"));
    await h.testClient.setCode({ address: addr(BIDDER), bytecode: "0x" });
    const before = await h.balance(addr(BIDDER));
    const w = await h.tx(BIDDER, "providerRegistry", "withdrawSlashedAmount");
    expect(h.events(w, "providerRegistry", "BidderWithdrawSlashedAmount")[0]!.args).toEqual({
      bidder: addr(BIDDER),
      amount: parseEther("0.85"),
    });
    expect(await h.balance(addr(BIDDER))).toBe(before + parseEther("0.85") - h.gasCost(w));
  });

  test("a bidder that refuses ether on reward: the refund is re-locked in the window", async () => {
    const c = await exampleOpened();
    await h.testClient.setCode({ address: addr(BIDDER), bytecode: "0xfe" });
    await settle(c.index, 5n, addr(P0), false, res);
    await h.testClient.setCode({ address: addr(BIDDER), bytecode: "0x" });
    expect(await h.read.bidderRegistry.read.getDeposit([addr(BIDDER), 1n])).toBe(parseEther("9.25"));
  });
});

describe("Oracle gate", () => {
  test("oracle account only; builder must be the block winner; residual ≤ 100 %", async () => {
    const c = await openedCommitment({ bid: { bidAmt: ONE, blockNumber: 5n }, deposit: parseEther("10") });
    const e = await h.expectRevert(
      h.tx(BIDDER, "oracle", "processBuilderCommitmentForBlockNumber", [c.index, 5n, addr(P0), false, ONE]),
      "NotOracleAccount",
    );
    expect(e.args).toEqual([addr(BIDDER), addr(ORACLE)]);
    const e2 = await h.expectRevert(settle(c.index, 5n, addr(P1), false, ONE), "BuilderNotBlockWinner");
    expect(e2.text).toBe(`BuilderNotBlockWinner(blockWinner=${addr(P0)}, builder=${addr(P1)})`);
    const e3 = await h.expectRevert(
      settle(c.index, 5n, addr(P0), false, ONE + 1n),
      "ResidualBidPercentAfterDecayExceedsMax",
    );
    expect(e3.args).toEqual([ONE + 1n]);
    await h.expectRevert(h.tx(ORACLE, "preconfManager", "initiateReward", [c.index, ONE]), "SenderIsNotOracleContract");
    await h.expectRevert(h.tx(ORACLE, "preconfManager", "initiateSlash", [c.index, ONE]), "SenderIsNotOracleContract");
  });

  test("silent no-op when the commitment's block or committer does not match", async () => {
    const c = await openedCommitment({ bid: { bidAmt: ONE, blockNumber: 5n }, deposit: parseEther("10") });
    await h.recordWinner(6n, addr(P0));
    let r = await settle(c.index, 6n, addr(P0), false, ONE); // P0 won 6, but the commitment is for 5
    expect(h.events(r, "oracle", "CommitmentProcessed")).toHaveLength(0);
    expect(h.events(r, "bidderRegistry", "FundsRewarded")).toHaveLength(0);
    r = await settle(`0x${"77".repeat(32)}`, 5n, addr(P0), true, ONE); // unknown commitment
    expect(h.events(r, "oracle", "CommitmentProcessed")).toHaveLength(0);
    expect((await h.read.preconfManager.read.getCommitment([c.index])).isSettled).toBe(false);
    expect(await h.read.preconfManager.read.commitmentsCount([addr(P0)])).toBe(1n);
  });

  test("a provider with unsettled commitments cannot withdraw its stake until they settle", async () => {
    const c = await openedCommitment({ bid: { bidAmt: ONE, blockNumber: 5n }, deposit: parseEther("10") });
    await h.tx(P0, "providerRegistry", "unstake");
    await h.testClient.increaseTime({ seconds: 86_400 });
    await h.testClient.mine({ blocks: 1 });
    const e = await h.expectRevert(h.tx(P0, "providerRegistry", "withdraw"), "ProviderCommitmentsPending");
    expect(e.args).toEqual([addr(P0), 1n]);
    await settle(c.index, 5n, addr(P0), false, ONE);
    const w = await h.tx(P0, "providerRegistry", "withdraw");
    expect(h.events(w, "providerRegistry", "Withdraw")[0]!.args.amount).toBe(parseEther("10"));
  });
});
