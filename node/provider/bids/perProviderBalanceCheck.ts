import type { Address, PublicClient } from "viem";
import { bidderRegistryV12Abi } from "../../chain/contractsV12.ts";
import type { EventPoller } from "../../chain/eventPoller.ts";
import { FailedPreconditionError, InternalError } from "../../protocol/grpcCodes.ts";
import type { BidderBalanceCheck, CommittedAmounts } from "./balanceCheck.ts";

/**
 * Protocol v1.2's balance check (upstream-head-delta §3.2): one cached balance per bidder for this provider only, no
 * windows and no per-block allowance. The first bid of a bidder reads
 * BidderRegistry.getDepositConsideringWithdrawalRequest(bidder, this provider) (0 while a withdrawal request is
 * pending, so such a bidder is refused); each accepted bid is deducted from the cached balance. BidderDeposited for this
 * provider adds to a cached balance (or starts one at the new available amount); WithdrawalRequested and
 * BidderWithdrawal drop it. A bid whose money does not leave the deposit (another provider won its block, or the
 * commitment was never stored) is given back with `refund`, as upstream does, only while the balance is cached.
 * A balance read from the chain or started by a deposit event counts the provider's commitments whose amount the chain
 * has not taken yet (not opened) and that were not given back: so a restarted provider does not commit the same
 * balance twice (upstream keeps its cached balances in its store; docs/divergences.md).
 */
export class PerProviderBalanceCheck implements BidderBalanceCheck {
  readonly refunds = true;
  private readonly balances = new Map<string, bigint>();

  constructor(
    private readonly client: PublicClient,
    private readonly bidderRegistry: Address,
    private readonly self: Address,
    events: EventPoller,
    private readonly committed: Pick<CommittedAmounts, "committedUnsettled">,
  ) {
    const forUs = (provider: unknown) => (provider as string).toLowerCase() === self.toLowerCase();
    events.on("BidderDeposited", (e) => {
      if (!forUs(e.args.provider)) return;
      const bidder = e.args.bidder as Address;
      const key = bidder.toLowerCase();
      const known = this.balances.get(key);
      this.balances.set(
        key,
        known === undefined
          ? (e.args.newAvailableAmount as bigint) - this.committed.committedUnsettled(bidder)
          : known + (e.args.depositedAmount as bigint),
      );
    });
    for (const name of ["WithdrawalRequested", "BidderWithdrawal"])
      events.on(name, (e) => {
        if (forUs(e.args.provider)) this.balances.delete((e.args.bidder as string).toLowerCase());
      });
  }

  async checkAndReserve(bidder: Address, amount: bigint, _block: bigint): Promise<() => void> {
    const key = bidder.toLowerCase();
    let balance = this.balances.get(key);
    if (balance === undefined) {
      balance = await this.readDeposit(bidder);
      if (balance === 0n)
        throw new FailedPreconditionError(`balance not found for bidder ${bidder} and provider ${this.self}`);
      balance -= this.committed.committedUnsettled(bidder);
    }
    if (balance < amount) throw new FailedPreconditionError("insufficient balance");
    this.balances.set(key, balance - amount);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.refund(bidder, amount);
    };
  }

  /** Gives `amount` back to the bidder's cached balance; nothing happens when none is cached. */
  refund(bidder: Address | string, amount: bigint): void {
    const key = bidder.toLowerCase();
    const known = this.balances.get(key);
    if (known !== undefined) this.balances.set(key, known + amount);
  }

  /** The cached balance of a bidder (undefined until its first bid or deposit event). */
  cached(bidder: Address): bigint | undefined {
    return this.balances.get(bidder.toLowerCase());
  }

  private async readDeposit(bidder: Address): Promise<bigint> {
    try {
      return await this.client.readContract({
        address: this.bidderRegistry,
        abi: bidderRegistryV12Abi,
        functionName: "getDepositConsideringWithdrawalRequest",
        args: [bidder, this.self],
      });
    } catch (e) {
      throw new InternalError(`getting deposit: ${(e as Error).message.split("\n")[0]}`, { cause: e });
    }
  }
}
