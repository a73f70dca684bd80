/**
 * The HTTP transport of the role interfaces (api.ts): grpc-gateway's routes (interface.md §4, api-behaviour §1, §7).
 */
import type {
  BidderApi,
  InfoQuery,
  MessageStream,
  NotificationsApi,
  PerProviderDepositApi,
  ProviderApi,
  StatusError,
  TargetDeposit,
  Unary,
  WindowChoice,
} from "./api.ts";
import { call, type HttpResult } from "./http.ts";
import { LineStream } from "./lineStream.ts";
import type { ScenarioScope } from "./scope.ts";

/** A status body `{code,message,details}` (unary) or `{"error":{…}}` (a stream refused before its first message). */
export function statusOf(json: unknown): StatusError | undefined {
  const o = json as { code?: unknown; message?: unknown; error?: unknown } | undefined;
  if (o && typeof o === "object" && "error" in o && o.error && typeof o.error === "object") return statusOf(o.error);
  if (o && typeof o.code === "number" && typeof o.message === "string")
    return { code: o.code, message: o.message, details: (o as { details?: unknown[] }).details ?? [] };
  return undefined;
}

export function unaryOf(r: HttpResult, what: string): Unary {
  const ok = r.status === 200;
  return {
    value: ok ? r.json : undefined,
    error: ok
      ? undefined
      : (statusOf(r.json) ?? {
          code: -1,
          message: `HTTP ${r.status} without a status body: ${r.text.slice(0, 300)}`,
          details: [],
        }),
    http: r,
    describe: () => `${what} answered HTTP ${r.status}: ${r.text.slice(0, 600)}`,
  };
}

