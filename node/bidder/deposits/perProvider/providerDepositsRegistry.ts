import { type Address, getAddress, parseEventLogs } from "viem";
import { chainReadError } from "../../../chain/chainErrors.ts";
import type { ChainClients } from "../../../chain/clients.ts";
import type { ContractAddresses } from "../../../chain/contracts.ts";
import { bidderRegistryV12Abi, providerRegistryV12Abi } from "../../../chain/contractsV12.ts";
import { transact } from "../../../chain/transact.ts";
import { InternalError } from "../../../protocol/grpcCodes.ts";

export interface ProviderAmount {
  provider: Address;
  amount: bigint;
}

/**
 * The bidder's side of the v1.2 BidderRegistry (deposits per provider, withdrawal requests) and ProviderRegistry
 * (which providers can take bids). Each write waits for its receipt and reads its result from the events it emitted,
 * as upstream does (upstream-head-delta §1.3, §3.1); the error texts are upstream's.
 */
export class ProviderDepositsRegistry {
  constructor(
    private readonly c: ChainClients,
    private readonly addresses: ContractAddresses,
  ) {}

  get bidder(): Address {
    return this.c.account.address;
  }

  private read<T>(what: string, functionName: string, args: readonly unknown[] = []): Promise<T> {
    return (
      this.c.publicClient.readContract({
        address: this.addresses.bidderRegistry,
        abi: bidderRegistryV12Abi,
        functionName,
        args,
      } as never) as Promise<T>
    ).catch((e) => {
      throw chainReadError(what, e);
    });
  }

  /** BidderRegistry.depositManagerImpl(): the EIP-7702 delegate bidder EOAs point at (zero when unset). */
  depositManagerImpl(): Promise<Address> {
    return this.read("reading deposit manager implementation", "depositManagerImpl");
  }

  /** The available deposit toward `provider` (pending withdrawal requests do not lower it). */
  getDeposit(provider: Address): Promise<bigint> {
    return this.read("getting deposit", "getDeposit", [this.bidder, provider]);
  }

  /** One deposit; answers this deposit's amount (BidderDeposited.depositedAmount), not the new total. */
  async deposit(provider: Address, amount: bigint): Promise<ProviderAmount> {
    const receipt = await transact(
      this.c,
      {
        address: this.addresses.bidderRegistry,
        abi: bidderRegistryV12Abi,
        functionName: "depositAsBidder",
        args: [provider],
        value: amount,
      },
      "deposit",
    );
    const log = this.logs(receipt.logs, "BidderDeposited")[0];
    if (!log) throw new InternalError("missing log for deposit");
    return { provider: log.args.provider, amount: log.args.depositedAmount };
  }

  /** total / n to each provider, the remainder to the last, in one transaction; one result per provider. */
  async depositEvenly(providers: Address[], total: bigint): Promise<ProviderAmount[]> {
    const receipt = await transact(
      this.c,
      {
        address: this.addresses.bidderRegistry,
        abi: bidderRegistryV12Abi,
        functionName: "depositEvenlyAsBidder",
        args: [providers],
        value: total,
      },
      "deposit",
    );
    const logs = this.logs(receipt.logs, "BidderDeposited");
    if (logs.length !== providers.length) throw new InternalError("missing log for deposit evenly");
    return logs.map((l) => ({ provider: l.args.provider, amount: l.args.depositedAmount }));
  }

  /** Starts the withdrawal period toward each provider; answers each deposit's available amount. */
  async requestWithdrawals(providers: Address[]): Promise<ProviderAmount[]> {
    const receipt = await transact(
      this.c,
      {
        address: this.addresses.bidderRegistry,
        abi: bidderRegistryV12Abi,
        functionName: "requestWithdrawalsAsBidder",
        args: [providers],
      },
      "requesting withdrawals",
    );
    const logs = this.logs(receipt.logs, "WithdrawalRequested");
    if (!logs.length) throw new InternalError("missing log for request withdrawals");
    return logs.map((l) => ({ provider: l.args.provider, amount: l.args.availableAmount }));
  }

  /** Withdraws each provider's available deposit once its request's period has passed. */
  async withdraw(providers: Address[]): Promise<ProviderAmount[]> {
    const receipt = await transact(
      this.c,
      {
        address: this.addresses.bidderRegistry,
        abi: bidderRegistryV12Abi,
        functionName: "withdrawAsBidder",
        args: [providers],
      },
      "withdrawing deposit",
    );
    const logs = this.logs(receipt.logs, "BidderWithdrawal");
    if (!logs.length) throw new InternalError("missing log for withdraw");
    return logs.map((l) => ({ provider: l.args.provider, amount: l.args.amountWithdrawn }));
  }

  /** Every provider this bidder ever deposited toward, with its available deposit; zero deposits left out. */
  async allDeposits(): Promise<ProviderAmount[]> {
    let providers: Address[];
    try {
      const logs = await this.c.publicClient.getContractEvents({
        address: this.addresses.bidderRegistry,
        abi: bidderRegistryV12Abi,
        eventName: "BidderDeposited",
        args: { bidder: this.bidder },
        fromBlock: 0n,
        toBlock: "latest",
      });
      providers = [...new Set(logs.map((l) => getAddress(l.args.provider!)))];
    } catch (e) {
      throw chainReadError("filtering bidder deposited", e);
    }
    const deposits = await Promise.all(
      providers.map(async (provider) => ({ provider, amount: await this.getDeposit(provider) })),
    );
    return deposits.filter((d) => d.amount > 0n);
  }

  async balance(): Promise<bigint> {
    try {
      return await this.c.publicClient.getBalance({ address: this.bidder, blockTag: "latest" });
    } catch (e) {
      throw chainReadError("getting bidder balance", e);
    }
  }

  /** Every provider that ever registered and is valid now (staked, no withdrawal request, a BLS key). */
  async validProviders(): Promise<Address[]> {
    let registered: Address[];
    try {
      const logs = await this.c.publicClient.getContractEvents({
        address: this.addresses.providerRegistry,
        abi: providerRegistryV12Abi,
        eventName: "ProviderRegistered",
        fromBlock: 0n,
        toBlock: "latest",
      });
      registered = [...new Set(logs.map((l) => getAddress(l.args.provider!)))];
    } catch (e) {
      throw chainReadError("filtering provider registered events", e);
    }
    if (!registered.length) return [];
    let valid: readonly boolean[];
    try {
      valid = await this.c.publicClient.readContract({
        address: this.addresses.providerRegistry,
        abi: providerRegistryV12Abi,
        functionName: "areProvidersValid",
        args: [registered],
      });
    } catch (e) {
      throw chainReadError("checking if providers are valid", e);
    }
    return registered.filter((_, i) => valid[i]);
  }

  private logs<E extends "BidderDeposited" | "WithdrawalRequested" | "BidderWithdrawal">(
    logs: Parameters<typeof parseEventLogs>[0]["logs"],
    eventName: E,
  ) {
    const registry = this.addresses.bidderRegistry.toLowerCase();
    return parseEventLogs({
      abi: bidderRegistryV12Abi,
      eventName,
      logs: logs.filter((l) => l.address.toLowerCase() === registry),
    });
  }
}
