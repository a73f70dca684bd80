/**
 * The gRPC transport of the role interfaces (api.ts): upstream's services on the nodes' RPC ports (the target's
 * bidderRpcUrl, providerRpcUrls) as the target's protocol version defines them, requests and answers in the
 * protocol's JSON mapping (grpc.ts).
 */

import type { ProtocolRules } from "../protocolRules.ts";
import type {
  BidderApi,
  InfoQuery,
  MessageStream,
  NotificationsApi,
  PerProviderDepositApi,
  ProviderApi,
  TargetDeposit,
  Unary,
  WindowChoice,
} from "./api.ts";
import { clientStream, GrpcStream, messageOf, NotAMessageError, service, unary } from "./grpc.ts";
import type { ScenarioScope } from "./scope.ts";

const windowOf = (at?: WindowChoice) => ({
  windowNumber: at?.windowNumber?.toString(),
  blockNumber: at?.blockNumber?.toString(),
});
const infoOf = (q?: InfoQuery) => ({ blockNumber: q?.blockNumber?.toString(), page: q?.page, limit: q?.limit });

/** A sequence of JSON values written one after the other (`{…}{…}` or `{…}\n{…}`), as SendProcessedBids' body. */
export function jsonSequence(text: string): unknown[] {
  const out: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") {
      if (depth++ === 0) start = i;
    } else if (ch === "}" || ch === "]") {
      if (--depth === 0) out.push(parse(text.slice(start, i + 1)));
    } else if (depth === 0 && !/\s/.test(ch))
      throw new NotAMessageError(`not a sequence of JSON objects: ${text.slice(0, 200)}`);
  }
  if (depth !== 0) throw new NotAMessageError(`truncated JSON: ${text.slice(0, 200)}`);
  return out;
}

function parse(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch (e) {
    throw new NotAMessageError(`not JSON: ${(e as Error).message}`);
  }
}

abstract class GrpcRole {
  constructor(
    readonly url: string,
    protected readonly scope: ScenarioScope,
    /** The rules of the target's protocol version: which services' descriptors the calls use. */
    protected readonly rules: ProtocolRules,
  ) {}
}

export class GrpcBidderApi extends GrpcRole implements BidderApi {
  private readonly svc = service("bidderapi.v1.Bidder", this.rules);
  private call(name: string, req: unknown = {}): Promise<Unary> {
    return unary(this.svc, this.url, name, req, this.scope);
  }
  /** The content type is HTTP's: the steps that vary it run over HTTP only. */
  sendBid(json: string): MessageStream {
    const bid = messageOf(this.svc.method.sendBid!.input, parse(json));
    return new GrpcStream("Bidder/SendBid", this.svc, this.url, "SendBid", bid, this.scope);
  }
  deposit(amount: bigint, at?: WindowChoice) {
    return this.call("Deposit", { amount: amount.toString(), ...windowOf(at) });
  }
  getDeposit(windowNumber?: bigint) {
    return this.call("GetDeposit", { windowNumber: windowNumber?.toString() });
  }
  withdraw(windowNumber?: bigint) {
    return this.call("Withdraw", { windowNumber: windowNumber?.toString() });
  }
  withdrawFromWindows(windows: bigint[]) {
    return this.call("WithdrawFromWindows", { windowNumbers: windows.map(String) });
  }
  autoDeposit(amount: bigint, at?: WindowChoice) {
    return this.call("AutoDeposit", { amount: amount.toString(), ...windowOf(at) });
  }
  autoDepositStatus() {
    return this.call("AutoDepositStatus");
  }
  cancelAutoDeposit(withdraw?: boolean) {
    return this.call("CancelAutoDeposit", { withdraw });
  }
  getBidInfo(q?: InfoQuery) {
    return this.call("GetBidInfo", infoOf(q));
  }
  claimSlashedFunds() {
    return this.call("ClaimSlashedFunds");
  }
  get perProvider(): PerProviderDepositApi {
    return new GrpcPerProviderDepositApi(this.url, this.scope, this.rules);
  }
}

/**
 * Protocol v1.2's deposit RPCs of bidderapi.v1.Bidder, by name, from the target version's descriptor (on a v1.1
 * target they fail with the descriptor's own error: v1.1 has no such method).
 */
export class GrpcPerProviderDepositApi extends GrpcRole implements PerProviderDepositApi {
  private readonly svc = service("bidderapi.v1.Bidder", this.rules);
  private call(name: string, req: unknown = {}): Promise<Unary> {
    return unary(this.svc, this.url, name, req, this.scope);
  }
  deposit(amount: string, provider?: string) {
    return this.call("Deposit", { amount, provider });
  }
  depositEvenly(totalAmount: string, providers: string[]) {
    return this.call("DepositEvenly", { totalAmount, providers });
  }
  getDeposit(provider?: string) {
    return this.call("GetDeposit", { provider });
  }
  getAllDeposits() {
    return this.call("GetAllDeposits");
  }
  getValidProviders() {
    return this.call("GetValidProviders");
  }
  requestWithdrawals(providers: string[]) {
    return this.call("RequestWithdrawals", { providers });
  }
  withdraw(providers: string[]) {
    return this.call("Withdraw", { providers });
  }
  enableDepositManager() {
    return this.call("EnableDepositManager");
  }
  disableDepositManager() {
    return this.call("DisableDepositManager");
  }
  setTargetDeposits(targets: TargetDeposit[]) {
    return this.call("SetTargetDeposits", { targetDeposits: targets });
  }
  depositManagerStatus() {
    return this.call("DepositManagerStatus");
  }
}

export class GrpcProviderApi extends GrpcRole implements ProviderApi {
  private readonly svc = service("providerapi.v1.Provider", this.rules);
  private call(name: string, req: unknown = {}): Promise<Unary> {
    return unary(this.svc, this.url, name, req, this.scope);
  }
  receiveBids(): MessageStream {
    return new GrpcStream(
      "Provider/ReceiveBids",
      this.svc,
      this.url,
      "ReceiveBids",
      messageOf(this.svc.method.receiveBids!.input, {}),
      this.scope,
    );
  }
  /** One SendProcessedBids stream carrying every decision of the text, in order (NotAMessageError: no gRPC form). */
  async sendProcessedBids(json: string) {
    return clientStream(this.svc, this.url, "SendProcessedBids", jsonSequence(json), this.scope);
  }
  getCommitmentInfo(q?: InfoQuery) {
    return this.call("GetCommitmentInfo", infoOf(q));
  }
  stake(amount: bigint) {
    return this.call("Stake", { amount: amount.toString() });
  }
  getStake() {
    return this.call("GetStake");
  }
  getMinStake() {
    return this.call("GetMinStake");
  }
  unstake() {
    return this.call("Unstake");
  }
  withdrawStake() {
    return this.call("WithdrawStake");
  }
  getProviderReward() {
    return this.call("GetProviderReward");
  }
  withdrawProviderReward() {
    return this.call("WithdrawProviderReward");
  }
}

export class GrpcNotificationsApi extends GrpcRole implements NotificationsApi {
  private readonly svc = service("notificationsapi.v1.Notifications", this.rules);
  subscribe(topics: readonly string[] | { rawBody: string }): MessageStream {
    const req = Array.isArray(topics) ? { topics } : parse((topics as { rawBody: string }).rawBody);
    return new GrpcStream(
      "Notifications/Subscribe",
      this.svc,
      this.url,
      "Subscribe",
      messageOf(this.svc.method.subscribe!.input, req),
      this.scope,
    );
  }
}
