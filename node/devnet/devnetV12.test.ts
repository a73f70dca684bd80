/**
 * A `--protocol v1.2` devnet (real Anvils on Prague, the v1.2 contracts, in-process nodes): what status, target and
 * banner say; the bidder's per-provider deposits at start; bids that the providers check per (bidder, provider); and
 * a v1.2 commitment (bid options in its digest) that the winning provider opens on the v1.2 PreconfManager and the
 * oracle settles: a reward, and a slash that pays the bidder the slash amount and the whole bid back.
 * A bundle that misses a position constraint of its bid options is rewarded there, and slashed on a devnet with
 * `--bid-options-slash-enabled`. The last case runs a v1.2 devnet over libp2p and gets a commitment from each provider.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Address, bytesToHex, createWalletClient, type Hex, keccak256, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccount, providerAccount, ROLES } from "../chain/accounts.ts";
import { localChain } from "../chain/clients.ts";
import { bidderRegistryV12Abi, preconfManagerV12Abi } from "../chain/contractsV12.ts";
import { localHttp } from "../chain/localHttp.ts";
import { NdjsonStream } from "../clients/ndjson.ts";
import { encodeBidOptions } from "../protocol/bidOptions.ts";
import { decayedAmount, ONE_HUNDRED_PERCENT, residualAfterDecay } from "../protocol/decay.ts";
import type { PerProviderBalanceCheck } from "../provider/bids/perProviderBalanceCheck.ts";
import { nikeKeyFromNodeKey } from "../provider/nikeKey.ts";
import { bidProviders } from "../testing/bidProviders.ts";
import { commitmentDigest, commitmentIndex, g1Base, g1Mul, randomScalar, signDigest } from "../testing/chainHarness.ts";
import { bidDigestV12 } from "../testing/chainHarnessV12.ts";
import type { CommitmentRecord } from "../tracker/record.ts";
import { banner } from "./banner.ts";
import { ensureBidderDepositsV12 } from "./contractsSetup.ts";
import { type LocalDevnet, startLocalDevnet } from "./localDevnet.ts";
import type { Devnet } from "./startDevnet.ts";

const DEPOSIT = parseEther("5");
/** Test bidders that are none of the devnet's own accounts (its bidder 2, providers 3…, roles 17–19, extra bidders 20…). */
const SLASH_BIDDER = devAccount(13);
const REWARD_BIDDER = devAccount(14);
/** A pending commitment of this bidder is in a block another provider wins, then its store fails. */
const REFUND_BIDDER = devAccount(12);
/** A stored commitment of this bidder in the same block shows when provider 0 has handled the block's winner. */
const SENTINEL_BIDDER = devAccount(11);
/** Bids with a position constraint its bundle misses. */
const CONSTRAINT_BIDDER = devAccount(16);
/** Sends the L1 transaction the rewarded commitment is for. */
const L1_SENDER = devAccount(15);

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

/**
 * A v1.2 commitment of provider 0 to a bid of `bidder` (v1.2 bid digest with `bidOptions`), signed with the
 * provider's real keys (its NIKE secret makes the shared key, so the provider node's own opening proof holds), as the
 * provider node records it.
 */
async function commitmentOfProvider0(
  d: Devnet,
  bidder: { address: Address; privateKey: Hex },
  bid: { txnHash: string; rawTransactions: string[]; bidAmt: bigint; slashAmt: bigint; blockNumber: bigint },
  bidOptions: Hex,
): Promise<CommitmentRecord> {
  const chainId = d.chains.settlement.chainId;
  const pm = d.contracts.preconfManager;
  const provider = providerAccount(0);
  const nike = nikeKeyFromNodeKey(provider.privateKey);
  const bidderPk = g1Base(randomScalar());
  const shared = g1Mul(bidderPk, nike.secret);
  const now = BigInt(Date.now());
  const fields = {
    txnHash: bid.txnHash,
    revertingTxHashes: "",
    bidAmt: bid.bidAmt,
    blockNumber: bid.blockNumber,
    decayStartTimeStamp: now - 10_000n,
    decayEndTimeStamp: now + 30_000n,
    slashAmt: bid.slashAmt,
    bidderPKx: bidderPk.x,
    bidderPKy: bidderPk.y,
  };
  const bidHash = bidDigestV12(fields, bidOptions, chainId, pm);
  const bidSignature = await signDigest(bidHash, bidder.privateKey);
  const digest = commitmentDigest(bidHash, bidSignature, shared.x, shared.y, chainId, pm);
  const signature = await signDigest(digest, provider.privateKey);
  const strip = (h: Hex) => h.slice(2).toLowerCase();
  return {
    digest: strip(digest),
    commitmentIndex: strip(commitmentIndex(digest, signature)),
    commitmentSignature: strip(signature),
    bidDigest: strip(bidHash),
    bidSignature: strip(bidSignature),
    bidder: strip(bidder.address),
    provider: strip(provider.address),
    txnHash: bid.txnHash,
    revertingTxHashes: "",
    rawTransactions: bid.rawTransactions,
    bidAmount: bid.bidAmt,
    blockNumber: bid.blockNumber,
    decayStart: fields.decayStartTimeStamp,
    decayEnd: fields.decayEndTimeStamp,
    dispatchTimestamp: now,
    slashAmount: bid.slashAmt,
    bidderPkX: bidderPk.x,
    bidderPkY: bidderPk.y,
    sharedX: shared.x,
    sharedY: shared.y,
    status: "pending",
    details: "",
    payment: "",
    refund: "",
    bidOptions: strip(bidOptions),
  };
}

