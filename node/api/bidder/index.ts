import type { BidderService } from "../../services/bidderService.ts";
import { bidderBidInfoRoutes } from "./bidInfo.ts";
import { bidderBidRoutes } from "./bids.ts";
import { bidderDepositRoutes } from "./deposits.ts";
import { bidderSlashedFundsRoutes } from "./slashedFunds.ts";

/** bidderapi.v1.Bidder over HTTP: one Elysia plugin per area, each a thin adapter over the service. */
export function bidderApi(bidder: BidderService) {
  return [
    bidderDepositRoutes(bidder),
    bidderBidRoutes(bidder),
    bidderBidInfoRoutes(bidder),
    bidderSlashedFundsRoutes(bidder),
  ];
}
