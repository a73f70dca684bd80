import { type Address, type Hex, hexToBytes, type PublicClient } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import type { ChainClients } from "../chain/clients.ts";
import { blockTrackerAbi, oracleAbi } from "../chain/contracts.ts";
import type { ChainEvent, EventPoller } from "../chain/eventPoller.ts";
import { protocolAbis } from "../chain/protocolContracts.ts";
import { transact } from "../chain/transact.ts";
import { decodeBidOptions } from "../protocol/bidOptions.ts";
import { residualAfterDecay } from "../protocol/decay.ts";
import { type DepositModel, depositModelOf } from "../protocol/depositModels.ts";
import type { ProtocolRules } from "../protocol/rules.ts";
import type { NodeStore } from "../store/db.ts";
import { BoundedMap } from "../util/boundedMap.ts";
import { logger } from "../util/log.ts";
import { isHonoured, type TxOutcome } from "./inclusion.ts";
import { type BlockLayout, unmetBidOptions } from "./positionConstraints.ts";

/**
 * Settlements in flight at once. Each waits for its receipt (a settlement block, 200 ms or more under load), so this
 * bounds the oracle's rate: 32 gave ~65 settlements/s while 100 winner commitments/s arrived, and the oracle's event
 * follower (held while this many are in flight) fell minutes behind.
 */
const MAX_IN_FLIGHT = 256;
/** How long a read of BlockTracker's current window is reused (it changes once per 10 L1 blocks). */
const WINDOW_READ_MS = 500;

/** An opened commitment whose bid options do not decode: it is not settled (upstream's oracle returns the error). */
export class UndecodableBidOptionsError extends MevCommitError {}

/** What the oracle reads of an L1 block: each transaction's outcome by hash, and the layout the position rules use. */
interface BlockContents {
  txs: Map<string, TxOutcome>;
  layout: BlockLayout;
}

export interface SettlerOptions {
  settlement: ChainClients;
  l1: PublicClient;
  blockTracker: Address;
  preconfManager: Address;
  oracle: Address;
  events: EventPoller;
  store: NodeStore;
  /**
   * The rules of the contracts' version. The Oracle's ABI is the same in both (v1.2's slashes by the
   * commitment index alone and pays the slash amount); v1.2 has no windows, so no commitment is too old to settle.
   */
  rules: ProtocolRules;
  /**
   * How long (ms) to wait after an opening before settling it; default 0. Nodes that learn events by polling (upstream's
   * every 500 ms, in separate handlers per event) must see the opening before the settlement, or they may take the
   * opening after the settlement and report the commitment opened for good. On a real chain the oracle settles long
   * after the opening.
   */
  delayMs?: number;
  /**
   * v1.2: also slash a commitment whose bundle meets not every position constraint of its bid options
   * (positionConstraints.ts), as upstream's `--bid-options-slash-enabled` does. Off by default, as upstream's flag.
   */
  bidOptionsSlash?: boolean;
}

/**
 * The oracle's second job (crypto-contracts §4 "Settlement"): on each OpenedCommitmentStored, decide reward or
 * slash from the L1 block's contents and the decay residual at the provider's dispatch time, and settle through
 * Oracle.processBuilderCommitmentForBlockNumber. Each commitment is settled once (the settled set is stored).
 */
export class Settler {
  private readonly log = logger("oracle-settle");
  private readonly blocks = new BoundedMap<bigint, BlockContents>(1024);
  settledCount = 0;
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Each L1 block's recorded winner (lower case), once recorded: it never changes. */
  private readonly winners = new BoundedMap<bigint, string>(1024);
  private currentWindow: { at: number; read: Promise<bigint> } | undefined;

  /** Asked for the window of a commitment's block (none where deposits are per provider). */
  private readonly deposits: DepositModel;
  /** PreconfManager's ABI of the version: getCommitment returns v1.2's bid options too. */
  private readonly preconfManagerAbi;

  constructor(private readonly o: SettlerOptions) {
    this.deposits = depositModelOf(o.rules);
    this.preconfManagerAbi = protocolAbis(o.rules).preconfManager;
    o.store.migrate(
      "settlements-1",
      "CREATE TABLE settlements (commitment_index TEXT PRIMARY KEY, is_slash INTEGER NOT NULL, residual TEXT NOT NULL)",
    );
    o.events.on("OpenedCommitmentStored", (e) => this.schedule(e));
  }

  /**
   * After a restart the settlement chain may have lost its last seconds: forget settlements it no longer has, and
   * look again at the openings of the last `blocks` settlement blocks (the chain is the judge of what is settled).
   */
  async reconcile(blocks = 256n): Promise<void> {
    const pc = this.o.settlement.publicClient;
    const rows = this.o.store.db
      .query<{ commitment_index: string }, []>("SELECT commitment_index FROM settlements")
      .all();
    for (const { commitment_index } of rows) {
      const c = (await pc.readContract({
        address: this.o.preconfManager,
        abi: this.preconfManagerAbi,
        functionName: "getCommitment",
        args: [commitment_index as Hex],
      })) as { isSettled: boolean };
      if (!c.isSettled)
        this.o.store.db.query("DELETE FROM settlements WHERE commitment_index = ?").run(commitment_index);
    }
    const head = await pc.getBlockNumber({ cacheTime: 0 });
    this.o.events.rewindTo(head > blocks ? head - blocks : 0n);
  }