/** Records the commitment at provider 0, which stores it on-chain; resolves once the chain has it. */
async function storeAtProvider0(d: Devnet, r: CommitmentRecord): Promise<void> {
  const p = d.providers[0]!;
  await p.commitments!.record(r);
  p.storer!.restore(r);
  await until("the commitment stored", 30_000, () => p.commitments!.get(r.digest)?.status === "stored" || undefined);
}

/** Mines the commitment's block with provider 0 as winner, then one more so the oracle (lag 1) records it. */
async function winAndSettle(d: Devnet, r: CommitmentRecord): Promise<CommitmentRecord> {
  const provider = providerAccount(0).address;
  await d.mine(Number(r.blockNumber - (await d.driver.blockNumber())), provider);
  await d.mine(1);
  return until("the commitment settled or slashed", 45_000, () => {
    const now = d.providers[0]!.commitments!.get(r.digest)!;
    if (now.status === "failed") throw new Error(`commitment failed: ${now.details}`);
    return now.status === "settled" || now.status === "slashed" ? now : undefined;
  });
}

/** A signed L1 transfer of `sender`'s that the winning provider's bundle puts in the block. */
async function l1Transfer(d: Devnet, sender: { address: Address; privateKey: Hex }): Promise<Hex> {
  const l1 = createWalletClient({
    account: privateKeyToAccount(sender.privateKey),
    chain: localChain(d.chains.l1.chainId, d.chains.l1.rpcUrl, "l1"),
    transport: localHttp(d.chains.l1.rpcUrl),
  });
  return l1.signTransaction({
    to: sender.address,
    value: 1n,
    nonce: await d.l1Client.getTransactionCount({ address: sender.address }),
    gas: 21_000n,
    maxFeePerGas: parseEther("0.0000001"),
    maxPriorityFeePerGas: 1n,
  });
}

/** ABSOLUTE BOTTOM 0 asks for a position past the block's last transaction: no bundle meets it. */
const UNMEETABLE = encodeBidOptions({ options: [{ positionConstraint: { anchor: 2, basis: 2, value: 0 } }] });

/** 2 ETH of `bidderKey`'s deposited toward provider 0 (the provider every test here bids to). */
function depositTowardProvider0(d: Devnet, bidderKey: Hex) {
  const provider0 = providerAccount(0).address;
  return ensureBidderDepositsV12(
    d.chains.settlement,
    d.contracts.bidderRegistry,
    bidderKey,
    [provider0],
    parseEther("2"),
  );
}

/**
 * Provider 0 commits to `bidder`'s bid for a transfer that lands in the block, with a position constraint it cannot
 * meet; resolves with the commitment once the oracle has settled or slashed it.
 */
async function commitmentBreakingItsConstraint(d: Devnet, bidder: { address: Address; privateKey: Hex }) {
  await depositTowardProvider0(d, bidder.privateKey);
  const raw = await l1Transfer(d, L1_SENDER);
  const r = await commitmentOfProvider0(
    d,
    bidder,
    {
      txnHash: keccak256(raw).slice(2),
      rawTransactions: [raw.slice(2)],
      bidAmt: parseEther("1"),
      slashAmt: parseEther("0.1"),
      blockNumber: (await d.driver.blockNumber()) + 1n,
    },
    bytesToHex(UNMEETABLE),
  );
  await storeAtProvider0(d, r);
  const done = await winAndSettle(d, r);
  // The bundle itself is in the block: only the constraint can make it a slash.
  const block = await d.l1Client.getBlock({ blockNumber: r.blockNumber });
  expect(block.transactions).toContain(keccak256(raw));
  return done;
}

