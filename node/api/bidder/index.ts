import type { BidderNode } from "../../bidder/bidderNode.ts";
import { bidderBidInfoRoutes } from "./bidInfo.ts";
import { bidderBidRoutes } from "./bids.ts";
import { bidderDepositRoutes } from "./deposits.ts";
import { bidderSlashedFundsRoutes } from "./slashedFunds.ts";

/** Every service area the bidder node serves, one Elysia plugin each. */
export function bidderApi(node: BidderNode) {
  return [
    bidderDepositRoutes(node.deposits),
    bidderBidRoutes(node.sender),
    bidderBidInfoRoutes(() => node.commitments),
    bidderSlashedFundsRoutes(node.settlement, node.options.contracts.providerRegistry),
  ];
}