function query(q: Record<string, string | number | bigint | boolean | undefined>): string {
  const parts = Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join("&")}` : "";
}

const windowQuery = (at?: WindowChoice) => query({ window_number: at?.windowNumber, block_number: at?.blockNumber });
const infoQuery = (q?: InfoQuery) => query({ block_number: q?.blockNumber, page: q?.page, limit: q?.limit });

abstract class HttpRole {
  constructor(
    readonly baseUrl: string,
    protected readonly scope: ScenarioScope,
  ) {}

  protected async unary(method: string, path: string, body?: string): Promise<Unary> {
    const r = await call(method, this.baseUrl + path, { scope: this.scope, body });
    return unaryOf(r, `${method} ${path}`);
  }
}

export class HttpBidderApi extends HttpRole implements BidderApi {
  sendBid(json: string, opts: { contentType?: string } = {}): MessageStream {
    return new LineStream("POST", `${this.baseUrl}/v1/bidder/bid`, {
      body: json,
      contentType: opts.contentType,
      scope: this.scope,
    });
  }
  deposit(amount: bigint, at?: WindowChoice) {
    return this.unary("POST", `/v1/bidder/deposit/${amount}${windowQuery(at)}`);
  }
  getDeposit(windowNumber?: bigint) {
    return this.unary("GET", `/v1/bidder/get_deposit${query({ window_number: windowNumber })}`);
  }
  withdraw(windowNumber?: bigint) {
    return this.unary("POST", `/v1/bidder/withdraw${query({ window_number: windowNumber })}`);
  }
  withdrawFromWindows(windows: bigint[]) {
    return this.unary(
      "POST",
      "/v1/bidder/withdraw_from_windows",
      JSON.stringify({ window_numbers: windows.map(String) }),
    );
  }
  autoDeposit(amount: bigint, at?: WindowChoice) {
    return this.unary("POST", `/v1/bidder/auto_deposit/${amount}${windowQuery(at)}`);
  }
  autoDepositStatus() {
    return this.unary("GET", "/v1/bidder/auto_deposit_status");
  }
  cancelAutoDeposit(withdraw?: boolean) {
    return this.unary("POST", `/v1/bidder/cancel_auto_deposit${query({ withdraw })}`);
  }
  getBidInfo(q?: InfoQuery) {
    return this.unary("GET", `/v1/bidder/get_bid_info${infoQuery(q)}`);
  }
  claimSlashedFunds() {
    return this.unary("POST", "/v1/bidder/claim_slashed_funds");
  }
  get perProvider(): PerProviderDepositApi {
    return new HttpPerProviderDepositApi(this.baseUrl, this.scope);
  }
}

/** A query string with a repeated key per list item (grpc-gateway's form of a repeated field in the query). */
function listQuery(q: Record<string, string | string[] | undefined>): string {
  const parts = Object.entries(q).flatMap(([k, v]) =>
    v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((x) => `${encodeURIComponent(k)}=${encodeURIComponent(x)}`),
  );
  return parts.length ? `?${parts.join("&")}` : "";
}

/** Protocol v1.2's deposit routes (upstream v1.2.5, upstream-head-delta §1.1). */
export class HttpPerProviderDepositApi extends HttpRole implements PerProviderDepositApi {
  deposit(amount: string, provider?: string) {
    return this.unary("POST", `/v1/bidder/deposit/${encodeURIComponent(amount)}${listQuery({ provider })}`);
  }
  depositEvenly(totalAmount: string, providers: string[]) {
    return this.unary("POST", `/v1/bidder/deposit_evenly${listQuery({ total_amount: totalAmount, providers })}`);
  }
  getDeposit(provider?: string) {
    return this.unary("GET", `/v1/bidder/get_deposit${listQuery({ provider })}`);
  }
  getAllDeposits() {
    return this.unary("GET", "/v1/bidder/get_all_deposits");
  }
  getValidProviders() {
    return this.unary("GET", "/v1/bidder/get_valid_providers");
  }
  requestWithdrawals(providers: string[]) {
    return this.unary("POST", "/v1/bidder/request_withdrawals", JSON.stringify({ providers }));
  }
  withdraw(providers: string[]) {
    return this.unary("POST", "/v1/bidder/withdraw", JSON.stringify({ providers }));
  }
  enableDepositManager() {
    return this.unary("POST", "/v1/bidder/enable_deposit_manager");
  }
  disableDepositManager() {
    return this.unary("POST", "/v1/bidder/disable_deposit_manager");
  }
  setTargetDeposits(targets: TargetDeposit[]) {
    return this.unary("POST", "/v1/bidder/set_target_deposits", JSON.stringify({ targetDeposits: targets }));
  }
  depositManagerStatus() {
    return this.unary("GET", "/v1/bidder/deposit_manager_status");
  }
}

export class HttpProviderApi extends HttpRole implements ProviderApi {
  receiveBids(): MessageStream {
    return new LineStream("GET", `${this.baseUrl}/v1/provider/receive_bids`, { scope: this.scope });
  }
  sendProcessedBids(json: string) {
    return this.unary("POST", "/v1/provider/send_processed_bids", json);
  }
  getCommitmentInfo(q?: InfoQuery) {
    return this.unary("GET", `/v1/provider/get_commitment_info${infoQuery(q)}`);
  }
  stake(amount: bigint) {
    return this.unary("POST", `/v1/provider/stake/${amount}`);
  }
  getStake() {
    return this.unary("GET", "/v1/provider/get_stake");
  }
  getMinStake() {
    return this.unary("GET", "/v1/provider/get_min_stake");
  }
  unstake() {
    return this.unary("POST", "/v1/provider/unstake");
  }
  withdrawStake() {
    return this.unary("POST", "/v1/provider/withdraw_stake");
  }
  getProviderReward() {
    return this.unary("GET", "/v1/provider/get_provider_reward");
  }
  withdrawProviderReward() {
    return this.unary("POST", "/v1/provider/withdraw_provider_reward");
  }
}

export class HttpNotificationsApi extends HttpRole implements NotificationsApi {
  subscribe(topics: readonly string[] | { rawBody: string }): MessageStream {
    const body = Array.isArray(topics) ? JSON.stringify({ topics }) : (topics as { rawBody: string }).rawBody;
    return new LineStream("POST", `${this.baseUrl}/v1/subscribe`, { body, scope: this.scope });
  }
}