  /**
   * Settles each opening concurrently (up to MAX_IN_FLIGHT): one at a time, every settlement would wait for the
   * previous one's receipt. Each commitment is settled once; a replayed event of one in flight is ignored.
   */
  private async schedule(e: ChainEvent): Promise<void> {
    const index = e.args.commitmentIndex as string;
    if (this.inFlight.has(index)) return;
    while (this.inFlight.size >= MAX_IN_FLIGHT) await Promise.race(this.inFlight.values());
    const job = this.onOpened(e)
      .catch((err) => this.log.error("settling failed", { commitment: index, error: err }))
      .finally(() => this.inFlight.delete(index));
    this.inFlight.set(index, job);
  }

  /** Waits for every settlement in flight (tests, shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled(this.inFlight.values());
  }

  private async onOpened(e: ChainEvent): Promise<void> {
    if (this.o.delayMs) await Bun.sleep(this.o.delayMs);
    const a = e.args;
    const index = a.commitmentIndex as Hex;
    if (this.o.store.db.query("SELECT 1 FROM settlements WHERE commitment_index = ?").get(index)) return;
    const block = a.blockNumber as bigint;
    const committer = (a.committer as string).toLowerCase();
    const pc = this.o.settlement.publicClient;
    const onChain = (await pc.readContract({
      address: this.o.preconfManager,
      abi: this.preconfManagerAbi,
      functionName: "getCommitment",
      args: [index],
    })) as { isSettled: boolean };
    if (onChain.isSettled) return;
    const winner = await this.winnerOf(block);
    if (winner === "0x0000000000000000000000000000000000000000") {
      this.log.warn("no winner recorded for the block; not settling", { block, commitment: index });
      return;
    }
    const window = this.deposits.windowOfBlock(block);
    if (window !== null) {
      const current = await this.window();
      if (current > 2n && window < current - 2n) {
        this.log.warn("commitment too old to settle", { block, commitment: index });
        return;
      }
    }
    if (winner !== committer) return;
    const contents = await this.blockContents(block);
    const isSlash =
      !isHonoured(a.txnHash as string, a.revertingTxHashes as string, contents.txs) ||
      this.breaksPositionConstraints(index, a, contents);
    const residual = residualAfterDecay(
      a.decayStartTimeStamp as bigint,
      a.decayEndTimeStamp as bigint,
      a.dispatchTimestamp as bigint,
    );
    await transact(
      this.o.settlement,
      {
        address: this.o.oracle,
        abi: oracleAbi,
        functionName: "processBuilderCommitmentForBlockNumber",
        args: [index, block, committer as Address, isSlash, residual],
      },
      "settling commitment",
    );
    this.o.store.db
      .query("INSERT OR IGNORE INTO settlements (commitment_index, is_slash, residual) VALUES (?, ?, ?)")
      .run(index, isSlash ? 1 : 0, residual.toString());
    this.settledCount++;
    this.log.info(isSlash ? "slashed" : "rewarded", { block, commitment: index, residual });
  }

  /** With the switch on (v1.2), whether the honoured bundle leaves a position constraint of its bid options unmet. */
  private breaksPositionConstraints(index: Hex, a: ChainEvent["args"], contents: BlockContents): boolean {
    if (!this.o.bidOptionsSlash || !this.o.rules.bidOptionsSlash) return false;
    let options;
    try {
      options = decodeBidOptions(hexToBytes((a.bidOptions as Hex | undefined) ?? "0x")).options;
    } catch (e) {
      throw new UndecodableBidOptionsError("the opened commitment's bid options do not decode; not settling", {
        context: { commitment: index },
        cause: e,
      });
    }
    const positions = (a.txnHash as string).split(",").map((h) => contents.txs.get(h)?.position ?? -1);
    const unmet = unmetBidOptions(options, positions, contents.layout);
    if (unmet.length > 0) this.log.info("position constraints not met", { commitment: index, unmet: unmet.length });
    return unmet.length > 0;
  }

  private async winnerOf(block: bigint): Promise<string> {
    const known = this.winners.get(block);
    if (known) return known;
    const pc = this.o.settlement.publicClient;
    const winner = (
      await pc.readContract({
        address: this.o.blockTracker,
        abi: blockTrackerAbi,
        functionName: "getBlockWinner",
        args: [block],
      })
    ).toLowerCase();
    if (winner !== "0x0000000000000000000000000000000000000000") this.winners.set(block, winner);
    return winner;
  }

  private window(): Promise<bigint> {
    if (!this.currentWindow || performance.now() - this.currentWindow.at > WINDOW_READ_MS) {
      const read = this.o.settlement.publicClient.readContract({
        address: this.o.blockTracker,
        abi: blockTrackerAbi,
        functionName: "getCurrentWindow",
      });
      // A failed read is forgotten, unless a newer one has taken its place meanwhile.
      read.catch(() => {
        if (this.currentWindow?.read === read) this.currentWindow = undefined;
      });
      this.currentWindow = { at: performance.now(), read };
    }
    return this.currentWindow.read;
  }

  /**
   * L1 block contents: lower-case hash without 0x → position and success, with each transaction's gas and the
   * block's gasUsed (cached; blocks are final here).
   */
  private async blockContents(block: bigint): Promise<BlockContents> {
    const cached = this.blocks.get(block);
    if (cached) return cached;
    const b = await this.o.l1.getBlock({ blockNumber: block });
    const receipts = await Promise.all(b.transactions.map((hash) => this.o.l1.getTransactionReceipt({ hash })));
    const txs = new Map<string, TxOutcome>();
    receipts.forEach((r, i) => {
      txs.set(r.transactionHash.slice(2).toLowerCase(), { position: i, success: r.status === "success" });
    });
    const out = { txs, layout: { gasByPosition: receipts.map((r) => r.gasUsed), gasUsed: b.gasUsed } };
    this.blocks.set(block, out);
    return out;
  }
}
