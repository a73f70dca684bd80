/**
 * providerapi.v1.Provider, written once for every transport: each method takes the request's fields as a
 * transport decoded them, validates them with upstream's rules and texts, calls the provider's role code and
 * answers the proto message. HTTP (node/api) and gRPC (node/grpc) only decode and encode.
 */
import { create } from "@bufbuild/protobuf";
import { getAddress } from "viem";
import * as pb from "../gen/proto/providerapi/v1/providerapi_pb.ts";
import * as pbV12 from "../gen/proto/v1.2/providerapi/v1/providerapi_pb.ts";
import { type BidOptions, knownOptions } from "../protocol/bidOptions.ts";
import { strip0x } from "../protocol/bytes.ts";
import { InternalError, InvalidArgumentError, RpcError } from "../protocol/grpcCodes.ts";
import { type ProcessedBidFields, validateProcessedBid } from "../protocol/processedBid.ts";
import type { ProtocolRules } from "../protocol/rules.ts";
import type { BidDispatcher, DispatchedBid } from "../provider/bids/bidDispatcher.ts";
import { type StakeRequestFields, validateStakeRequest } from "../provider/stake/stakeRequest.ts";
import type { ProviderStakeService, StakeInfo } from "../provider/stake/stakeService.ts";
import { type CommitmentPages, commitmentInfo } from "../query/commitmentQueries.ts";
import type { PageRequestFields } from "../query/pageRequest.ts";

export interface ProviderServiceDeps {
  dispatcher: BidDispatcher;
  stake: ProviderStakeService;
  /** Read at each request: the provider node opens its store when it starts. */
  commitments: () => CommitmentPages | undefined;
  /** The rules of the node's protocol version: v1.2 adds the bid's options and its bidder to each ReceiveBids message. */
  rules: ProtocolRules;
}

/** A ReceiveBids message of either version: v1.2's providerapi.v1.Bid is v1.1's plus fields 10 and 11. */
export type ReceivedBid = pb.Bid | pbV12.Bid;

/** The schema of the ReceiveBids message of a protocol version (its transports encode the bid with it). */
export function receivedBidSchema(rules: ProtocolRules): typeof pb.BidSchema | typeof pbV12.BidSchema {
  return rules.bidOptions ? pbV12.BidSchema : pb.BidSchema;
}

/** Bid options as the v1.2 provider API's message (an option of no known kind stays an empty BidOption). */
function bidOptionsMessage(o: BidOptions): pbV12.BidOptions {
  return create(pbV12.BidOptionsSchema, {
    options: o.options.map((x) => ({
      opt: x.positionConstraint
        ? { case: "positionConstraint" as const, value: { ...x.positionConstraint } }
        : { case: undefined },
    })),
  });
}

/**
 * The ReceiveBids form of a signed bid (api-behaviour §1.7): raw transactions as lower-case hex without 0x. On v1.2
 * also the bid's options of a known kind (none: absent) and the recovered bidder, EIP-55 with 0x (§1.5).
 */
export function receivedBidMessage(d: DispatchedBid, rules: ProtocolRules): ReceivedBid {
  const b = d.signed;
  const fields = {
    txHashes: [...b.bid.txHashes],
    bidAmount: b.bid.amount.toString(),
    blockNumber: b.bid.blockNumber,
    bidDigest: b.digest,
    decayStartTimestamp: b.bid.decayStartTimestamp,
    decayEndTimestamp: b.bid.decayEndTimestamp,
    revertingTxHashes: [...b.bid.revertingTxHashes],
    rawTransactions: b.bid.rawTransactions.map((r) => strip0x(r).toLowerCase()),
    slashAmount: b.bid.slashAmount.toString(),
  };
  if (!rules.bidOptions) return create(pb.BidSchema, fields);
  return create(pbV12.BidSchema, {
    ...fields,
    bidOptions: d.options && bidOptionsMessage(knownOptions(d.options)),
    bidderAddress: getAddress(d.bidder),
  });
}

/** One open ReceiveBids stream: its bids, and `close` for when the client leaves. */
export interface BidStream {
  bids: AsyncIterable<ReceivedBid>;
  close(): void;
}

