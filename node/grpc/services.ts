/**
 * The node's services as grpc-js handlers, one map per proto service. Each entry only turns the request message
 * into the service's request fields (they share names and types, wrappers unboxed) and hands back the message the
 * service answers; validation, codes and texts live in node/services, shared with the HTTP gateway.
 */
import type { UntypedServiceImplementation } from "@grpc/grpc-js";
import type { BidderDepositModel } from "../bidder/deposits/depositModel.ts";
import type * as bidderPb from "../gen/proto/bidderapi/v1/bidderapi_pb.ts";
import type * as debugPb from "../gen/proto/debugapi/v1/debugapi_pb.ts";
import type * as notificationsPb from "../gen/proto/notificationsapi/v1/notifications_pb.ts";
import type * as providerPb from "../gen/proto/providerapi/v1/providerapi_pb.ts";
import type * as bidderV12Pb from "../gen/proto/v1.2/bidderapi/v1/bidderapi_pb.ts";
import type * as validatorPb from "../gen/proto/validatorapi/v1/validatorapi_pb.ts";
import type { BidRequest } from "../protocol/bidValidation.ts";
import { UnimplementedError } from "../protocol/grpcCodes.ts";
import type { BidderService } from "../services/bidderService.ts";
import type { DebugService } from "../services/debugService.ts";
import type { NotificationsService } from "../services/notificationsService.ts";
import type { ProviderService } from "../services/providerService.ts";
import type { ValidatorApiService } from "../services/validatorApiService.ts";
import { bidOptionsBytes, commitmentV12 } from "./bidOptionsMessages.ts";
import { clientStream, serverStream, unary } from "./handlers.ts";
import { perProviderDepositHandlers } from "./perProviderDeposits.ts";
import { windowDepositHandlers } from "./windowDeposits.ts";

/** SendBid's request fields of either version's message (v1.1's; v1.2 adds field 9, read by its handler). */
function bidRequestOf(r: bidderPb.Bid | bidderV12Pb.Bid): BidRequest {
  return {
    txHashes: r.txHashes,
    amount: r.amount,
    blockNumber: r.blockNumber,
    decayStartTimestamp: r.decayStartTimestamp,
    decayEndTimestamp: r.decayEndTimestamp,
    revertingTxHashes: r.revertingTxHashes,
    rawTransactions: r.rawTransactions,
    slashAmount: r.slashAmount,
  };
}

/** bidderapi.v1.Bidder of protocol v1.1: the bid calls and the window deposit calls (windowDeposits.ts). */
export function bidderHandlers(s: BidderService): UntypedServiceImplementation {
  return {
    SendBid: serverStream("SendBid", (r: bidderPb.Bid, signal) => ({ messages: s.sendBid(bidRequestOf(r), signal) })),
    ...windowDepositHandlers(s),
    GetBidInfo: unary("GetBidInfo", (r: bidderPb.GetBidInfoRequest) =>
      s.getBidInfo({ blockNumber: r.blockNumber, page: r.page, limit: r.limit }),
    ),
    ClaimSlashedFunds: unary("ClaimSlashedFunds", () => s.claimSlashedFunds()),
  };
}

/** v1.2's SendBid: the request's options (field 9) are signed with the bid and echoed on each commitment (14). */
async function* commitmentsV12(commitments: AsyncIterable<bidderPb.Commitment>, bidOptions: Uint8Array | undefined) {
  for await (const c of commitments) yield commitmentV12(c, bidOptions);
}

/**
 * bidderapi.v1.Bidder of protocol v1.2: the shared bid calls of BidderService (their messages are v1.1's plus fields
 * that keep their numbers) and, when the node's deposits are per provider, their calls (perProviderDeposits.ts;
 * grpc-js answers Unimplemented for a method without a handler).
 */
export function bidderV12Handlers(
  s: BidderService,
  deposits: BidderDepositModel | undefined,
): UntypedServiceImplementation {
  const shared = bidderHandlers(s);
  const bids = {
    SendBid: serverStream("SendBid", (r: bidderV12Pb.Bid, signal) => {
      const bidOptions = bidOptionsBytes(r.bidOptions);
      return { messages: commitmentsV12(s.sendBid({ ...bidRequestOf(r), bidOptions }, signal), bidOptions) };
    }),
    GetBidInfo: shared.GetBidInfo!,
    ClaimSlashedFunds: shared.ClaimSlashedFunds!,
  };
  return deposits?.model === "perProvider" ? { ...bids, ...perProviderDepositHandlers(deposits) } : bids;
}

export function providerHandlers(s: ProviderService): UntypedServiceImplementation {
  return {
    ReceiveBids: serverStream("ReceiveBids", () => {
      const stream = s.receiveBids();
      return { messages: stream.bids, close: stream.close };
    }),
    SendProcessedBids: clientStream("SendProcessedBids", (decisions: AsyncIterable<providerPb.BidResponse>) =>
      s.sendProcessedBids(decisions),
    ),
    Stake: unary("Stake", (r: providerPb.StakeRequest) =>
      s.stake({ amount: r.amount, blsPublicKeys: r.blsPublicKeys, blsSignatures: r.blsSignatures }),
    ),
    GetStake: unary("GetStake", () => s.getStake()),
    GetMinStake: unary("GetMinStake", () => s.getMinStake()),
    WithdrawStake: unary("WithdrawStake", () => s.withdrawStake()),
    Unstake: unary("Unstake", () => s.unstake()),
    GetProviderReward: unary("GetProviderReward", () => s.getProviderReward()),
    WithdrawProviderReward: unary("WithdrawProviderReward", () => s.withdrawProviderReward()),
    GetCommitmentInfo: unary("GetCommitmentInfo", (r: providerPb.GetCommitmentInfoRequest) =>
      s.getCommitmentInfo({ blockNumber: r.blockNumber, page: r.page, limit: r.limit }),
    ),
  };
}

export function notificationsHandlers(s: NotificationsService): UntypedServiceImplementation {
  return {
    Subscribe: serverStream("Subscribe", (r: notificationsPb.SubscribeRequest) => {
      const stream = s.subscribe({ topics: r.topics });
      return { messages: stream.notifications, close: stream.close };
    }),
  };
}

export function validatorHandlers(s: ValidatorApiService): UntypedServiceImplementation {
  return {
    GetValidators: unary("GetValidators", (r: validatorPb.GetValidatorsRequest) => s.getValidators({ epoch: r.epoch })),
  };
}

export function debugHandlers(s: DebugService): UntypedServiceImplementation {
  const untracked = () => {
    throw new UnimplementedError(
      "the reference node does not queue transactions: each is sent and waited for at once (docs/divergences.md)",
    );
  };
  return {
    GetTopology: unary("GetTopology", () => s.getTopology()),
    GetPendingTransactions: unary("GetPendingTransactions", untracked),
    CancelTransaction: unary("CancelTransaction", (_r: debugPb.CancelTransactionReq) => untracked()),
  };
}
