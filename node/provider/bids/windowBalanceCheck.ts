import type { Address, PublicClient } from "viem";
import { bidderRegistryAbi } from "../../chain/contracts.ts";
import type { EventPoller } from "../../chain/eventPoller.ts";
import { FailedPreconditionError, InternalError } from "../../protocol/grpcCodes.ts";
import { BLOCKS_PER_WINDOW, windowOfBlock } from "../../protocol/windows.ts";
import type { BidderBalanceCheck, CommittedAmounts } from "./balanceCheck.ts";

/**
 * Protocol v1.1's balance check. The provider's off-chain mirror of a bidder's per-block allowance (BidderRegistry's maxBidPerBlock): for each
 * (bidder, window) the deposit / 10, and for each (bidder, block) what accepted bids reserved. A bid is checked
 * and reserved before the provider application sees it, and released when it is not committed.
 * The window deposit is read from the chain on first use and refreshed from BidderRegistered events; NewWindow
 * drops closed windows. (Upstream's first check of a block uses the whole deposit; we always use deposit / 10:
 * docs/divergences.md.) What a (bidder, block) has used starts from the provider's commitments in its store, so a
 * restarted provider still counts the bids it committed before.
 */
export class WindowBalanceCheck implements BidderBalanceCheck {
  /** A block's allowance is spent once a bid is committed, whatever becomes of the commitment. */
  readonly refunds = false;
  private readonly perWindow = new Map<string, bigint>();
  private readonly used = new Map<string, bigint>();

  constructor(
    private readonly client: PublicClient,
    private readonly bidderRegistry: Address,
    events: EventPoller,
    private readonly committed: Pick<CommittedAmounts, "committedForBlock">,
  ) {
    events.on("BidderRegistered", (e) => {
      const key = `${(e.args.bidder as string).toLowerCase()}/${e.args.windowNumber as bigint}`;
      this.perWindow.set(key, (e.args.depositedAmount as bigint) / BLOCKS_PER_WINDOW);
    });
    events.on("BidderWithdrawal", (e) => {
      this.perWindow.delete(`${(e.args.bidder as string).toLowerCase()}/${e.args.window as bigint}`);
    });
    events.on("NewWindow", (e) => this.dropBefore(e.args.window as bigint));
  }

  private async allowanceOf(bidder: Address, window: bigint, fresh = false): Promise<bigint> {
    const key = `${bidder.toLowerCase()}/${window}`;
    const known = this.perWindow.get(key);
    if (known !== undefined && !fresh) return known;
    let deposit: bigint;
    try {
      deposit = await this.client.readContract({
        address: this.bidderRegistry,
        abi: bidderRegistryAbi,
        functionName: "getDeposit",
        args: [bidder, window],
      });
    } catch (e) {
      throw new InternalError(`getting deposit: ${(e as Error).message.split("\n")[0]}`, { cause: e });
    }
    if (deposit === 0n) throw new FailedPreconditionError(`balance not found for window ${window}`);
    const perBlock = deposit / BLOCKS_PER_WINDOW;
    this.perWindow.set(key, perBlock);
    return perBlock;
  }

  /** Reserves `amount` of the bidder's allowance for `block`; returns the release function. */
  async checkAndReserve(bidder: Address, amount: bigint, block: bigint): Promise<() => void> {
    const window = windowOfBlock(block);
    let allowance = await this.allowanceOf(bidder, window);
    const key = `${bidder.toLowerCase()}/${block}`;
    const used = this.used.get(key) ?? this.committed.committedForBlock(bidder, block);
    // A deposit made a moment ago may not have reached us as an event yet: ask the chain before refusing.
    if (used + amount > allowance) allowance = await this.allowanceOf(bidder, window, true);
    if (used + amount > allowance) throw new FailedPreconditionError("insufficient balance");
    this.used.set(key, used + amount);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used.set(key, (this.used.get(key) ?? amount) - amount);
    };
  }

  /** Nothing comes back: a committed bid has spent its block's allowance (`refunds` is false). */
  refund(_bidder: Address | string, _amount: bigint): void {}

  private dropBefore(window: bigint): void {
    for (const key of this.perWindow.keys()) if (BigInt(key.split("/")[1]!) < window - 1n) this.perWindow.delete(key);
    const firstBlock = (window - 2n) * BLOCKS_PER_WINDOW + 1n;
    for (const key of this.used.keys()) if (BigInt(key.split("/")[1]!) < firstBlock) this.used.delete(key);
  }
}
