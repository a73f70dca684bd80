import { type Address, parseEventLogs } from "viem";
import { chainReadError } from "../../../chain/chainErrors.ts";
import type { ChainClients } from "../../../chain/clients.ts";
import { bidderRegistryAbi, blockTrackerAbi, type ContractAddresses } from "../../../chain/contracts.ts";
import { transact } from "../../../chain/transact.ts";
import { InternalError } from "../../../protocol/grpcCodes.ts";

export interface WindowAmount {
  window: bigint;
  amount: bigint;
}

/**
 * The bidder's side of BidderRegistry and BlockTracker: each write waits for its receipt and reads its result
 * from the events it emitted, as upstream does.
 */
export class BidderRegistryClient {
  constructor(
    private readonly c: ChainClients,
    private readonly addresses: ContractAddresses,
  ) {}

  get bidder(): Address {
    return this.c.account.address;
  }

  async currentWindow(): Promise<bigint> {
    try {
      return await this.c.publicClient.readContract({
        address: this.addresses.blockTracker,
        abi: blockTrackerAbi,
        functionName: "getCurrentWindow",
      });
    } catch (e) {
      throw chainReadError("getting current window", e);
    }
  }

  async getDeposit(window: bigint, bidder: Address = this.bidder): Promise<bigint> {
    try {
      return await this.c.publicClient.readContract({
        address: this.addresses.bidderRegistry,
        abi: bidderRegistryAbi,
        functionName: "getDeposit",
        args: [bidder, window],
      });
    } catch (e) {
      throw chainReadError("getting deposit", e);
    }
  }

  /** Deposits into one window; answers the window's new cumulative total (from BidderRegistered). */
  async depositForWindow(window: bigint, amount: bigint): Promise<WindowAmount> {
    const receipt = await transact(
      this.c,
      {
        address: this.addresses.bidderRegistry,
        abi: bidderRegistryAbi,
        functionName: "depositForWindow",
        args: [window],
        value: amount,
      },
      "deposit",
    );
    const log = parseEventLogs({ abi: bidderRegistryAbi, eventName: "BidderRegistered", logs: receipt.logs })[0];
    if (!log) throw new InternalError("missing log for deposit");
    return { window: log.args.windowNumber, amount: log.args.depositedAmount };
  }

  /** Deposits `amountPerWindow` into each window (one transaction). */
  async depositForWindows(windows: bigint[], amountPerWindow: bigint): Promise<WindowAmount[]> {
    const receipt = await transact(
      this.c,
      {
        address: this.addresses.bidderRegistry,
        abi: bidderRegistryAbi,
        functionName: "depositForWindows",
        args: [windows],
        value: amountPerWindow * BigInt(windows.length),
      },
      "deposit",
    );
    return parseEventLogs({ abi: bidderRegistryAbi, eventName: "BidderRegistered", logs: receipt.logs }).map((l) => ({
      window: l.args.windowNumber,
      amount: l.args.depositedAmount,
    }));
  }

  /** Withdraws closed windows; one result per BidderWithdrawal log, in log order. */
  async withdrawFromWindows(windows: bigint[]): Promise<WindowAmount[]> {
    const receipt = await transact(
      this.c,
      {
        address: this.addresses.bidderRegistry,
        abi: bidderRegistryAbi,
        functionName: "withdrawFromWindows",
        args: [windows],
      },
      "withdrawing deposit",
    );
    const logs = parseEventLogs({ abi: bidderRegistryAbi, eventName: "BidderWithdrawal", logs: receipt.logs });
    if (!logs.length) throw new InternalError("missing log for withdrawal");
    return logs.map((l) => ({ window: l.args.window, amount: l.args.amount }));
  }

  async withdrawFromWindow(window: bigint): Promise<WindowAmount> {
    const receipt = await transact(
      this.c,
      {
        address: this.addresses.bidderRegistry,
        abi: bidderRegistryAbi,
        functionName: "withdrawBidderAmountFromWindow",
        args: [this.bidder, window],
      },
      "withdrawing deposit",
    );
    const log = parseEventLogs({ abi: bidderRegistryAbi, eventName: "BidderWithdrawal", logs: receipt.logs })[0];
    if (!log) throw new InternalError("missing log for withdrawal");
    return { window: log.args.window, amount: log.args.amount };
  }
}
