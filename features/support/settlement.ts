/**
 * Support for the settlement and decay features (crypto-contracts §2–§4, api-behaviour §1.5, §1.6, §3): a bid of
 * real signed L1 transactions for the next L1 block, the L1 blocks mined through the control API with a chosen
 * winner, and what the settlement did, read from the settlement chain and isolated to the one block that holds the
 * oracle's settlement transaction (so that other commitments settling in the same run cannot blur the amounts).
 *
 * Everything here waits on chain state or on the nodes' answers with a deadline; nothing sleeps for a fixed time.
 */

import {
  type Abi,
  type Address,
  concatHex,
  createPublicClient,
  type Hex,
  keccak256,
  type PublicClient,
  parseEther,
  parseEventLogs,
  zeroAddress,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { MevCommitError } from "../../lib/errors.ts";
import { bidderRegistryAbi, blockTrackerAbi, oracleAbi, preconfManagerAbi, providerRegistryAbi } from "./abi.ts";
import { devAccount } from "./accounts.ts";
import { amountOf, type BidOutcome, bidsOf, finished } from "./bids.ts";
import { chainHttp } from "./clients/chainHttp.ts";
import { acceptWithDispatch, type ReceivedBid } from "./clients/providerApp.ts";
import { perScenario } from "./perScenario.ts";
import { windowOfBlock } from "./protocol.ts";
import { depositToEveryProvider } from "./providerDeposits.ts";
import type { Target } from "./target.ts";
import type { ConformanceWorld } from "./world.ts";

export class SettlementCheckError extends MevCommitError {}

/** What chains answer for a call at a block whose state they dropped (Anvil, then geth's wordings); any cause of `e`. */
function pastStateGone(e: unknown): string | undefined {
  const gone =
    /BlockOutOfRangeError|block height is \d+ but requested was|missing trie node|historical state|state (is )?not available/i;
  for (let x: unknown = e, depth = 0; x && depth < 8; x = (x as { cause?: unknown }).cause, depth++) {
    const { message, details } = x as { message?: unknown; details?: unknown };
    const m = gone.exec(`${String(message ?? x)} ${String(details ?? "")}`);
    if (m) return String(details ?? m[0]);
  }
  return undefined;
}

/** How long an asynchronous effect (store, open, settlement, a node's record catching up) may take. */
export const SETTLE_WAIT_MS = Number(process.env.SETTLE_WAIT_MS ?? 20_000);
/** How far ahead of now the provider applications date their dispatch (the store transaction needs ≥ about now). */
export const DISPATCH_LEAD_MS = BigInt(process.env.DISPATCH_LEAD_MS ?? 500);
/** Dev accounts (Anvil mnemonic) that sign the scenarios' L1 transactions; each is funded on the devnet L1. */
// 16 and 17 belong to the notification features, 18 to the devnet's own validator opt-ins.
const L1_SENDERS = [10, 11, 12, 13, 14, 15];

export { windowOfBlock };

// ------------------------------------------------------------------------------------------- small helpers

/** "1 ETH", "0.1 ETH", "12345 wei" → wei. */
export function parseWei(text: string): bigint {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ETH|wei)\s*$/.exec(text);
  if (!m) throw new SettlementCheckError(`not an amount: "${text}" (say "1 ETH", "0.25 ETH" or "12345 wei")`);
  if (m[2] === "wei") {
    if (m[1]!.includes(".")) throw new SettlementCheckError(`wei amounts are whole: "${text}"`);
    return BigInt(m[1]!);
  }
  return parseEther(m[1]!);
}

const strip0x = (h: string): string => (h.startsWith("0x") ? h.slice(2) : h).toLowerCase();

