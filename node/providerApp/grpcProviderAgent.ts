import { messageJson } from "../api/wire/message.ts";
import { BidResponse_Status, BidSchema, Provider } from "../gen/proto/providerapi/v1/providerapi_pb.ts";
import { GrpcClient } from "../grpc/client.ts";
import type { ProviderPolicy, ReceivedBid } from "./policies.ts";

/**
 * A simulated provider application over gRPC, as upstream's provider emulator attaches: one ReceiveBids server
 * stream, and one SendProcessedBids client stream that carries every decision of the session. Same policies as
 * the HTTP ProviderAgent (bids are shown to the policy in the gateway's JSON form).
 */
export class GrpcProviderAgent {
  private readonly client: GrpcClient<typeof Provider>;
  private readonly ctrl = new AbortController();
  private decisions: ReturnType<GrpcClient<typeof Provider>["clientStream"]> | undefined;
  private loop: Promise<void> | undefined;
  private readonly pending = new Set<Promise<void>>();
  readonly seen: ReceivedBid[] = [];
  readonly decided: { bidDigest: string; accepted: boolean }[] = [];
  errors: string[] = [];

  constructor(
    readonly rpcUrl: string,
    public policy: ProviderPolicy,
  ) {
    this.client = new GrpcClient(Provider, rpcUrl);
  }

  /** Opens both streams; resolves once ReceiveBids is open (its headers arrived). */
  async start(): Promise<void> {
    this.decisions = this.client.clientStream("sendProcessedBids");
    this.decisions.answer.catch((e: unknown) => this.errors.push(`SendProcessedBids: ${(e as Error).message}`));
    const bids = this.client.serverStream("receiveBids", {}, this.ctrl.signal);
    await bids.opened;
    this.loop = (async () => {
      for await (const bid of bids) {
        const json = messageJson(BidSchema, bid) as unknown as ReceivedBid;
        this.seen.push(json);
        const p = this.answer(json, bid.bidDigest).finally(() => this.pending.delete(p));
        this.pending.add(p);
      }
    })().catch((e) => {
      if (!this.ctrl.signal.aborted) this.errors.push(`ReceiveBids: ${(e as Error).message}`);
    });
  }

  private async answer(bid: ReceivedBid, digest: Uint8Array): Promise<void> {
    const d = await this.policy.decide(bid);
    if (d === undefined || this.ctrl.signal.aborted) return;
    await this.decisions!.send(
      d.accept
        ? { bidDigest: digest, status: BidResponse_Status.ACCEPTED, dispatchTimestamp: d.dispatchTimestamp }
        : { bidDigest: digest, status: BidResponse_Status.REJECTED },
    );
    this.decided.push({ bidDigest: bid.bidDigest, accepted: d.accept });
  }

  async stop(): Promise<void> {
    this.ctrl.abort();
    await this.loop;
    await Promise.allSettled([...this.pending]);
    await this.decisions?.close().catch(() => {});
    this.client.close();
  }
}
