import type { DepositServiceV12 } from "../../bidder/deposits/perProvider/perProviderDeposits.ts";
import type { BidderService } from "../../services/bidderService.ts";
import { bidderBidInfoRoutes } from "./bidInfo.ts";
import { bidderBidRoutes } from "./bids.ts";
import { bidderDepositV12Routes } from "./perProviderDeposits.ts";
import { bidderSlashedFundsRoutes } from "./slashedFunds.ts";
import { bidderDepositRoutes } from "./windowDeposits.ts";

/**
 * bidderapi.v1.Bidder over HTTP: one Elysia plugin per area, each a thin adapter over the service, with the messages
 * of the service's protocol version. A node of protocol v1.2 (`depositsV12`) serves the v1.2 deposit calls instead of
 * the window calls.
 */
export function bidderApi(bidder: BidderService, depositsV12?: DepositServiceV12) {
  return [
    depositsV12 ? bidderDepositV12Routes(depositsV12) : bidderDepositRoutes(bidder),
    bidderBidRoutes(bidder, bidder.protocol),
    bidderBidInfoRoutes(bidder, bidder.protocol),
    bidderSlashedFundsRoutes(bidder),
  ];
}
