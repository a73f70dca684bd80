import { Elysia, t } from "elysia";
import { GetBidInfoResponseSchema } from "../../gen/proto/bidderapi/v1/bidderapi_pb.ts";
import type { ProtocolRules } from "../../protocol/rules.ts";
import { BID_INFO_DEFAULT_LIMIT, MAX_PAGE_LIMIT, pageRequestFieldsOf } from "../../query/pageRequest.ts";
import type { BidderService } from "../../services/bidderService.ts";
import { pagingParams, unaryResponses } from "../openapi.ts";
import { unaryResponse } from "../wire/errors.ts";
import { messageJson } from "../wire/message.ts";
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

/** v1.2 declares field 10 `bidOptions` on each bid; upstream never fills it. */
const BidInfoV12 = t.Object({
  ...BidInfo.properties,
  bidOptions: t.Null({ description: "declared by v1.2 and never filled by upstream: always null" }),
});

export const BidInfoResponseV12 = t.Object({
  blockBidInfo: t.Array(t.Object({ blockNumber: U64("L1 block"), bids: t.Array(BidInfoV12) })),
});

type BidInfoJson = { blockBidInfo: { bids: Record<string, unknown>[] }[] };

/**
 * GetBidInfo (interface.md §4.6): the bidder's commitments grouped by block (ascending) and bid (highest first).
 * v1.2 declares `bidOptions` (field 10) on each bid and upstream never fills it: always null.
 */
export function bidderBidInfoRoutes(bidder: BidderService, rules: ProtocolRules) {
  const withOptions = rules.bidOptions;
  return new Elysia({ name: "bidder-bid-info" }).get(
    "/v1/bidder/get_bid_info",
    ({ request }) => {
      const json = messageJson(GetBidInfoResponseSchema, bidder.getBidInfo(pageRequestFieldsOf(queryOf(request))));
      if (withOptions)
        for (const block of (json as BidInfoJson).blockBidInfo)
          block.bids = block.bids.map((b) => ({ ...b, bidOptions: null }));
      return unaryResponse(json);
    },
    {
      detail: {
        tags: ["Bidder"],
        summary: "GetBidInfo",
        description:
          "Bids this node sent that got commitments, grouped by L1 block (ascending) then by bid (highest amount first), " +
          "each with its providers' commitments and their status. A page counts commitments, so one bid's commitments " +
          "can continue on the next page.",
        parameters: pagingParams(BID_INFO_DEFAULT_LIMIT, MAX_PAGE_LIMIT),
        responses: unaryResponses(withOptions ? BidInfoResponseV12 : BidInfoResponse),
      },
    },
  );
}