/** BLS keys as upstream answers them (Go hex.EncodeToString: lower-case, no 0x). */
const keyHex = (k: string) => strip0x(k).toLowerCase();
const stakeResponse = (s: StakeInfo) =>
  create(pb.StakeResponseSchema, { amount: s.amount.toString(), blsPublicKeys: s.blsPublicKeys.map(keyHex) });

export class ProviderService {
  constructor(private readonly d: ProviderServiceDeps) {}

  /** The rules of the protocol version whose API surface this service answers. */
  get rules(): ProtocolRules {
    return this.d.rules;
  }

  /** ReceiveBids (interface.md §4.4): every bid to exactly one open stream, until the client leaves. */
  receiveBids(): BidStream {
    const { dispatcher } = this.d;
    const rules = this.d.rules;
    const receiver = dispatcher.open();
    return {
      bids: (async function* () {
        for await (const bid of receiver.bids()) yield receivedBidMessage(bid, rules);
      })(),
      close: () => dispatcher.close(receiver),
    };
  }

  /**
   * One decision of SendProcessedBids, applied at once; unknown or late digests are ignored, as upstream.
   * A status outside {ACCEPTED, REJECTED} is InvalidArgument with protovalidate's text (upstream ends the stream
   * with Unknown: docs/divergences.md).
   */
  decide(req: ProcessedBidFields): void {
    let decision;
    try {
      decision = validateProcessedBid(req);
    } catch (e) {
      if (e instanceof RpcError) throw new InvalidArgumentError(e.message, { cause: e });
      throw e;
    }
    this.d.dispatcher.decide(decision);
  }

  /** SendProcessedBids (interface.md §4.7): every decision of the stream in order; stops at the first bad one. */
  async sendProcessedBids(decisions: AsyncIterable<ProcessedBidFields>): Promise<pb.EmptyMessage> {
    for await (const d of decisions) this.decide(d);
    return create(pb.EmptyMessageSchema);
  }

  async stake(req: StakeRequestFields): Promise<pb.StakeResponse> {
    return stakeResponse(await this.d.stake.stake(validateStakeRequest(req)));
  }

  async getStake(): Promise<pb.StakeResponse> {
    return stakeResponse(await this.d.stake.getStake());
  }

  async getMinStake(): Promise<pb.StakeResponse> {
    return stakeResponse({ amount: await this.d.stake.getMinStake(), blsPublicKeys: [] });
  }

  async withdrawStake(): Promise<pb.WithdrawalResponse> {
    return create(pb.WithdrawalResponseSchema, { amount: (await this.d.stake.withdrawStake()).toString() });
  }

  async unstake(): Promise<pb.EmptyMessage> {
    await this.d.stake.unstake();
    return create(pb.EmptyMessageSchema);
  }

  async getProviderReward(): Promise<pb.RewardResponse> {
    return create(pb.RewardResponseSchema, { amount: (await this.d.stake.getReward()).toString() });
  }

  async withdrawProviderReward(): Promise<pb.WithdrawalResponse> {
    return create(pb.WithdrawalResponseSchema, { amount: (await this.d.stake.withdrawReward()).toString() });
  }

  /** GetCommitmentInfo (interface.md §4.5): this provider's commitments by block (ascending), highest bid first. */
  getCommitmentInfo(req: PageRequestFields): pb.CommitmentInfoResponse | pbV12.CommitmentInfoResponse {
    const store = this.d.commitments();
    if (!store) throw new InternalError("getting commitments: the commitment store is not open");
    const r = commitmentInfo(store, req);
    // v1.2's message declares bidOptions (14) on each commitment; upstream's v1.2.x never fills it.
    const schema = this.d.rules.bidOptions ? pbV12.CommitmentInfoResponseSchema : pb.CommitmentInfoResponseSchema;
    return create(schema, {
      commitments: r.commitments.map((g) => ({
        blockNumber: BigInt(g.blockNumber),
        commitments: g.commitments.map((c) => ({
          ...c,
          blockNumber: BigInt(c.blockNumber),
          decayStartTimestamp: BigInt(c.decayStartTimestamp),
          decayEndTimestamp: BigInt(c.decayEndTimestamp),
          dispatchTimestamp: BigInt(c.dispatchTimestamp),
        })),
      })),
    });
  }
}
