import type { ProviderService } from "../../services/providerService.ts";
import { providerBidRoutes } from "./bids.ts";
import { providerCommitmentInfoRoutes } from "./commitmentInfo.ts";
import { providerStakeRoutes } from "./stake.ts";

/**
 * providerapi.v1.Provider over HTTP: one Elysia plugin per area, each a thin adapter over the service, with the
 * messages of the service's protocol version.
 */
export function providerApi(provider: ProviderService) {
  return [
    providerBidRoutes(provider, provider.rules),
    providerCommitmentInfoRoutes(provider, provider.rules),
    providerStakeRoutes(provider),
  ];
}
