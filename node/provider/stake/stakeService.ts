import { type Address, type Hex, parseEventLogs } from "viem";
import { chainReadError } from "../../chain/chainErrors.ts";
import type { ChainClients } from "../../chain/clients.ts";
import { bidderRegistryAbi, type ContractAddresses, providerRegistryAbi } from "../../chain/contracts.ts";
import { transact } from "../../chain/transact.ts";
import { InternalError, InvalidArgumentError } from "../../protocol/grpcCodes.ts";
import { logger } from "../../util/log.ts";
import type { StakeRequest } from "./stakeRequest.ts";

/** A provider's stake as the API answers it: wei and its BLS keys. */
export interface StakeInfo {
  amount: bigint;
  blsPublicKeys: Hex[];
}

/**
 * The provider's stake and rewards (api-behaviour §7): ProviderRegistry stake, unstake and withdrawal, and the
 * rewards BidderRegistry holds for it. Reads are live contract calls; each write waits for its receipt and reads
 * its result from the events, as upstream does. Errors keep upstream's texts; codes as transact and chainErrors.ts say.
 */
export class ProviderStakeService {
  private readonly log = logger("provider-stake");

  constructor(
    private readonly c: ChainClients,
    private readonly addresses: Pick<ContractAddresses, "providerRegistry" | "bidderRegistry">,
  ) {}

  get provider(): Address {
    return this.c.account.address;
  }

  private async read<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (e) {
      throw chainReadError(what, e);
    }
  }

  private readRegistry<T>(what: string, functionName: string, args: readonly unknown[] = []): Promise<T> {
    return this.read(
      what,
      () =>
        this.c.publicClient.readContract({
          address: this.addresses.providerRegistry,
          abi: providerRegistryAbi,
          functionName,
          args,
        } as never) as Promise<T>,
    );
  }

  /** GetStake: ProviderRegistry.getProviderStake and getBLSKeys of this provider. */
  async getStake(): Promise<StakeInfo> {
    const amount = await this.readRegistry<bigint>("getting stake", "getProviderStake", [this.provider]);
    const keys = await this.readRegistry<readonly Hex[]>("getting bls public key", "getBLSKeys", [this.provider]);
    return { amount, blsPublicKeys: [...keys] };
  }

  /** GetMinStake: ProviderRegistry.minStake. */
  getMinStake(): Promise<bigint> {
    return this.readRegistry<bigint>("getting min stake", "minStake");
  }

  /**
   * Stake: adds stake (ProviderRegistry.stake) when this provider is registered, else registers it
   * (registerAndStake), which needs BLS keys; then adds each key with its signature (addVerifiedBLSKey).
   * Answers the amount staked by this call and the keys added.
   */
  async stake(req: StakeRequest): Promise<StakeInfo> {
    const registered = await this.readRegistry<boolean>("checking registration", "providerRegistered", [this.provider]);
    if (!registered && req.blsPublicKeys.length === 0) throw new InvalidArgumentError("missing BLS keys");
    // Upstream indexes the signatures by key after staking and crashes when one is missing; we refuse before.
    if (req.blsSignatures.length < req.blsPublicKeys.length || (!registered && req.blsSignatures.length === 0)) {
      throw new InvalidArgumentError("missing BLS signatures");
    }
    const receipt = await transact(
      this.c,
      {
        address: this.addresses.providerRegistry,
        abi: providerRegistryAbi,
        functionName: registered ? "stake" : "registerAndStake",
        value: req.amount,
      },
      "failed to stake",
      "waiting for receipt for registration",
    );
    let amount: bigint | undefined;
    for (const l of parseEventLogs({ abi: providerRegistryAbi, logs: receipt.logs })) {
      if (l.eventName === "ProviderRegistered") amount = l.args.stakedAmount;
      else if (l.eventName === "FundsDeposited") amount = l.args.amount;
    }
    if (amount === undefined) throw new InternalError("missing log for stake");
    this.log.info(registered ? "stake added" : "registered and staked", { amount });
    const added: Hex[] = [];
    for (const [i, key] of req.blsPublicKeys.entries()) {
      const r = await transact(
        this.c,
        {
          address: this.addresses.providerRegistry,
          abi: providerRegistryAbi,
          functionName: "addVerifiedBLSKey",
          args: [key, req.blsSignatures[i]!],
        },
        "adding verified bls key",
        "waiting for receipt for adding verified bls key",
      );
      for (const l of parseEventLogs({ abi: providerRegistryAbi, eventName: "BLSKeyAdded", logs: r.logs }))
        added.push(l.args.blsPublicKey);
    }
    return { amount, blsPublicKeys: added };
  }

  /** Unstake: ProviderRegistry.unstake (starts the withdrawal delay). */
  async unstake(): Promise<void> {
    const receipt = await transact(
      this.c,
      { address: this.addresses.providerRegistry, abi: providerRegistryAbi, functionName: "unstake" },
      "requesting withdrawal",
    );
    const log = parseEventLogs({ abi: providerRegistryAbi, eventName: "Unstake", logs: receipt.logs })[0];
    if (!log) throw new InternalError("no withdrawal request event found");
    this.log.info("unstake requested", { timestamp: log.args.timestamp });
  }

  /** WithdrawStake: ProviderRegistry.withdraw; answers the amount paid out. */
  async withdrawStake(): Promise<bigint> {
    const receipt = await transact(
      this.c,
      { address: this.addresses.providerRegistry, abi: providerRegistryAbi, functionName: "withdraw" },
      "withdrawing stake",
    );
    const log = parseEventLogs({ abi: providerRegistryAbi, eventName: "Withdraw", logs: receipt.logs })[0];
    if (!log) throw new InternalError("no withdrawal event found");
    this.log.info("stake withdrawn", { amount: log.args.amount });
    return log.args.amount;
  }

  /** GetProviderReward: BidderRegistry.providerAmount of this provider. */
  getReward(): Promise<bigint> {
    return this.read("checking provider rewards", () =>
      this.c.publicClient.readContract({
        address: this.addresses.bidderRegistry,
        abi: bidderRegistryAbi,
        functionName: "providerAmount",
        args: [this.provider],
      }),
    );
  }

  /** WithdrawProviderReward: BidderRegistry.withdrawProviderAmount; 0 (no transaction) when there is nothing. */
  async withdrawReward(): Promise<bigint> {
    const amount = await this.getReward();
    if (amount === 0n) return 0n;
    await transact(
      this.c,
      {
        address: this.addresses.bidderRegistry,
        abi: bidderRegistryAbi,
        functionName: "withdrawProviderAmount",
        args: [this.provider],
      },
      "withdrawing provider rewards",
    );
    this.log.info("provider rewards withdrawn", { amount });
    return amount;
  }
}
