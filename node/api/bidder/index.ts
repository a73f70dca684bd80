import type { BidderNode } from "../../bidder/bidderNode.ts";
import { bidderBidRoutes } from "./bids.ts";
import { bidderDepositRoutes } from "./deposits.ts";

/** Every service area the bidder node serves, one Elysia plugin each. */
export function bidderApi(node: BidderNode) {
  return [bidderDepositRoutes(node.deposits), bidderBidRoutes(node.sender)];
}
