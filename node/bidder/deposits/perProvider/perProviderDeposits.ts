import { create } from "@bufbuild/protobuf";
import { type Address, getAddress, zeroAddress } from "viem";
import { MevCommitError } from "../../../../lib/errors.ts";
import * as pb from "../../../gen/proto/v1.2/bidderapi/v1/bidderapi_pb.ts";
import { FailedPreconditionError, InternalError, InvalidArgumentError, RpcError } from "../../../protocol/grpcCodes.ts";
import type { BidderDeposits } from "../bidderDeposits.ts";
import type { DepositManagerClient } from "./depositManagerClient.ts";
import {
  validateDepositEvenly,
  validateDepositV12,
  validateGetDepositV12,
  validateProvidersList,
} from "./depositValidation.ts";
import type { ProviderDepositsRegistry } from "./providerDepositsRegistry.ts";

/** BidderRegistry has no deposit manager implementation: a v1.2 bidder cannot run (upstream refuses to start). */
export class DepositManagerNotSetError extends MevCommitError {}

/** EIP-55 with 0x (Go's `Address.Hex()`). */
const hex = (a: string): string => getAddress(a);
/** Lowercase hex without 0x (Go's `common.Bytes2Hex(addr.Bytes())`). */
const bare = (a: string): string => a.toLowerCase().replace(/^0x/, "");
/** Go's `common.HexToAddress`: the request's text as an address (validated before). */
const address = (a: string): Address => getAddress(a.startsWith("0x") ? a : `0x${a}`);

/** A status error as Go's `%v` prints it inside another message. */
const goStatusText = (e: unknown): string => {
  const r = e instanceof RpcError ? e : new InternalError(String((e as Error).message ?? e));
  const names: Record<number, string> = {
    3: "InvalidArgument",
    9: "FailedPrecondition",
    13: "Internal",
    14: "Unavailable",
  };
  return `rpc error: code = ${names[r.code] ?? `Code(${r.code})`} desc = ${r.message}`;
};

/**
 * The bidder's per-provider deposits (protocol v1.2): its deposit calls (upstream-head-delta §1.1–§1.3, §3.1), written
 * once for both transports: each takes the request message as a transport decoded it, validates it with upstream's
 * rules and texts, and answers the proto message in upstream's formats (addresses EIP-55 in some replies and bare lowercase hex in others, as upstream).
 */
export class PerProviderDeposits implements BidderDeposits {
  readonly model = "perProvider" as const;

  constructor(
    readonly registry: ProviderDepositsRegistry,
    readonly manager: DepositManagerClient,
  ) {}

  /** The implementation bidder EOAs delegate to; read at start. */
  get depositManagerImpl(): Address {
    return this.manager.impl;
  }

  async resume(): Promise<void> {
    this.manager.impl = await this.registry.depositManagerImpl();
    if (this.manager.impl === zeroAddress)
      throw new DepositManagerNotSetError("deposit manager implementation address is not set");
  }

  close(): void {}

  async deposit(r: { amount: string; provider: string }): Promise<pb.DepositResponse> {
    validateDepositV12(r);
    const amount = BigInt(r.amount);
    const provider = address(r.provider);
    if (provider === zeroAddress) throw new InvalidArgumentError("provider address is zero address");
    const d = await this.registry.deposit(provider, amount);
    return create(pb.DepositResponseSchema, { amount: d.amount.toString(), provider: hex(d.provider) });
  }

  async depositEvenly(r: { totalAmount: string; providers: readonly string[] }): Promise<pb.DepositEvenlyResponse> {
    validateDepositEvenly(r);
    if (!r.providers.length) throw new InvalidArgumentError("at least one provider is required");
    const done = await this.registry.depositEvenly(r.providers.map(address), BigInt(r.totalAmount));
    return create(pb.DepositEvenlyResponseSchema, {
      providers: done.map((d) => bare(d.provider)),
      amounts: done.map((d) => d.amount.toString()),
    });
  }

  async getDeposit(r: { provider: string }): Promise<pb.DepositResponse> {
    validateGetDepositV12(r);
    const amount = await this.registry.getDeposit(address(r.provider));
    return create(pb.DepositResponseSchema, { amount: amount.toString(), provider: r.provider });
  }

  async getAllDeposits(): Promise<pb.GetAllDepositsResponse> {
    const deposits = await this.registry.allDeposits();
    const balance = await this.registry.balance();
    return create(pb.GetAllDepositsResponseSchema, {
      deposits: deposits.map((d) => ({ provider: hex(d.provider), amount: d.amount.toString() })),
      bidderBalance: balance.toString(),
    });
  }

