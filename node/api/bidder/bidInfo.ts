import { Elysia, t } from "elysia";
import { GetBidInfoResponseSchema } from "../../gen/proto/bidderapi/v1/bidderapi_pb.ts";
import { BID_INFO_DEFAULT_LIMIT, MAX_PAGE_LIMIT, pageRequestFieldsOf } from "../../query/pageRequest.ts";
import type { BidderService } from "../../services/bidderService.ts";
import { pagingParams, unaryResponses } from "../openapi.ts";
import { messageResponse } from "../wire/message.ts";
import { queryOf } from "../wire/request.ts";

const U64 = (description: string) => t.String({ pattern: "^[0-9]+$", description });

const CommitmentWithStatus = t.Object({
  providerAddress: t.String({ description: "40 lower-case hex, no 0x" }),
  dispatchTimestamp: U64("Unix ms, chosen by the provider"),
  status: t.String({ description: "pending, stored, opened, settled, slashed or failed" }),
  details: t.String(),
  payment: t.String({ description: "wei paid to the provider once rewarded, else empty" }),
  refund: t.String({ description: "wei returned to the bidder, else empty" }),
});

const BidInfo = t.Object({
  txnHashes: t.Array(t.String(), { description: "64 hex, no 0x" }),
  revertableTxnHashes: t.Array(t.String(), { description: "[] when the bid had none" }),
  blockNumber: U64("target L1 block"),
  bidAmount: U64("wei"),
  decayStartTimestamp: U64("Unix ms"),
  decayEndTimestamp: U64("Unix ms"),
  bidDigest: t.String({ description: "hex, no 0x" }),
  slashAmount: U64("wei"),
  commitments: t.Array(CommitmentWithStatus),
});

export const BidInfoResponse = t.Object({
  blockBidInfo: t.Array(t.Object({ blockNumber: U64("L1 block"), bids: t.Array(BidInfo) })),
});

/** GetBidInfo (interface.md §4.6): the bidder's commitments grouped by block (ascending) and bid (highest first). */
export function bidderBidInfoRoutes(bidder: BidderService) {
  return new Elysia({ name: "bidder-bid-info" }).get(
    "/v1/bidder/get_bid_info",
    ({ request }) =>
      messageResponse(GetBidInfoResponseSchema, bidder.getBidInfo(pageRequestFieldsOf(queryOf(request)))),
    {
      detail: {
        tags: ["Bidder"],
        summary: "GetBidInfo",
        description:
          "Bids this node sent that got commitments, grouped by L1 block (ascending) then by bid (highest amount first), " +
          "each with its providers' commitments and their status. A page counts commitments, so one bid's commitments " +
          "can continue on the next page.",
        parameters: pagingParams(BID_INFO_DEFAULT_LIMIT, MAX_PAGE_LIMIT),
        responses: unaryResponses(BidInfoResponse),
      },
    },
  );
}
