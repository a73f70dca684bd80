/**
 * bidderapi.v1.Bidder, written once for every transport: each method takes the request's fields as a transport
 * decoded them (nothing validated yet), validates them with upstream's rules and texts, calls the bidder's role
 * code and answers the proto message. HTTP (node/api) and gRPC (node/grpc) only decode and encode.
 */
import { create } from "@bufbuild/protobuf";
import { type StringValue, StringValueSchema, UInt64ValueSchema } from "@bufbuild/protobuf/wkt";
import type { BidSender } from "../bidder/bids/bidSender.ts";
import type { WindowAmount } from "../bidder/deposits/window/registry.ts";
import type { WindowDeposits } from "../bidder/deposits/window/windowDeposits.ts";
import * as pb from "../gen/proto/bidderapi/v1/bidderapi_pb.ts";
import { type BidRequest, validateBidRequest } from "../protocol/bidValidation.ts";
import { bytesToHex } from "../protocol/bytes.ts";
import {
  type DepositRequestFields,
  validateDepositRequest,
  validateWindowNumbers,
  validateWithdrawRequest,
} from "../protocol/depositValidation.ts";
import { UnimplementedError } from "../protocol/grpcCodes.ts";
import type { ProtocolRules } from "../protocol/rules.ts";
import type { Commitment } from "../protocol/types.ts";
import { bidInfo, type CommitmentPages } from "../query/commitmentQueries.ts";
import type { PageRequestFields } from "../query/pageRequest.ts";
import { markBid } from "../util/bidTrace.ts";

export interface BidderServiceDeps {
  sender: BidSender;
  /** Window deposits (protocol v1.1); absent where deposits are per provider (PerProviderDeposits serves those calls). */
  deposits?: WindowDeposits;
  /** Read at each request: a node that reopens its store is followed. */
  commitments: () => CommitmentPages;
  /** Withdraws what slashed providers owe the bidder; the amount in wei. */
  claimSlashedFunds: () => Promise<bigint>;
  /** Called as each commitment is handed to the client's stream (the devnet's kill "after-ack" fault). */
  acknowledging?: () => void;
  /** The rules of the node's protocol version: the bid message and digest of each request. */
  rules: ProtocolRules;
}

/** The SendBid form of a verified commitment (api-behaviour §1.1 "Commitment JSON"): hex without 0x. */
export function commitmentMessage(c: Commitment): pb.Commitment {
  const b = c.signedBid.bid;
  return create(pb.CommitmentSchema, {
    txHashes: [...b.txHashes],
    bidAmount: b.amount.toString(),
    blockNumber: b.blockNumber,
    receivedBidDigest: bytesToHex(c.signedBid.digest),
    receivedBidSignature: bytesToHex(c.signedBid.signature),
    commitmentDigest: bytesToHex(c.digest),
    commitmentSignature: bytesToHex(c.signature),
    providerAddress: c.providerAddress.toLowerCase().slice(2),
    decayStartTimestamp: b.decayStartTimestamp,
    decayEndTimestamp: b.decayEndTimestamp,
    dispatchTimestamp: c.dispatchTimestamp,
    revertingTxHashes: [...b.revertingTxHashes],
    slashAmount: b.slashAmount.toString(),
  });
}

const depositResponse = (r: WindowAmount) =>
  create(pb.DepositResponseSchema, { amount: r.amount.toString(), windowNumber: r.window });
const withdrawResponse = (r: WindowAmount) =>
  create(pb.WithdrawResponseSchema, { amount: r.amount.toString(), windowNumber: r.window });

export class BidderService {
  constructor(private readonly d: BidderServiceDeps) {}

  /** The rules of the protocol version whose API surface this service answers. */
  get rules(): ProtocolRules {
    return this.d.rules;
  }

  private windowDeposits(): WindowDeposits {
    if (!this.d.deposits)
      throw new UnimplementedError("window deposits are protocol v1.1; this node runs v1.2 (deposits per provider)");
    return this.d.deposits;
  }