/** Polls `probe` until it says done, or fails after `timeoutMs` naming what it waited for and what it saw last. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<{ done: true; value: T } | { done: false; seen: string; hopeless?: boolean }>,
  timeoutMs = SETTLE_WAIT_MS,
  intervalMs = 25,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let seen = "nothing yet";
  for (;;) {
    const r = await probe();
    if (r.done) return r.value;
    seen = r.seen;
    if (r.hopeless) throw new SettlementCheckError(`${what}: ${seen}`);
    if (performance.now() > deadline)
      throw new SettlementCheckError(`${what}: not within ${timeoutMs} ms; last seen: ${seen}`);
    await new Promise((res) => setTimeout(res, intervalMs));
  }
}

// ------------------------------------------------------------------------------------------- L1 transactions

/** One signed L1 transaction a scenario bids on. */
export interface L1Tx {
  /** Signed payload, lower-case hex without 0x (upstream's provider API refuses 0x-prefixed raw txs). */
  raw: string;
  /** keccak256 of the payload, lower-case hex without 0x, as the commitment names it. */
  hash: string;
  sender: Address;
  kind: "transfer" | "failing creation";
}

let senderCursor = 0;
/** Windows the settlement and decay scenarios deposited into and have not withdrawn yet. */
const depositedWindows = new Set<bigint>();

/** Signs L1 transactions for dev accounts 10–15, each at the sender's next nonce on the L1 chain. */
export class L1TxFactory {
  private readonly nonces = new Map<Address, number>();

  constructor(
    private readonly l1: PublicClient,
    private readonly chainId: number,
  ) {}

  /** A sender no other transaction of this scenario used (round robin over the run, so nonces never collide). */
  private nextSender() {
    const index = L1_SENDERS[senderCursor++ % L1_SENDERS.length]!;
    return privateKeyToAccount(devAccount(index).privateKey);
  }

  private async nonceOf(address: Address): Promise<number> {
    let n = this.nonces.get(address);
    if (n === undefined) {
      const balance = await this.l1.getBalance({ address });
      if (balance < parseEther("1"))
        throw new SettlementCheckError(
          `L1 dev account ${address} holds ${balance} wei on the target's L1: the scenarios' L1 transactions need dev accounts 10–18 funded`,
        );
      n = await this.l1.getTransactionCount({ address, blockTag: "pending" });
    }
    this.nonces.set(address, n + 1);
    return n;
  }