  async requestWithdrawals(r: { providers: readonly string[] }): Promise<pb.RequestWithdrawalsResponse> {
    validateProvidersList("request withdrawals", r.providers);
    if (!r.providers.length) throw new InvalidArgumentError("at least one provider is required");
    const done = await this.registry.requestWithdrawals(r.providers.map(address));
    return create(pb.RequestWithdrawalsResponseSchema, {
      providers: done.map((d) => bare(d.provider)),
      amounts: done.map((d) => d.amount.toString()),
    });
  }

  async withdraw(r: { providers: readonly string[] }): Promise<pb.WithdrawResponse> {
    validateProvidersList("withdraw", r.providers);
    if (!r.providers.length) throw new InvalidArgumentError("at least one provider is required");
    const done = await this.registry.withdraw(r.providers.map(address));
    return create(pb.WithdrawResponseSchema, {
      amounts: done.map((d) => d.amount.toString()),
      providers: done.map((d) => bare(d.provider)),
    });
  }

  async getValidProviders(): Promise<pb.GetValidProvidersResponse> {
    return create(pb.GetValidProvidersResponseSchema, {
      validProviders: (await this.registry.validProviders()).map(hex),
    });
  }

  async depositManagerStatus(): Promise<pb.DepositManagerStatusResponse> {
    if (!(await this.manager.enabled())) return create(pb.DepositManagerStatusResponseSchema, { enabled: false });
    const targets = await this.manager.targets();
    return create(pb.DepositManagerStatusResponseSchema, {
      enabled: true,
      targetDeposits: targets.map((t) => ({ provider: hex(t.provider), targetDeposit: t.amount.toString() })),
    });
  }

  async enableDepositManager(): Promise<pb.EnableDepositManagerResponse> {
    if (await this.statusEnabled())
      throw new FailedPreconditionError("EnableDepositManager failed: deposit manager is already enabled");
    await this.manager.enable();
    return create(pb.EnableDepositManagerResponseSchema, { success: true });
  }

  async disableDepositManager(): Promise<pb.DisableDepositManagerResponse> {
    if (!(await this.statusEnabled()))
      throw new FailedPreconditionError("DisableDepositManager failed: deposit manager is already disabled");
    await this.manager.disable();
    return create(pb.DisableDepositManagerResponseSchema, { success: true });
  }

  /**
   * Target amounts are parsed as upstream's base-10 SetString whose result is not checked: text that is not a
   * decimal number sets a target of zero.
   */
  async setTargetDeposits(r: {
    targetDeposits: readonly { provider: string; targetDeposit: string }[];
  }): Promise<pb.SetTargetDepositsResponse> {
    if (!(await this.statusEnabled()))
      throw new FailedPreconditionError("SetTargetDeposits failed: deposit manager is not enabled");
    if (!r.targetDeposits.length)
      throw new InvalidArgumentError("SetTargetDeposits failed: no target deposits provided");
    const { set, toppedUp } = await this.manager.setTargets(
      r.targetDeposits.map((t) => ({
        provider: goHexToAddress(t.provider),
        amount: /^[0-9]+$/.test(t.targetDeposit) ? BigInt(t.targetDeposit) : 0n,
      })),
    );
    return create(pb.SetTargetDepositsResponseSchema, {
      successfullySetDeposits: set.map((t) => ({ provider: bare(t.provider), targetDeposit: t.amount.toString() })),
      successfullyToppedUpProviders: toppedUp.map(hex),
    });
  }

  /** The status check Enable, Disable and SetTargetDeposits begin with, failing as upstream words it. */
  private async statusEnabled(): Promise<boolean> {
    try {
      return await this.manager.enabled();
    } catch (e) {
      throw new InternalError(`checking deposit manager status: ${goStatusText(e)}`, { cause: e });
    }
  }
}

/**
 * Go's `common.HexToAddress` for unvalidated text (TargetDeposit has no rules): an optional 0x, hex digits, the last
 * 20 bytes kept, left-padded with zeros; anything else decodes to what Go's lenient hex decoding gives, which here is
 * the zero address.
 */
function goHexToAddress(text: string): Address {
  const digits = text.replace(/^0[xX]/, "");
  if (!/^[0-9a-fA-F]*$/.test(digits)) return zeroAddress;
  const even = digits.length % 2 ? `0${digits}` : digits;
  return getAddress(`0x${even.slice(-40).padStart(40, "0")}`);
}