describe("--protocol v1.2 devnet, in-process nodes", () => {
  let local: LocalDevnet;
  let d: Devnet;

  beforeAll(async () => {
    local = await startLocalDevnet(
      { protocol: "v1.2", network: "in-process", autodepositAmount: DEPOSIT, bidderWithdrawalPeriodMs: 60_000 },
      "reports/devnet-v12.log",
    );
    d = local.devnet;
  }, 180_000);

  afterAll(async () => {
    await local?.stop();
  }, 60_000);

  test("status, target and banner say v1.2; the withdrawal period is the flag's", async () => {
    const status = await d.status();
    expect(status.protocol).toBe("v1.2");
    expect(status.currentWindow).toBeNull();
    expect(status.bidderWithdrawalPeriodMs).toBe("60000");
    expect(status.bidOptionsSlash).toBe(false);
    const target = d.targetFile();
    expect(target.protocol).toBe("v1.2");
    expect(target.contracts.depositManager).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const impl = await d.settlementClient.readContract({
      address: d.contracts.bidderRegistry,
      abi: bidderRegistryV12Abi,
      functionName: "depositManagerImpl",
    });
    expect(impl).toBe(d.contracts.depositManager!);
    const text = banner(d);
    expect(text).toContain("Protocol v1.2 (upstream v1.2.5)");
    expect(text).toContain("bidder withdrawal period 1 min of chain time (upstream deploys 10 min)");
    expect(text).toContain("Bidder deposit per provider at start: 5 ETH");
  });

  test("the bidder holds a deposit with each provider from the start", async () => {
    for (const p of d.providers) {
      const deposit = await d.settlementClient.readContract({
        address: d.contracts.bidderRegistry,
        abi: bidderRegistryV12Abi,
        functionName: "getDeposit",
        args: [devAccount(ROLES.bidder).address, p.address],
      });
      expect(deposit).toBe(DEPOSIT);
    }
  });

  test("each provider checks the bidder's deposit with it: a bid within it gets both commitments, one above none", async () => {
    const far = (await d.driver.blockNumber()) + 1_000n;
    expect(await bidProviders(d.bidder.url, far, 1)).toEqual(
      d.providers.map((p) => p.address.toLowerCase() as Address).sort(),
    );
    const now = Date.now();
    const tooMuch = await NdjsonStream.open<{ providerAddress: string }>("POST", `${d.bidder.url}/v1/bidder/bid`, {
      txHashes: ["ee".repeat(32)],
      amount: (DEPOSIT + 1n).toString(),
      blockNumber: far.toString(),
      decayStartTimestamp: String(now),
      decayEndTimestamp: String(now + 60_000),
    });
    expect((await tooMuch.all()).filter((l) => "result" in l)).toEqual([]);
  });

  test("a provider gets back what a block another provider won had reserved, and only that", async () => {
    const bid = async (block: bigint, n: number, amount = parseEther("3")) => {
      const now = Date.now();
      const s = await NdjsonStream.open<{ providerAddress: string }>("POST", `${d.bidder.url}/v1/bidder/bid`, {
        txHashes: [n.toString(16).padStart(64, "0")],
        amount: amount.toString(),
        blockNumber: block.toString(),
        decayStartTimestamp: String(now),
        decayEndTimestamp: String(now + 60_000),
      });
      return (await s.all()).flatMap((l) => ("result" in l ? [`0x${l.result.providerAddress}`.toLowerCase()] : []));
    };
    const [p0, p1] = d.providers.map((p) => p.address.toLowerCase());
    const block = (await d.driver.blockNumber()) + 1n;
    expect((await bid(block, 0x31)).sort()).toEqual([p0!, p1!].sort());
    // 3 of the 5 ETH with each provider are taken: a second 3 ETH bid fits neither.
    expect(await bid(block, 0x32)).toEqual([]);
    // Provider 1 wins the block: provider 0's commitment costs the bidder nothing, so its 3 ETH come back there.
    await d.mine(1, d.providers[1]!.address);
    await d.mine(1);
    const after = await until("provider 0 to see the block's winner", 30_000, async () => {
      const got = await bid((await d.driver.blockNumber()) + 5n, 0x33);
      return got.length > 0 ? got : undefined;
    });
    expect(after).toEqual([p0!]);
    expect(await bid((await d.driver.blockNumber()) + 5n, 0x34)).toEqual([]);

    // Killed and started again on its store, provider 0 still counts its stored 3 ETH (not opened on chain, whose
    // balance still says 5) and not the 3 ETH it gave back: 2 ETH left with it (less the far bid's 1 wei), as with
    // provider 1.
    await d.killNode("provider-0");
    await until(
      "provider 0's application to attach again",
      30_000,
      () => d.providers[0]!.dispatcher.activeReceivers > 0,
    );
    const last = (await d.driver.blockNumber()) + 5n;
    expect((await bid(last, 0x35, parseEther("1.5"))).sort()).toEqual([p0!, p1!].sort());
    expect(await bid(last, 0x36, parseEther("1"))).toEqual([]);
  }, 120_000);

  test("a commitment still pending when another provider wins its block is refunded once, when its store fails", async () => {
    const p = d.providers[0]!;
    const deposits = p.deposits as PerProviderBalanceCheck;
    const bidAmt = parseEther("1");
    for (const bidder of [REFUND_BIDDER, SENTINEL_BIDDER]) await depositTowardProvider0(d, bidder.privateKey);
    // The deposit events start both cached balances at 2 ETH. The commitments below are recorded at the provider
    // directly, so nothing is deducted: what the balances gain is what the provider refunds.
    await until(
      "both balances cached",
      30_000,
      () => [REFUND_BIDDER, SENTINEL_BIDDER].every((b) => deposits.cached(b.address) === parseEther("2")) || undefined,
    );
    const block = (await d.driver.blockNumber()) + 1n;
    const bid = (txnHash: string) => ({ txnHash, rawTransactions: [], bidAmt, slashAmt: 0n, blockNumber: block });
    const sentinel = await commitmentOfProvider0(d, SENTINEL_BIDDER, bid("5b".repeat(32)), "0x");
    await storeAtProvider0(d, sentinel);
    const pending = await commitmentOfProvider0(d, REFUND_BIDDER, bid("5c".repeat(32)), "0x");
    await p.commitments!.record(pending);
    await d.mine(Number(block - (await d.driver.blockNumber())), d.providers[1]!.address);
    await d.mine(1);
    await until("the stored commitment refunded", 30_000, () =>
      deposits.cached(SENTINEL_BIDDER.address) === parseEther("3") ? true : undefined,
    );
    // A pending commitment is no other_provider_won_block (upstream v1.2.5 announces and refunds stored ones only).
    expect(deposits.cached(REFUND_BIDDER.address)).toBe(parseEther("2"));
    p.storer!.failNext = true;
    p.storer!.restore(pending);
    await until(
      "the store to fail",
      30_000,
      () => p.commitments!.get(pending.digest)?.status === "failed" || undefined,
    );
    expect(deposits.cached(REFUND_BIDDER.address)).toBe(parseEther("3"));
  }, 120_000);

  test("a store sent again for a commitment the chain holds (a restart's race with its own transaction) leaves it stored", async () => {
    const p = d.providers[0]!;
    const deposits = p.deposits as PerProviderBalanceCheck;
    const far = (await d.driver.blockNumber()) + 1_000n;
    const bid = {
      txnHash: "5d".repeat(32),
      rawTransactions: [],
      bidAmt: parseEther("1"),
      slashAmt: 0n,
      blockNumber: far,
    };
    const r = await commitmentOfProvider0(d, SENTINEL_BIDDER, bid, "0x");
    await storeAtProvider0(d, r);
    const before = deposits.cached(SENTINEL_BIDDER.address);
    p.storer!.restore(r);
    await p.storer!.drain(); // the outcome is recorded before the send ends
    expect(p.commitments!.get(r.digest)).toMatchObject({ status: "stored", details: "" });
    // Not a commitment_store_failed: nothing is given back to the bidder's balance.
    expect(deposits.cached(SENTINEL_BIDDER.address)).toBe(before);
  }, 60_000);

  test("a v1.2 commitment with bid options is opened by the winner and rewarded", async () => {
    const provider = providerAccount(0).address;
    await depositTowardProvider0(d, REWARD_BIDDER.privateKey);
    const l1 = createWalletClient({
      account: privateKeyToAccount(L1_SENDER.privateKey),
      chain: localChain(d.chains.l1.chainId, d.chains.l1.rpcUrl, "l1"),
      transport: localHttp(d.chains.l1.rpcUrl),
    });
    const raw = await l1.signTransaction({
      to: L1_SENDER.address,
      value: 1n,
      nonce: await d.l1Client.getTransactionCount({ address: L1_SENDER.address }),
      gas: 21_000n,
      maxFeePerGas: parseEther("0.0000001"),
      maxPriorityFeePerGas: 1n,
    });
    const bidAmt = parseEther("1");
    const before = await d.settlementClient.readContract({
      address: d.contracts.bidderRegistry,
      abi: bidderRegistryV12Abi,
      functionName: "getProviderAmount",
      args: [provider],
    });
    const r = await commitmentOfProvider0(
      d,
      REWARD_BIDDER,
      {
        txnHash: keccak256(raw).slice(2),
        rawTransactions: [raw.slice(2)],
        bidAmt,
        slashAmt: parseEther("0.1"),
        blockNumber: (await d.driver.blockNumber()) + 1n,
      },
      "0x0a0408011001",
    );
    await storeAtProvider0(d, r);
    const settled = await winAndSettle(d, r);
    expect(settled.status).toBe("settled");
    const opened = await d.settlementClient.readContract({
      address: d.contracts.preconfManager,
      abi: preconfManagerV12Abi,
      functionName: "getCommitment",
      args: [`0x${r.commitmentIndex}`],
    });
    expect(opened.bidOptions).toBe("0x0a0408011001");
    expect(opened.isSettled).toBe(true);
    const residual = residualAfterDecay(r.decayStart, r.decayEnd, r.dispatchTimestamp);
    const decayed = decayedAmount(bidAmt, residual);
    const fee = (decayed * 2n * 10n ** 16n) / ONE_HUNDRED_PERCENT;
    const after = await d.settlementClient.readContract({
      address: d.contracts.bidderRegistry,
      abi: bidderRegistryV12Abi,
      functionName: "getProviderAmount",
      args: [provider],
    });
    expect(after - before).toBe(decayed - fee);
  }, 120_000);

  test("a bundle that misses a position constraint is rewarded: the oracle's switch is off by default", async () => {
    expect(banner(d)).not.toContain("--bid-options-slash-enabled");
    expect((await commitmentBreakingItsConstraint(d, CONSTRAINT_BIDDER)).status).toBe("settled");
  }, 120_000);

  test("a slash pays the bidder the slash amount and the whole bid back", async () => {
    await depositTowardProvider0(d, SLASH_BIDDER.privateKey);
    const bidAmt = parseEther("1");
    const slashAmt = parseEther("0.1");
    const before = await d.settlementClient.getBalance({ address: SLASH_BIDDER.address });
    const r = await commitmentOfProvider0(
      d,
      SLASH_BIDDER,
      {
        // A transaction no block holds: the oracle slashes.
        txnHash: "5a".repeat(32),
        rawTransactions: [],
        bidAmt,
        slashAmt,
        blockNumber: (await d.driver.blockNumber()) + 1n,
      },
      "0x",
    );
    await storeAtProvider0(d, r);
    const slashed = await winAndSettle(d, r);
    expect(slashed.status).toBe("slashed");
    const after = await d.settlementClient.getBalance({ address: SLASH_BIDDER.address });
    expect(after - before).toBe(slashAmt + bidAmt);
  }, 120_000);
});