  /** A 1-wei transfer to a fixed address: succeeds when included. */
  async transfer(): Promise<L1Tx> {
    const account = this.nextSender();
    const raw = await account.signTransaction({
      type: "eip1559",
      chainId: this.chainId,
      nonce: await this.nonceOf(account.address),
      to: "0x000000000000000000000000000000000000dEaD",
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: 50_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    return { raw: strip0x(raw), hash: strip0x(keccak256(raw)), sender: account.address, kind: "transfer" };
  }

  /** A contract creation whose init code is INVALID (0xfe): mined, with a failed receipt. */
  async failingCreation(): Promise<L1Tx> {
    const account = this.nextSender();
    const raw = await account.signTransaction({
      type: "eip1559",
      chainId: this.chainId,
      nonce: await this.nonceOf(account.address),
      data: "0xfe",
      gas: 100_000n,
      maxFeePerGas: 50_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    return { raw: strip0x(raw), hash: strip0x(keccak256(raw)), sender: account.address, kind: "failing creation" };
  }
}

// ------------------------------------------------------------------------------------------- the settlement chain

type Log = { address: Address; eventName: string; args: Record<string, unknown>; transactionHash: Hex };

const ALL_ABIS = [
  ...bidderRegistryAbi,
  ...providerRegistryAbi,
  ...preconfManagerAbi,
  ...oracleAbi,
  ...blockTrackerAbi,
] as Abi;

/** What one settlement transaction did, read from its receipt and from the state just before and after its block. */
export interface SettlementFacts {
  kind: "reward" | "slash";
  /** Settlement-chain block holding the oracle's settlement transaction. */
  block: bigint;
  txHash: Hex;
  /** FundsRewarded.amount for the commitment digest (reward), else undefined. */
  rewarded?: bigint;
  /** FundsRetrieved.amount for the commitment digest (slash: the whole locked bid), else undefined. */
  retrieved?: bigint;
  /** FundsSlashed.amount for the provider (slash), else undefined. */
  slashed?: bigint;
  /** The bidder's balance change over the block, net of fees of transactions it sent in that block. */
  bidderReceived: bigint;
  providerAmountDelta: bigint;
  /** Stake before − stake after (what left the provider's stake). */
  stakeTaken: bigint;
  /** Growth of the protocol fee accumulator plus fees paid out by BidderRegistry in the transaction. */
  protocolFee: bigint;
  /** Growth of the penalty fee accumulator plus fees paid out by ProviderRegistry in the transaction. */
  penalty: bigint;
  bidderSlashedAmountDelta: bigint;
  transferFailures: string[];
}

/** Read-only access to the target's settlement chain and L1, for the settlement checks. */
export class SettlementChain {
  readonly settlement: PublicClient;
  readonly l1: PublicClient;
  private fees: { br: bigint; pr: bigint } | undefined;

  constructor(readonly target: Target) {
    this.settlement = createPublicClient({ transport: chainHttp(target.settlementRpcUrl), cacheTime: 0 });
    this.l1 = createPublicClient({ transport: chainHttp(target.l1RpcUrl), cacheTime: 0 });
  }

  get c() {
    return this.target.contracts as Record<string, Address>;
  }

  /** BidderRegistry.feePercent() and ProviderRegistry.feePercent() (1e18 = 100 %), read once per run. */
  async feePercents(): Promise<{ br: bigint; pr: bigint }> {
    if (!this.fees) {
      const [br, pr] = await Promise.all([
        this.settlement.readContract({
          address: this.c.bidderRegistry!,
          abi: bidderRegistryAbi,
          functionName: "feePercent",
        }),
        this.settlement.readContract({
          address: this.c.providerRegistry!,
          abi: providerRegistryAbi,
          functionName: "feePercent",
        }),
      ]);
      this.fees = { br, pr };
    }
    return this.fees;
  }

  unopened(idx: Hex) {
    return this.settlement.readContract({
      address: this.c.preconfManager!,
      abi: preconfManagerAbi,
      functionName: "getUnopenedCommitment",
      args: [idx],
    });
  }

  opened(idx: Hex) {
    return this.settlement.readContract({
      address: this.c.preconfManager!,
      abi: preconfManagerAbi,
      functionName: "getCommitment",
      args: [idx],
    });
  }

  winnerOf(block: bigint): Promise<Address> {
    return this.settlement.readContract({
      address: this.c.blockTracker!,
      abi: blockTrackerAbi,
      functionName: "getBlockWinner",
      args: [block],
    });
  }

  bidPayment(digest: Hex) {
    return this.settlement.readContract({
      address: this.c.bidderRegistry!,
      abi: bidderRegistryAbi,
      functionName: "bidPayment",
      args: [digest],
    });
  }

  /** Logs of the run's contracts since `fromBlock`, decoded. */
  async logsSince(fromBlock: bigint): Promise<Log[]> {
    const raw = await this.settlement.getLogs({
      address: [this.c.bidderRegistry!, this.c.providerRegistry!, this.c.preconfManager!, this.c.oracle!],
      fromBlock,
      toBlock: "latest",
    });
    return parseEventLogs({ abi: ALL_ABIS, logs: raw, strict: false }) as unknown as Log[];
  }

  /** CommitmentProcessed logs for a commitment index since `fromBlock`. */
  async processed(idx: Hex, fromBlock: bigint): Promise<Log[]> {
    const logs = await this.logsSince(fromBlock);
    return logs.filter(
      (l) =>
        l.eventName === "CommitmentProcessed" && (l.args.commitmentIndex as string).toLowerCase() === idx.toLowerCase(),
    );
  }

  /** The state a settlement transaction changed, isolated to its block. */
  async settlementFacts(
    c: { idx: Hex; digest: Hex; provider: Address; bidder: Address; window: bigint },
    processed: Log,
  ): Promise<SettlementFacts> {
    const receipt = await this.settlement.getTransactionReceipt({ hash: processed.transactionHash });
    const n = receipt.blockNumber;
    const logs = parseEventLogs({ abi: ALL_ABIS, logs: receipt.logs, strict: false }) as unknown as Log[];
    const isSlash = processed.args.isSlash as boolean;
    const lower = (a: unknown) => String(a).toLowerCase();
    const from = (addr: Address | undefined) => logs.filter((l) => lower(l.address) === lower(addr));

    // Other transactions in the block must not move funds, or the deltas below would not be this settlement's.
    const block = await this.settlement.getBlock({ blockNumber: n });
    let bidderFees = 0n;
    for (const h of block.transactions) {
      const r = h === receipt.transactionHash ? receipt : await this.settlement.getTransactionReceipt({ hash: h });
      if (lower(r.from) === lower(c.bidder)) {
        const tx = await this.settlement.getTransaction({ hash: h });
        if (tx.value !== 0n)
          throw new SettlementCheckError(
            `the bidder sent ${tx.value} wei in transaction ${h} of settlement block ${n}; its balance change there is not the settlement's`,
          );
        bidderFees += r.gasUsed * r.effectiveGasPrice;
      }
      if (h === receipt.transactionHash) continue;
      const moving = r.logs.filter((l) =>
        [this.c.bidderRegistry, this.c.providerRegistry, this.c.oracle].some((a) => lower(a) === lower(l.address)),
      );
      if (moving.length)
        throw new SettlementCheckError(
          `settlement block ${n} also holds transaction ${h}, which moved registry funds: the settlement's amounts cannot be isolated on this chain`,
        );
    }

    const at = async (blockNumber: bigint) => {
      const [balance, providerAmount, stake, protocol, penalty, slashedAmt] = await Promise.all([
        this.settlement.getBalance({ address: c.bidder, blockNumber }),
        this.settlement.readContract({
          address: this.c.bidderRegistry!,
          abi: bidderRegistryAbi,
          functionName: "providerAmount",
          args: [c.provider],
          blockNumber,
        }),
        this.settlement.readContract({
          address: this.c.providerRegistry!,
          abi: providerRegistryAbi,
          functionName: "getProviderStake",
          args: [c.provider],
          blockNumber,
        }),
        this.settlement.readContract({
          address: this.c.bidderRegistry!,
          abi: bidderRegistryAbi,
          functionName: "protocolFeeTracker",
          blockNumber,
        }),
        this.settlement.readContract({
          address: this.c.providerRegistry!,
          abi: providerRegistryAbi,
          functionName: "penaltyFeeTracker",
          blockNumber,
        }),
        this.settlement.readContract({
          address: this.c.providerRegistry!,
          abi: providerRegistryAbi,
          functionName: "bidderSlashedAmount",
          args: [c.bidder],
          blockNumber,
        }),
      ]);
      return { balance, providerAmount, stake, protocolAcc: protocol[1], penaltyAcc: penalty[1], slashedAmt };
    };
    // No fallback can isolate a settlement's amounts without the state of its block and the one before: a target
    // whose settlement chain drops past states (Anvil's --prune-history, a geth node without an archive) says so.
    const [before, after] = await Promise.all([at(n - 1n), at(n)]).catch((e: unknown) => {
      const gone = pastStateGone(e);
      if (!gone) throw e;
      throw new SettlementCheckError(
        `the settlement chain no longer holds the state of block ${n - 1n} or ${n} (${gone}); ` +
          "the settlement checks need the state of a settlement's block and the one before: keep more past states on the target's settlement chain",
      );
    });

    const digestIs = (l: Log) => lower(l.args.commitmentDigest) === lower(c.digest);
    const rewarded = logs.filter((l) => l.eventName === "FundsRewarded" && digestIs(l));
    const retrieved = logs.filter((l) => l.eventName === "FundsRetrieved" && digestIs(l));
    const slashed = logs.filter((l) => l.eventName === "FundsSlashed" && lower(l.args.provider) === lower(c.provider));
    const feeOut = (addr: Address | undefined) =>
      from(addr)
        .filter((l) => l.eventName === "FeeTransfer")
        .reduce((s, l) => s + (l.args.amount as bigint), 0n);
    const one = (ls: Log[], what: string): bigint | undefined => {
      if (ls.length > 1)
        throw new SettlementCheckError(
          `settlement transaction ${receipt.transactionHash} emitted ${ls.length} ${what} events for the commitment`,
        );
      return ls[0]?.args.amount as bigint | undefined;
    };
    return {
      kind: isSlash ? "slash" : "reward",
      block: n,
      txHash: receipt.transactionHash,
      rewarded: one(rewarded, "FundsRewarded"),
      retrieved: one(retrieved, "FundsRetrieved"),
      slashed: one(slashed, "FundsSlashed"),
      bidderReceived: after.balance - before.balance + bidderFees,
      providerAmountDelta: after.providerAmount - before.providerAmount,
      stakeTaken: before.stake - after.stake,
      protocolFee: after.protocolAcc - before.protocolAcc + feeOut(this.c.bidderRegistry),
      penalty: after.penaltyAcc - before.penaltyAcc + feeOut(this.c.providerRegistry),
      bidderSlashedAmountDelta: after.slashedAmt - before.slashedAmt,
      transferFailures: logs
        .filter((l) => l.eventName === "TransferToBidderFailed" || l.eventName === "InsufficientFundsToSlash")
        .map((l) => `${l.eventName}(${JSON.stringify(l.args, (_, v) => (typeof v === "bigint" ? v.toString() : v))})`),
    };
  }
}

let chainCache: { target: Target; chain: SettlementChain } | undefined;

export function settlementChainOf(target: Target): SettlementChain {
  if (chainCache?.target !== target) chainCache = { target, chain: new SettlementChain(target) };
  return chainCache.chain;
}

// ------------------------------------------------------------------------------------------- node records (API)

/** One commitment as a node reports it in get_bid_info (bidder) or get_commitment_info (provider). */
export interface ReportedCommitment {
  status: string;
  details: string;
  payment: string;
  refund: string;
  dispatchTimestamp: string;
  providerAddress: string;
}

export type NodeName = "bidder" | `provider ${number}`;

/** The node's record of one commitment, or a description of why it is not there (for the failure message). */
export async function readReported(
  world: ConformanceWorld,
  node: NodeName,
  c: SettlementCommitment,
): Promise<{ found: ReportedCommitment } | { missing: string; hopeless?: boolean }> {
  const block = c.bid.block.toString();
  const hopeless = (code: number) => code === 5 || code === 12; // NotFound, Unimplemented: asking again will not help
  if (node === "bidder") {
    const r = await world.bidder.getBidInfo({ blockNumber: c.bid.block });
    if (r.error) return { missing: r.describe(), hopeless: hopeless(r.error.code) };
    const groups = (r.value as { blockBidInfo?: { blockNumber?: string; bids?: Record<string, unknown>[] }[] })
      ?.blockBidInfo;
    if (!Array.isArray(groups))
      return { missing: `get_bid_info answered no blockBidInfo array: ${JSON.stringify(r.value).slice(0, 400)}` };
    const bids = groups.filter((g) => g.blockNumber === block).flatMap((g) => g.bids ?? []);
    const bid = bids.filter((b) => String(b.bidDigest).toLowerCase() === c.bidDigest);
    if (bid.length !== 1)
      return {
        missing: `get_bid_info has ${bid.length} bids with digest ${c.bidDigest} in block ${block}: ${JSON.stringify(r.value).slice(0, 600)}`,
      };
    const cs = ((bid[0]!.commitments as ReportedCommitment[]) ?? []).filter(
      (x) => strip0x(String(x.providerAddress)) === c.provider.slice(2).toLowerCase(),
    );
    if (cs.length !== 1)
      return {
        missing: `get_bid_info lists ${cs.length} commitments of provider ${c.provider} for the bid: ${JSON.stringify(r.value).slice(0, 600)}`,
      };
    return { found: cs[0]! };
  }
  const i = Number(node.split(" ")[1]);
  const r = await world.provider(i).getCommitmentInfo({ blockNumber: c.bid.block });
  if (r.error) return { missing: r.describe(), hopeless: hopeless(r.error.code) };
  const groups = (r.value as { commitments?: { blockNumber?: string; commitments?: Record<string, unknown>[] }[] })
    ?.commitments;
  if (!Array.isArray(groups))
    return { missing: `get_commitment_info answered no commitments array: ${JSON.stringify(r.value).slice(0, 400)}` };
  const want = c.bid.txs.map((t) => t.hash).join(",");
  const recs = groups
    .filter((g) => g.blockNumber === block)
    .flatMap((g) => g.commitments ?? [])
    .filter(
      (x) =>
        String(x.amount) === c.bid.amount.toString() &&
        (x.txnHashes as string[] | undefined)?.map(strip0x).join(",") === want,
    );
  if (recs.length !== 1)
    return {
      missing: `get_commitment_info on ${node} has ${recs.length} commitments of ${c.bid.amount} wei on [${want}] in block ${block}: ${JSON.stringify(r.value).slice(0, 600)}`,
    };
  return { found: recs[0] as unknown as ReportedCommitment };
}

const STATUS_ORDER: Record<string, number> = { pending: 0, stored: 1, opened: 2, settled: 3, slashed: 3, failed: 3 };

/** Samples one node's record of one commitment while L1 blocks are mined and settled; keeps the distinct statuses seen. */
export class StatusWatch {
  readonly seen: string[] = [];
  readonly problems: string[] = [];
  private stopped = false;
  private readonly loop: Promise<void>;

  constructor(
    readonly node: NodeName,
    private readonly world: ConformanceWorld,
    readonly c: SettlementCommitment,
  ) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        const r = await readReported(this.world, this.node, this.c);
        if ("found" in r) {
          if (this.seen.at(-1) !== r.found.status) this.seen.push(r.found.status);
        } else if (!this.problems.includes(r.missing)) this.problems.push(r.missing);
      } catch (e) {
        this.problems.push((e as Error).message);
      }
      await new Promise((res) => setTimeout(res, 20));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  /** Statuses that went backwards (e.g. settled, then opened), described; empty when the order was kept. */
  regressions(): string[] {
    const out: string[] = [];
    for (let i = 1; i < this.seen.length; i++) {
      const a = this.seen[i - 1]!;
      const b = this.seen[i]!;
      if (!(a in STATUS_ORDER) || !(b in STATUS_ORDER)) out.push(`unknown status "${!(a in STATUS_ORDER) ? a : b}"`);
      else if (STATUS_ORDER[b]! <= STATUS_ORDER[a]!) out.push(`"${a}" then "${b}"`);
    }
    return out;
  }
}

// ------------------------------------------------------------------------------------------- scenario state

/** A bid the scenario sent for settlement. */
export interface SettlementBid {
  /** "B" or "B+1": the block the bid is for, as the feature names it. */
  blockRef: string;
  block: bigint;
  amount: bigint;
  slashAmount: bigint;
  decayStart: bigint;
  decayEnd: bigint;
  /** The dispatch time the provider application was told to use. */
  dispatch: bigint;
  txs: L1Tx[];
  reverting: string[];
  body: Record<string, unknown>;
  outcome: BidOutcome;
}

/** A commitment a provider gave for a bid, with what the chain calls it. */
export interface SettlementCommitment {
  bid: SettlementBid;
  provider: Address;
  providerIndex: number;
  /** 0x-prefixed lower-case commitment digest. */
  digest: Hex;
  /** keccak256(digest ‖ signature), the on-chain index. */
  idx: Hex;
  /** Bid digest, hex without 0x, lower case. */
  bidDigest: string;
  line: Record<string, unknown>;
}

export class SettlementScenario {
  /** The next L1 block when the scenario began: the block the scenario's bids are for. */
  b: bigint | undefined;
  /** The first settlement-chain block after the scenario began: logs are looked up from here on. */
  settlementFrom = 0n;
  readonly bids: SettlementBid[] = [];
  readonly commitments: SettlementCommitment[] = [];
  readonly watches: StatusWatch[] = [];
  builderChanged = false;
  /** Dispatch time by bid amount (amounts are unique in a scenario): what the provider applications answer. */
  private readonly dispatchByAmount = new Map<string, bigint>();
  private readonly factory: L1TxFactory;

  constructor(readonly world: ConformanceWorld) {
    this.factory = new L1TxFactory(this.chain.l1, world.target.l1ChainId);
  }

  get target(): Target {
    return this.world.target;
  }

  get chain(): SettlementChain {
    return settlementChainOf(this.world.target);
  }

  providerAddress(i: number): Address {
    const a = this.target.providerAddresses[i - 1];
    if (!a)
      throw new SettlementCheckError(`the target has ${this.target.providerAddresses.length} providers, not ${i}`);
    return a as Address;
  }

  /**
   * Fixes B (the next L1 block) and the settlement-chain starting point. One L1 block is mined first, so that B
   * is a block no earlier scenario committed to (a scenario that failed before mining leaves its block behind,
   * with its commitments and the provider's per-block allowance used up).
   */
  async begin(): Promise<bigint> {
    if (this.b === undefined) {
      await this.mine(1);
      await this.withdrawClosedWindows();
      const [head, sHead] = await Promise.all([
        this.chain.l1.getBlockNumber({ cacheTime: 0 }),
        this.chain.settlement.getBlockNumber({ cacheTime: 0 }),
      ]);
      this.b = head + 1n;
      this.settlementFrom = sHead + 1n;
    }
    return this.b;
  }

  blockOf(ref: string): bigint {
    if (this.b === undefined)
      throw new SettlementCheckError("B is not fixed yet (the Background deposit step fixes it)");
    const m = /^B(?:\+(\d+))?$/.exec(ref);
    if (!m) throw new SettlementCheckError(`unknown block reference "${ref}" (B or B+n)`);
    return this.b + BigInt(m[1] ?? "0");
  }

  /**
   * Withdraws what is left in the windows earlier scenarios of these features deposited into, once they are
   * closed (before BlockTracker's current window), so that the run leaves no closed window holding a deposit
   * behind it (features that look for an empty closed window need some).
   */
  private async withdrawClosedWindows(): Promise<void> {
    if (this.target.rules.deposits !== "window") return; // no window deposits to withdraw
    const current = await this.chain.settlement.readContract({
      address: this.chain.c.blockTracker!,
      abi: blockTrackerAbi,
      functionName: "getCurrentWindow",
    });
    const closed = [...depositedWindows].filter((w) => w < current).sort((a, b) => (a < b ? -1 : 1));
    if (closed.length === 0) return;
    const r = await this.world.bidder.withdrawFromWindows(closed);
    if (r.error)
      throw new SettlementCheckError(`housekeeping: withdrawing closed windows ${closed.join(", ")}: ${r.describe()}`);
    for (const w of closed) depositedWindows.delete(w);
  }

  /**
   * Deposits `wei` for the bidder's bids on `blocks`: v1.1 in the window of each block (once per distinct window),
   * v1.2 toward every provider.
   */
  async deposit(wei: bigint, blocks: bigint[]): Promise<void> {
    if (this.target.rules.deposits === "provider") {
      await depositToEveryProvider(this.world, wei);
      return;
    }
    const windows = [...new Set(blocks.map(windowOfBlock))];
    for (const w of windows) {
      const r = await this.world.bidder.deposit(wei, { windowNumber: w });
      if (r.error)
        throw new SettlementCheckError(
          `deposit of ${wei} wei into window ${w}: ${r.describe()} (is auto-deposit running?)`,
        );
      depositedWindows.add(w);
      const total = BigInt(String((r.value as { amount?: string })?.amount ?? "0"));
      if (total < wei)
        throw new SettlementCheckError(
          `deposit of ${wei} wei into window ${w} answered a total of ${total}: ${r.describe()}`,
        );
    }
  }

  /** Attaches a provider application that accepts every bid with the dispatch time the bid step chose for it. */
  async attachAccepting(provider: number): Promise<void> {
    await bidsOf(this.world).attach(
      provider,
      acceptWithDispatch((bid: ReceivedBid) => this.dispatchByAmount.get(amountOf(bid)) ?? BigInt(Date.now())),
      `provider ${provider}'s settlement application`,
    );
  }

  async transfer(): Promise<L1Tx> {
    return this.factory.transfer();
  }

  async failingCreation(): Promise<L1Tx> {
    return this.factory.failingCreation();
  }

  /** Sends a bid of raw transactions and waits for its stream to end; records the commitments it brought. */
  async sendBid(b: Omit<SettlementBid, "body" | "outcome" | "dispatch">, dispatch: bigint): Promise<SettlementBid> {
    if (this.bids.some((x) => x.amount === b.amount))
      throw new SettlementCheckError(`a scenario's bid amounts must differ (${b.amount} twice)`);
    this.dispatchByAmount.set(b.amount.toString(), dispatch);
    const body: Record<string, unknown> = {
      rawTransactions: b.txs.map((t) => t.raw),
      amount: b.amount.toString(),
      blockNumber: b.block.toString(),
      decayStartTimestamp: b.decayStart.toString(),
      decayEndTimestamp: b.decayEnd.toString(),
    };
    if (b.slashAmount !== 0n) body.slashAmount = b.slashAmount.toString();
    if (b.reverting.length) body.revertingTxHashes = b.reverting;
    const outcome = await finished(this.world.bidder.sendBid(JSON.stringify(body)), this.target.bidTimeoutMs);
    const bid: SettlementBid = { ...b, dispatch, body, outcome };
    this.bids.push(bid);
    for (const line of outcome.lines) {
      const res = (line as { result?: Record<string, unknown> }).result;
      if (!res) continue;
      const provider = `0x${strip0x(String(res.providerAddress))}` as Address;
      const index = this.target.providerAddresses.findIndex((a) => a.toLowerCase() === provider) + 1;
      const digest = `0x${strip0x(String(res.commitmentDigest))}` as Hex;
      const sig = `0x${strip0x(String(res.commitmentSignature))}` as Hex;
      this.commitments.push({
        bid,
        provider,
        providerIndex: index,
        digest,
        idx: keccak256(concatHex([digest, sig])),
        bidDigest: strip0x(String(res.receivedBidDigest)),
        line: res,
      });
    }
    return bid;
  }

  /** The one commitment for the bid of block `ref` (default: the only bid, or the one for B). */
  commitment(ref?: string): SettlementCommitment {
    const list = ref
      ? this.commitments.filter((c) => c.bid.blockRef === ref)
      : this.commitments.filter((c) => c.bid.blockRef === "B");
    if (list.length !== 1)
      throw new SettlementCheckError(
        `expected exactly one commitment for the bid of block ${ref ?? "B"}, the scenario has ${list.length}` +
          (this.bids.length
            ? `; the bid stream said: ${this.bids
                .map((b) => b.outcome.text.trim())
                .join(" | ")
                .slice(0, 800)}`
            : ""),
      );
    return list[0]!;
  }

  watch(c: SettlementCommitment, nodes: NodeName[]): void {
    for (const n of nodes)
      if (!this.watches.some((w) => w.node === n && w.c === c)) this.watches.push(new StatusWatch(n, this.world, c));
  }

  /** Mines one L1 block with `provider` as its winner (the control API answers once the oracle recorded tip − 1). */
  async mine(blocks: number, winner?: number): Promise<void> {
    await this.world.control.mine(blocks, winner ? this.providerAddress(winner) : undefined);
  }

  async setBuilder(provider: number, mode: "honest" | "omit" | "reverse" | "gap"): Promise<void> {
    this.builderChanged = true;
    await this.world.control.builder(this.providerAddress(provider), mode);
  }

  /** Waits until the oracle settled the commitment; returns its CommitmentProcessed log. */
  async settled(c: SettlementCommitment) {
    return eventually(`CommitmentProcessed for commitment ${c.idx}`, async () => {
      const logs = await this.chain.processed(c.idx, this.settlementFrom);
      if (logs.length > 1) throw new SettlementCheckError(`commitment ${c.idx} was processed ${logs.length} times`);
      if (logs.length === 1) return { done: true, value: logs[0]! };
      const opened = await this.chain.opened(c.idx);
      return {
        done: false,
        seen:
          opened.committer === zeroAddress
            ? "the commitment is not opened on chain"
            : `opened on chain by ${opened.committer}, not processed by the oracle`,
      };
    });
  }

  async teardown(): Promise<void> {
    await Promise.all(this.watches.map((w) => w.stop()));
    if (this.builderChanged)
      for (const p of this.target.providerAddresses) await this.world.control.builder(p, "honest");
  }
}

export const settlementOf = perScenario("settlement scenario", (world) => new SettlementScenario(world));
