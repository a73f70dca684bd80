/**
 * The suite's view of an implementation, one small interface per role: the bidder API, the provider API that a
 * provider application uses, and notifications. Values are the protocol's JSON mapping (grpc-gateway's: camelCase,
 * 64-bit integers as strings, bytes as base64), whatever the transport; errors are gRPC statuses.
 *
 * HTTP (httpApi.ts) and gRPC (grpcApi.ts) implement them; the run's transport (TRANSPORT, --transport) picks one.
 * Steps that check HTTP-only details (status codes, content types, query spellings, raw bodies) use the HTTP client
 * directly and are skipped in a gRPC run (world.ts, `httpOnly`).
 */
import type { HttpResult } from "./http.ts";

/** A gRPC status, as the error object of interface.md §7. */
export interface StatusError {
  code: number;
  message: string;
  details: unknown[];
}

/** A server stream (SendBid, ReceiveBids, Subscribe), judged by its messages. */
export interface MessageStream {
  readonly transport: "http" | "grpc";
  /** Non-blank lines so far: `{"result":…}` / `{"error":…}` envelopes (or `{unparsable}`). */
  readonly lines: unknown[];
  readonly ended: boolean;
  /** "end", "closed" or "broken: …". */
  readonly endReason: string;
  /** True when the stream broke because nothing answered at the address. */
  readonly connectionFailed: boolean;
  readonly done: Promise<void>;
  readonly firstResultMs: number | undefined;
  readonly endMs: number | undefined;
  /**
   * The node answered the call as a success: HTTP 200 (a refusal before the first message is another status), or
   * over gRPC, headers came or the stream ended with status OK. An error after the first message leaves it true on
   * HTTP (it is an `{"error":…}` line of a 200 stream); steps judge the lines for that.
   */
  readonly ok: boolean;
  /** Transport details, where the transport has them (HTTP). */
  readonly status: number | undefined;
  readonly contentType: string | undefined;
  readonly text: string;
  changed(ms: number): Promise<void>;
  /** Waits for the response head (HTTP) / the stream's headers; false when none came within `ms`. */
  head(ms: number): Promise<boolean>;
  lineAt(index: number): Promise<unknown | undefined>;
  close(): void;
  describe(max?: number): string;
}

/** The answer of a unary call. */
export interface Unary {
  /** The value, when the call succeeded. */
  value: unknown;
  error: StatusError | undefined;
  /** The HTTP exchange, when the transport is HTTP. */
  http: HttpResult | undefined;
  describe(): string;
}

/** Where a deposit goes: an explicit window, the window of a block, or (neither) the node's default. */
export interface WindowChoice {
  windowNumber?: bigint;
  blockNumber?: bigint;
}

export interface InfoQuery {
  blockNumber?: bigint;
  page?: number;
  limit?: number;
}

export interface BidderApi {
  /** SendBid with a request written as JSON text (the stream is sent at once and read in the background). */
  sendBid(json: string, opts?: { contentType?: string }): MessageStream;
  deposit(amount: bigint, at?: WindowChoice): Promise<Unary>;
  getDeposit(windowNumber?: bigint): Promise<Unary>;
  withdraw(windowNumber?: bigint): Promise<Unary>;
  withdrawFromWindows(windows: bigint[]): Promise<Unary>;
  autoDeposit(amount: bigint, at?: WindowChoice): Promise<Unary>;
  autoDepositStatus(): Promise<Unary>;
  cancelAutoDeposit(withdraw?: boolean): Promise<Unary>;
  getBidInfo(q?: InfoQuery): Promise<Unary>;
  claimSlashedFunds(): Promise<Unary>;
  /** Protocol v1.2: the deposit calls per provider (upstream v1.2.5, upstream-head-delta §1.1). */
  readonly perProvider: PerProviderDepositApi;
}

/** A target deposit of the deposit manager: a provider and the wei it keeps the deposit at. */
export interface TargetDeposit {
  provider: string;
  targetDeposit: string;
}

/**
 * The bidder's deposit calls of protocol v1.2: deposits per (bidder, provider), withdrawal requests and the deposit
 * manager. Providers are addresses as the caller writes them (the suite sends them as given, so that refusals of
 * malformed ones can be checked).
 */
export interface PerProviderDepositApi {
  deposit(amount: string, provider?: string): Promise<Unary>;
  depositEvenly(totalAmount: string, providers: string[]): Promise<Unary>;
  getDeposit(provider?: string): Promise<Unary>;
  getAllDeposits(): Promise<Unary>;
  getValidProviders(): Promise<Unary>;
  requestWithdrawals(providers: string[]): Promise<Unary>;
  withdraw(providers: string[]): Promise<Unary>;
  enableDepositManager(): Promise<Unary>;
  disableDepositManager(): Promise<Unary>;
  setTargetDeposits(targets: TargetDeposit[]): Promise<Unary>;
  depositManagerStatus(): Promise<Unary>;
}

export interface ProviderApi {
  /** ReceiveBids: the bids this node hands to its application. */
  receiveBids(): MessageStream;
  /** SendProcessedBids with one or more decisions written as JSON text (a sequence of objects). */
  sendProcessedBids(json: string): Promise<Unary>;
  getCommitmentInfo(q?: InfoQuery): Promise<Unary>;
  stake(amount: bigint): Promise<Unary>;
  getStake(): Promise<Unary>;
  getMinStake(): Promise<Unary>;
  unstake(): Promise<Unary>;
  withdrawStake(): Promise<Unary>;
  getProviderReward(): Promise<Unary>;
  withdrawProviderReward(): Promise<Unary>;
}

export interface NotificationsApi {
  /** Subscribe to topics (a raw JSON body may be given instead, for the refusal checks). */
  subscribe(topics: readonly string[] | { rawBody: string }): MessageStream;
}
