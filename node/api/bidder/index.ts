import type { BidderDepositModel } from "../../bidder/deposits/depositModel.ts";
import type { BidderService } from "../../services/bidderService.ts";
import { bidderBidInfoRoutes } from "./bidInfo.ts";
import { bidderBidRoutes } from "./bids.ts";
import { perProviderDepositRoutes } from "./perProviderDeposits.ts";
import { bidderSlashedFundsRoutes } from "./slashedFunds.ts";
import { windowDepositRoutes } from "./windowDeposits.ts";

/**
 * bidderapi.v1.Bidder over HTTP: one Elysia plugin per area, each a thin adapter over the service, with the messages
 * of the service's protocol version, and the deposit calls of the node's deposit model: window deposits
 * (windowDeposits.ts, served by BidderService) or per-provider deposits (perProviderDeposits.ts).
 */
export function bidderApi(bidder: BidderService, deposits?: BidderDepositModel) {
  return [
    deposits?.model === "perProvider" ? perProviderDepositRoutes(deposits) : windowDepositRoutes(bidder),
    bidderBidRoutes(bidder, bidder.rules),
    bidderBidInfoRoutes(bidder, bidder.rules),
    bidderSlashedFundsRoutes(bidder),
  ];
}
