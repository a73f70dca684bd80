/**
 * What a simulated bidder asks of its bidder node, over either transport: the HTTP gateway's routes or upstream's
 * gRPC Bidder service (node/grpc/client.ts). Answers are in the gateway's JSON mapping on both, so the agent and the
 * report see the same values whatever the scenario's `transport`.
 */
import { create } from "@bufbuild/protobuf";
import { MevCommitError } from "../../../lib/errors.ts";
import { messageJson } from "../../../node/api/wire/message.ts";
import { call } from "../../../node/clients/http.ts";
import { NdjsonStream } from "../../../node/clients/ndjson.ts";
import {
  Bidder,
  BidSchema,
  CommitmentSchema,
  WithdrawFromWindowsResponseSchema,
} from "../../../node/gen/proto/bidderapi/v1/bidderapi_pb.ts";
import { GrpcCallError, GrpcClient } from "../../../node/grpc/client.ts";

/** A call the node refused: the transport's description of the answer. */
export class BidderCallError extends MevCommitError {}

/** A bid as the gateway's JSON takes it (int64 values as decimal strings). */
export interface BidBody {
  txHashes?: string[];
  rawTransactions?: string[];
  amount: string;
  blockNumber: string;
  decayStartTimestamp: string;
  decayEndTimestamp: string;
  slashAmount?: string;
}

/** A line of SendBid's answer: a commitment, or the status that ended the stream. */
export type BidLine<C> = { result: C } | { error: { code?: number; message: string } };

export interface BidderClient {
  readonly transport: "http" | "grpc";
  deposit(amount: bigint, window: bigint): Promise<void>;
  /** Answers what each window returned. */
  withdrawFromWindows(windows: bigint[]): Promise<{ window: bigint; amount: bigint }[]>;
  autoDeposit(amount: bigint, window: bigint): Promise<void>;
  /** Stops auto-deposit; the node withdraws every window once all have closed. */
  cancelAutoDepositAndWithdraw(): Promise<void>;
  /** SendBid: the commitments as they come, then the end (a refusal or a broken stream is an `error` line). */
  sendBid<C>(bid: BidBody): AsyncIterable<BidLine<C>>;
  close(): void;
}

const withdrawals = (json: unknown) =>
  (json as { withdrawResponses: { amount: string; windowNumber: string }[] }).withdrawResponses.map((w) => ({
    window: BigInt(w.windowNumber),
    amount: BigInt(w.amount),
  }));

/** v1.2 Deposit with one provider, over the HTTP gateway (upstream v1.2.5: `POST /v1/bidder/deposit/{amount}?provider=`). */
export async function depositWithProvider(bidderUrl: string, amount: bigint, provider: string): Promise<void> {
  const path = `/v1/bidder/deposit/${amount}?provider=${provider}`;
  const r = await call("POST", `${bidderUrl}${path}`, {});
  if (r.status !== 200) throw new BidderCallError(`POST ${path} answered HTTP ${r.status}: ${r.text}`);
}

export class HttpBidderClient implements BidderClient {
  readonly transport = "http";
  constructor(readonly url: string) {}

  private async post(path: string, body?: unknown): Promise<unknown> {
    const r = await call("POST", `${this.url}${path}`, body === undefined ? {} : { body });
    if (r.status !== 200) throw new BidderCallError(`POST ${path} answered HTTP ${r.status}: ${r.text}`);
    return r.json;
  }
  async deposit(amount: bigint, window: bigint) {
    await this.post(`/v1/bidder/deposit/${amount}?window_number=${window}`);
  }
  async withdrawFromWindows(windows: bigint[]) {
    return withdrawals(await this.post("/v1/bidder/withdraw_from_windows", { window_numbers: windows.map(Number) }));
  }
  async autoDeposit(amount: bigint, window: bigint) {
    await this.post(`/v1/bidder/auto_deposit/${amount}?window_number=${window}`);
  }
  async cancelAutoDepositAndWithdraw() {
    await this.post("/v1/bidder/cancel_auto_deposit?withdraw=true");
  }
  async *sendBid<C>(bid: BidBody): AsyncIterable<BidLine<C>> {
    const stream = await NdjsonStream.open<C>("POST", `${this.url}/v1/bidder/bid`, bid);
    let refused = false;
    for (let line = await stream.next(); line !== undefined; line = await stream.next()) {
      if ("error" in line) refused = true;
      yield line as BidLine<C>;
    }
    if (stream.status !== 200 && !refused) yield { error: { message: `HTTP ${stream.status}` } };
  }
  close() {}
}

export class GrpcBidderClient implements BidderClient {
  readonly transport = "grpc";
  private readonly client: GrpcClient<typeof Bidder>;

  constructor(readonly rpcUrl: string) {
    this.client = new GrpcClient(Bidder, rpcUrl);
  }

  private async unary<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      if (e instanceof GrpcCallError) throw new BidderCallError(`${what} answered gRPC status ${e.code}: ${e.details}`);
      throw e;
    }
  }
  async deposit(amount: bigint, window: bigint) {
    await this.unary("Deposit", () =>
      this.client.unary("deposit", { amount: amount.toString(), windowNumber: window }),
    );
  }
  async withdrawFromWindows(windows: bigint[]) {
    const r = await this.unary("WithdrawFromWindows", () =>
      this.client.unary("withdrawFromWindows", { windowNumbers: windows.map((value) => ({ value })) }),
    );
    return withdrawals(messageJson(WithdrawFromWindowsResponseSchema, r));
  }
  async autoDeposit(amount: bigint, window: bigint) {
    await this.unary("AutoDeposit", () =>
      this.client.unary("autoDeposit", { amount: amount.toString(), windowNumber: window }),
    );
  }
  async cancelAutoDepositAndWithdraw() {
    await this.unary("CancelAutoDeposit", () => this.client.unary("cancelAutoDeposit", { withdraw: true }));
  }
  async *sendBid<C>(bid: BidBody): AsyncIterable<BidLine<C>> {
    const req = create(BidSchema, {
      txHashes: bid.txHashes ?? [],
      rawTransactions: bid.rawTransactions ?? [],
      amount: bid.amount,
      blockNumber: BigInt(bid.blockNumber),
      decayStartTimestamp: BigInt(bid.decayStartTimestamp),
      decayEndTimestamp: BigInt(bid.decayEndTimestamp),
      slashAmount: bid.slashAmount ?? "",
    });
    try {
      for await (const c of this.client.serverStream("sendBid", req))
        yield { result: messageJson(CommitmentSchema, c) as C };
    } catch (e) {
      if (!(e instanceof GrpcCallError)) throw e;
      yield { error: { code: e.code, message: e.details } };
    }
  }
  close() {
    this.client.close();
  }
}