  /**
   * SendBid (interface.md §4.1): validation errors throw before the stream starts; then one commitment per
   * accepting provider, in arrival order. `signal` is the client leaving. On v1.2 the request's bidOptions (their
   * bytes, as the transport decoded them) are signed with the bid; each transport echoes them on the commitments.
   */
  sendBid(req: BidRequest, signal: AbortSignal): AsyncIterable<pb.Commitment> {
    const commitments = this.d.sender.send(validateBidRequest(req, this.d.rules), signal);
    const acknowledging = this.d.acknowledging;
    return (async function* () {
      for await (const c of commitments) {
        markBid(c.signedBid.digest, "bidder.streamed");
        acknowledging?.();
        yield commitmentMessage(c);
      }
    })();
  }

  async deposit(req: DepositRequestFields): Promise<pb.DepositResponse> {
    const r = validateDepositRequest("deposit", req);
    return depositResponse(await this.windowDeposits().deposit(r.amount, r));
  }

  async autoDeposit(req: DepositRequestFields): Promise<pb.AutoDepositResponse> {
    const r = validateDepositRequest("autoDeposit", req);
    const started = await this.windowDeposits().startAutoDeposit(r.amount, r);
    return create(pb.AutoDepositResponseSchema, {
      startWindowNumber: started.startWindow,
      amountPerWindow: started.amount.toString(),
    });
  }

  async cancelAutoDeposit(req: { withdraw: boolean }): Promise<pb.CancelAutoDepositResponse> {
    return create(pb.CancelAutoDepositResponseSchema, {
      windowNumbers: (await this.windowDeposits().cancelAutoDeposit(req.withdraw)).map((value) =>
        create(UInt64ValueSchema, { value }),
      ),
    });
  }

  async autoDepositStatus(): Promise<pb.AutoDepositStatusResponse> {
    const s = await this.windowDeposits().status();
    return create(pb.AutoDepositStatusResponseSchema, {
      windowBalances: s.windows.map((w) => ({
        depositedAmount: w.deposited.toString(),
        windowNumber: w.window,
        isCurrent: w.isCurrent,
        startBlockNumber: w.startBlock,
        endBlockNumber: w.endBlock,
      })),
      isAutodepositEnabled: s.enabled,
    });
  }

  async withdrawFromWindows(req: { windowNumbers: readonly bigint[] }): Promise<pb.WithdrawFromWindowsResponse> {
    const results = await this.windowDeposits().withdrawFromWindows(validateWindowNumbers([...req.windowNumbers]));
    return create(pb.WithdrawFromWindowsResponseSchema, { withdrawResponses: results.map(withdrawResponse) });
  }

  /** GetDeposit: upstream declares a validation it never calls; so does this. */
  async getDeposit(req: { windowNumber?: bigint }): Promise<pb.DepositResponse> {
    return depositResponse(await this.windowDeposits().getDeposit(req.windowNumber));
  }

  async withdraw(req: { windowNumber?: bigint }): Promise<pb.WithdrawResponse> {
    return withdrawResponse(await this.windowDeposits().withdraw(validateWithdrawRequest(req.windowNumber)));
  }

  /** GetBidInfo (interface.md §4.6): commitments grouped by block (ascending) and bid (highest first). */
  getBidInfo(req: PageRequestFields): pb.GetBidInfoResponse {
    const r = bidInfo(this.d.commitments(), req);
    return create(pb.GetBidInfoResponseSchema, {
      blockBidInfo: r.blockBidInfo.map((g) => ({
        blockNumber: BigInt(g.blockNumber),
        bids: g.bids.map((b) => ({
          ...b,
          blockNumber: BigInt(b.blockNumber),
          decayStartTimestamp: BigInt(b.decayStartTimestamp),
          decayEndTimestamp: BigInt(b.decayEndTimestamp),
          commitments: b.commitments.map((c) => ({ ...c, dispatchTimestamp: BigInt(c.dispatchTimestamp) })),
        })),
      })),
    });
  }

  /** ClaimSlashedFunds: the amount claimed in wei, "0" when there was nothing to claim. */
  async claimSlashedFunds(): Promise<StringValue> {
    return create(StringValueSchema, { value: (await this.d.claimSlashedFunds()).toString() });
  }
}
