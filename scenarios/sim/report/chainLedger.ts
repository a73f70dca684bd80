/**
 * What the settlement chain says happened during a run, read independently of the nodes: the registries' events
 * (rewards, slashes, deposits, withdrawals) between two snapshots, and the balances they changed. The report's
 * figures are checked against this. v1.1 deposits sit in windows; v1.2 deposits sit with a provider (the v1.2
 * events and each (bidder, provider) deposit's available and escrowed amounts at both snapshots).
 */
import { type Address, decodeFunctionData, type Hex, type PublicClient } from "viem";
import { MevCommitError } from "../../../lib/errors.ts";
import { bidderRegistryAbi, providerRegistryAbi } from "../../../node/chain/contracts.ts";
import { bidderRegistryV12Abi } from "../../../node/chain/contractsV12.ts";
import { isPastStateGone } from "../../../node/chain/pastState.ts";
import { protocolAbis } from "../../../node/chain/protocolContracts.ts";
import type { ProtocolRules } from "../../../node/protocol/rules.ts";

export interface ChainContracts {
  bidderRegistry: Address;
  providerRegistry: Address;
}

export interface ChainSnapshot {
  settlementBlock: bigint;
  /** Per provider (lower-case address): stake and reward balance (BidderRegistry.providerAmount). */
  providers: Record<string, { stake: bigint; rewards: bigint }>;
  /** v1.2: per `bidder/provider` (lower-case addresses), the deposit's available and escrowed amounts. */
  deposits?: Record<string, { available: bigint; escrowed: bigint }>;
}

/** What a snapshot reads: the providers, and on v1.2 the bidders whose deposits with them it reads too. */
export interface SnapshotOf {
  providers: string[];
  bidders?: string[];
  rules?: ProtocolRules;
}

export interface ChainLedger {
  before: ChainSnapshot;
  after: ChainSnapshot;
  /** BidderRegistry / ProviderRegistry fee percents (1e18 = 100 %). */
  protocolFeePercent: bigint;
  penaltyFeePercent: bigint;
  /** FundsRewarded: the decayed bid (v1.1 also names the window it came from). */
  rewards: { digest: string; bidder: string; provider: string; window?: bigint; amount: bigint }[];
  slashes: { provider: string; amount: bigint }[];
  /** Locked bids returned to the bidder after a slash. */
  retrieved: { digest: string; bidder: string; window: bigint; amount: bigint }[];
  /** ETH sent into each window by a deposit transaction (split as depositForWindows splits it). */
  deposits: { bidder: string; window: bigint; amount: bigint }[];
  withdrawals: { bidder: string; window: bigint; amount: bigint }[];
  /** What each bidder still has in each window it used (BidderRegistry.getDeposit) after the run. */
  remaining: { bidder: string; window: bigint; amount: bigint }[];
  /** v1.2: BidderDeposited, BidderWithdrawal and FundsUnlocked (the whole bid back to the bidder after a slash). */
  providerDeposits: { bidder: string; provider: string; amount: bigint }[];
  providerWithdrawals: { bidder: string; provider: string; amount: bigint }[];
  unlocked: { digest: string; bidder: string; provider: string; amount: bigint }[];
}

const lower = (a: string) => a.toLowerCase();
const strip = (h: string) => h.replace(/^0x/, "").toLowerCase();

export class SnapshotError extends MevCommitError {}

/**
 * Each provider's stake and rewards at one settlement block (the ledger's events are counted from that block on).
 * At the head just read; on a chain that no longer holds that block's state (the devnet's settlement chain keeps
 * none, and mines a block every 200 ms), the values are read at `latest` between two reads of the head, and kept
 * only when the head did not move: then `latest` was that block all along, so the snapshot is still of one block.
 */
export async function snapshot(client: PublicClient, c: ChainContracts, of: SnapshotOf): Promise<ChainSnapshot> {
  const { providers } = of;
  const readDeposits = async (blockNumber: bigint | undefined) => {
    const out: NonNullable<ChainSnapshot["deposits"]> = {};
    for (const b of of.bidders ?? [])
      for (const p of providers) {
        const read = (functionName: "getDeposit" | "getEscrowedAmount") =>
          client.readContract({
            address: c.bidderRegistry,
            abi: bidderRegistryV12Abi,
            functionName,
            args: [b as Address, p as Address],
            blockNumber,
          });
        const [available, escrowed] = await Promise.all([read("getDeposit"), read("getEscrowedAmount")]);
        out[`${lower(b)}/${lower(p)}`] = { available, escrowed };
      }
    return out;
  };
  const readAll = async (blockNumber: bigint | undefined) => {
    const out: ChainSnapshot["providers"] = {};
    for (const p of providers) {
      const [stake, rewards] = await Promise.all([
        client.readContract({
          address: c.providerRegistry,
          abi: providerRegistryAbi,
          functionName: "getProviderStake",
          args: [p as Address],
          blockNumber,
        }),
        client.readContract({
          address: c.bidderRegistry,
          abi: bidderRegistryAbi,
          functionName: "providerAmount",
          args: [p as Address],
          blockNumber,
        }),
      ]);
      out[lower(p)] = { stake, rewards };
    }
    return out;
  };
  // Deposits per (bidder, provider) are read only when the snapshot is told its protocol has them.
  const perProvider = of.rules?.deposits === "provider";
  for (let attempt = 0; attempt < 50; attempt++) {
    const settlementBlock = await client.getBlockNumber({ cacheTime: 0 });
    try {
      return {
        settlementBlock,
        providers: await readAll(settlementBlock),
        ...(perProvider ? { deposits: await readDeposits(settlementBlock) } : {}),
      };
    } catch (e) {
      if (!isPastStateGone(e)) throw e;
    }
    try {
      const providersNow = await readAll(undefined);
      const depositsNow = perProvider ? await readDeposits(undefined) : undefined;
      if ((await client.getBlockNumber({ cacheTime: 0 })) === settlementBlock)
        return { settlementBlock, providers: providersNow, ...(depositsNow ? { deposits: depositsNow } : {}) };
    } catch (e) {
      if (!isPastStateGone(e)) throw e; // `latest` raced the next block: try again
    }
  }
  throw new SnapshotError("could not read the providers' stakes and rewards within one settlement block in 50 tries");
}

