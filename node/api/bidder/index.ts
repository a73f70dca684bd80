import type { BidderService } from "../../services/bidderService.ts";
import { bidderBidInfoRoutes } from "./bidInfo.ts";
import { bidderBidRoutes } from "./bids.ts";
import { bidderDepositRoutes } from "./deposits.ts";
import { bidderSlashedFundsRoutes } from "./slashedFunds.ts";

/**
 * bidderapi.v1.Bidder over HTTP: one Elysia plugin per area, each a thin adapter over the service, with the messages
 * of the service's protocol version.
 */
export function bidderApi(bidder: BidderService) {
  return [
    bidderDepositRoutes(bidder),
    bidderBidRoutes(bidder, bidder.protocol),
    bidderBidInfoRoutes(bidder, bidder.protocol),
    bidderSlashedFundsRoutes(bidder),
  ];
}
