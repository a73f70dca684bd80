import type { ProviderNode } from "../../provider/providerNode.ts";
import { ProviderStakeService } from "../../provider/stake/stakeService.ts";
import { providerBidRoutes } from "./bids.ts";
import { providerCommitmentInfoRoutes } from "./commitmentInfo.ts";
import { providerStakeRoutes } from "./stake.ts";

/** Every service area a provider node serves, one Elysia plugin each. */
export function providerApi(node: ProviderNode) {
  return [
    providerBidRoutes(node.dispatcher),
    providerCommitmentInfoRoutes(() => node.commitments),
    providerStakeRoutes(new ProviderStakeService(node.settlement, node.options.contracts)),
  ];
}
