import { type Address, type Hex, type PublicClient, zeroAddress } from "viem";
import type { ChainClients } from "../chain/clients.ts";
import { blockTrackerAbi } from "../chain/contracts.ts";
import { transact } from "../chain/transact.ts";
import type { MinedBlock } from "../l1/blockDriver.ts";
import type { NodeStore } from "../store/db.ts";
import { logger } from "../util/log.ts";

/** L1 blocks recorded in one go when the oracle catches up. */
const CATCH_UP_BATCH = 64n;

export interface WinnerRecorderOptions {
  settlement: ChainClients;
  l1: PublicClient;
  blockTracker: Address;
  store: NodeStore;
  /** L1 blocks to wait before recording a block (the relay lag of upstream, shortened). */
  lag: number;
  /** The L1's genesis block number (default 0): recording starts after it. */
  firstBlock?: bigint;
  /** The builder key of a provider that may win blocks (its coinbase); undefined for a non-PBS block. */
  builderKeyOf: (coinbase: Address) => Hex | undefined;
}

/**
 * The oracle's first job: record each L1 block's winner in BlockTracker, `lag` blocks after it is mined. The
 * winner is the block's coinbase, mapped to the builder key its provider registered (as upstream maps the relay's
 * builder pubkey). Progress is stored, so a restart resumes where it stopped.
 */
export class WinnerRecorder {
  private readonly log = logger("oracle");
  private static readonly KEY = "oracle.lastRecordedBlock";

  constructor(private readonly o: WinnerRecorderOptions) {}

  lastRecorded(): bigint {
    return BigInt(this.o.store.getKv(WinnerRecorder.KEY) ?? (this.o.firstBlock ?? 0n).toString());
  }

  /**
   * After a restart: the chains may have lost their last seconds of history (Anvil state dumps), so the stored
   * progress can be ahead of them. Resume from the last block that both the L1 still has and BlockTracker still
   * records a winner for.
   */
  async reconcile(): Promise<void> {
    const l1Head = await this.o.l1.getBlockNumber({ cacheTime: 0 });
    let last = this.lastRecorded() < l1Head ? this.lastRecorded() : l1Head;
    const { publicClient } = this.o.settlement;
    for (let steps = 0; last > 0n && steps < 256; steps++) {
      const winner = await publicClient.readContract({
        address: this.o.blockTracker,
        abi: blockTrackerAbi,
        functionName: "getBlockWinner",
        args: [last],
      });
      const header = await this.o.l1.getBlock({ blockNumber: last });
      // Recorded, and for the block the L1 has now (a lost block may have been mined again with another winner).
      if (
        winner.toLowerCase() === header.miner.toLowerCase() ||
        (header.miner === zeroAddress && winner === zeroAddress)
      )
        break;
      last--;
    }
    if (last !== this.lastRecorded()) {
      this.log.warn("resuming winner recording from an earlier block (chain history was lost)", {
        from: this.lastRecorded(),
        to: last,
      });
      this.o.store.setKv(WinnerRecorder.KEY, last.toString());
    }
  }

  /**
   * Records every block up to `tip - lag` that is not recorded yet. The blocks' transactions go out together (in
   * block order, consecutive nonces), so a catch-up over many blocks shares settlement blocks instead of waiting a
   * block interval per L1 block; progress advances over the blocks recorded without a gap.
   */
  async catchUp(tip: bigint): Promise<void> {
    const target = tip - BigInt(this.o.lag);
    for (let from = this.lastRecorded() + 1n; from <= target; from += CATCH_UP_BATCH) {
      const blocks: bigint[] = [];
      for (let b = from; b <= target && b < from + CATCH_UP_BATCH; b++) blocks.push(b);
      const headers = await Promise.all(blocks.map((blockNumber) => this.o.l1.getBlock({ blockNumber })));
      const results = await Promise.allSettled(blocks.map((b, i) => this.record(b, headers[i]!.miner)));
      const failed = results.findIndex((r) => r.status === "rejected");
      const done = failed < 0 ? blocks.length : failed;
      if (done > 0) this.o.store.setKv(WinnerRecorder.KEY, blocks[done - 1]!.toString());
      if (failed >= 0) throw (results[failed] as PromiseRejectedResult).reason;
    }
  }

  readonly onBlock = async (block: MinedBlock): Promise<void> => {
    await this.catchUp(block.number);
  };

  private async record(blockNumber: bigint, coinbase: Address): Promise<void> {
    const key = coinbase === zeroAddress ? undefined : this.o.builderKeyOf(coinbase);
    await transact(
      this.o.settlement,
      {
        address: this.o.blockTracker,
        abi: blockTrackerAbi,
        functionName: "recordL1Block",
        args: [blockNumber, key ?? "0x"],
      },
      `recording the winner of L1 block ${blockNumber}`,
    );
    this.log.debug("recorded winner", { block: blockNumber, winner: key ? coinbase : "none" });
  }
}
