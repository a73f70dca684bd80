import { Elysia, t } from "elysia";
import { getAddress, type Address } from "viem";
import type { Network } from "../network/network.ts";
import { unaryResponse } from "./wire/errors.ts";
import { unaryResponses } from "./openapi.ts";

/** The node's view of the network: itself and its connected peers (upstream's Struct; empty keys left out). */
export function topologyOf(network: Network, self: Address, role: "bidder" | "provider"): Record<string, unknown> {
  const providers = network.providers().map((p) => getAddress(p.address)).filter((a) => a !== getAddress(self));
  const bidders = network.bidders().map((a) => getAddress(a)).filter((a) => a !== getAddress(self));
  return {
    self: { "Ethereum Address": getAddress(self), "Peer Type": role },
    ...(providers.length ? { connected_providers: providers } : {}),
    ...(bidders.length ? { connected_bidders: bidders } : {}),
  };
}

/** GET /v1/debug/topology. */
export function debugRoutes(network: Network, self: Address, role: "bidder" | "provider") {
  return new Elysia({ name: "debug" }).get("/v1/debug/topology", () => unaryResponse({ topology: topologyOf(network, self, role) }), {
    detail: {
      tags: ["Debug"],
      summary: "GetTopology",
      responses: unaryResponses(t.Object({ topology: t.Record(t.String(), t.Unknown()) })),
    },
  });
}
