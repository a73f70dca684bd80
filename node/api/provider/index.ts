import type { ProviderNode } from "../../provider/providerNode.ts";
import { providerBidRoutes } from "./bids.ts";

/** Every service area a provider node serves, one Elysia plugin each. */
export function providerApi(node: ProviderNode) {
  return [providerBidRoutes(node.dispatcher)];
}