/** ETH each window of a deposit transaction received (depositForWindows: even split, remainder to the last). */
function depositSplit(input: Hex, value: bigint): Map<bigint, bigint> {
  const call = decodeFunctionData({ abi: bidderRegistryAbi, data: input });
  if (call.functionName === "depositForWindow") return new Map([[call.args[0] as bigint, value]]);
  if (call.functionName === "depositForWindows") {
    const windows = call.args[0] as readonly bigint[];
    const share = value / BigInt(windows.length);
    const rest = value - share * BigInt(windows.length);
    return new Map(windows.map((w, i) => [w, share + (i === windows.length - 1 ? rest : 0n)]));
  }
  return new Map();
}

export async function readLedger(
  client: PublicClient,
  c: ChainContracts,
  before: ChainSnapshot,
  providers: string[],
  bidders: string[],
  rules: ProtocolRules,
): Promise<ChainLedger> {
  const after = await snapshot(client, c, { providers, bidders, rules });
  const range = { fromBlock: before.settlementBlock + 1n, toBlock: after.settlementBlock };
  const [br, pr, protocolFeePercent, penaltyFeePercent] = await Promise.all([
    client.getContractEvents({
      address: c.bidderRegistry,
      abi: protocolAbis(rules).bidderRegistry,
      ...range,
    }),
    client.getContractEvents({
      address: c.providerRegistry,
      abi: providerRegistryAbi,
      eventName: "FundsSlashed",
      ...range,
    }),
    client.readContract({ address: c.bidderRegistry, abi: bidderRegistryAbi, functionName: "feePercent" }),
    client.readContract({ address: c.providerRegistry, abi: providerRegistryAbi, functionName: "feePercent" }),
  ]);
  const ledger: ChainLedger = {
    before,
    after,
    protocolFeePercent,
    penaltyFeePercent,
    rewards: [],
    slashes: [],
    retrieved: [],
    deposits: [],
    withdrawals: [],
    remaining: [],
    providerDeposits: [],
    providerWithdrawals: [],
    unlocked: [],
  };
  const ours = new Set(bidders.map(lower));
  const depositTxs = new Set<Hex>();
  for (const e of br) {
    const a = e.args as Record<string, unknown>;
    if (e.eventName === "FundsRewarded")
      ledger.rewards.push({
        digest: strip(a.commitmentDigest as string),
        bidder: lower(a.bidder as string),
        provider: lower(a.provider as string),
        ...(a.window === undefined ? {} : { window: a.window as bigint }),
        amount: a.amount as bigint,
      });
    else if (rules.deposits === "provider") {
      if (!ours.has(lower(a.bidder as string))) continue;
      const row = { bidder: lower(a.bidder as string), provider: lower(a.provider as string) };
      if (e.eventName === "BidderDeposited")
        ledger.providerDeposits.push({ ...row, amount: a.depositedAmount as bigint });
      else if (e.eventName === "BidderWithdrawal")
        ledger.providerWithdrawals.push({ ...row, amount: a.amountWithdrawn as bigint });
      else if (e.eventName === "FundsUnlocked")
        ledger.unlocked.push({ ...row, digest: strip(a.commitmentDigest as string), amount: a.amount as bigint });
    } else if (e.eventName === "FundsRetrieved")
      ledger.retrieved.push({
        digest: strip(a.commitmentDigest as string),
        bidder: lower(a.bidder as string),
        window: a.window as bigint,
        amount: a.amount as bigint,
      });
    else if (e.eventName === "BidderWithdrawal")
      ledger.withdrawals.push({
        bidder: lower(a.bidder as string),
        window: a.window as bigint,
        amount: a.amount as bigint,
      });
    else if (e.eventName === "BidderRegistered" && ours.has(lower(a.bidder as string)))
      depositTxs.add(e.transactionHash);
  }
  for (const hash of depositTxs) {
    const tx = await client.getTransaction({ hash });
    for (const [window, amount] of depositSplit(tx.input, tx.value))
      ledger.deposits.push({ bidder: lower(tx.from), window, amount });
  }
  for (const e of pr)
    ledger.slashes.push({
      provider: lower((e.args as { provider: string }).provider),
      amount: (e.args as { amount: bigint }).amount,
    });
  const windows = new Map<string, Set<bigint>>();
  for (const d of ledger.deposits)
    (windows.get(d.bidder) ?? windows.set(d.bidder, new Set()).get(d.bidder)!).add(d.window);
  for (const [bidder, ws] of windows)
    for (const window of [...ws].sort((x, y) => Number(x - y))) {
      const amount = await client.readContract({
        address: c.bidderRegistry,
        abi: bidderRegistryAbi,
        functionName: "getDeposit",
        args: [bidder as Address, window],
      });
      ledger.remaining.push({ bidder, window, amount });
    }
  return ledger;
}