describe("--protocol v1.2 devnet with --bid-options-slash-enabled", () => {
  test("a bundle that misses a position constraint of its bid options is slashed", async () => {
    const local = await startLocalDevnet(
      { protocol: "v1.2", network: "in-process", autodepositAmount: DEPOSIT, bidOptionsSlash: true },
      "reports/devnet-v12-bid-options-slash.log",
    );
    try {
      const d = local.devnet;
      expect(banner(d)).toContain("the oracle slashes unmet position constraints (--bid-options-slash-enabled)");
      expect((await d.status()).bidOptionsSlash).toBe(true);
      expect((await commitmentBreakingItsConstraint(d, CONSTRAINT_BIDDER)).status).toBe("slashed");
    } finally {
      await local.stop();
    }
  }, 240_000);
});

describe("--protocol v1.2 devnet over libp2p", () => {
  test("a bid gets a commitment from each provider after the per-provider deposits", async () => {
    const local = await startLocalDevnet(
      { protocol: "v1.2", network: "libp2p", autodepositAmount: DEPOSIT },
      "reports/devnet-v12-libp2p.log",
    );
    try {
      const d = local.devnet;
      await d.settle();
      expect((await d.status()).protocol).toBe("v1.2");
      const far = (await d.driver.blockNumber()) + 1_000n;
      expect(await bidProviders(d.bidder.url, far, 2)).toEqual(
        d.providers.map((p) => p.address.toLowerCase() as Address).sort(),
      );
    } finally {
      await local.stop();
    }
  }, 240_000);
});
