/** debugapi.v1.DebugService, written once for every transport (HTTP: node/api, gRPC: node/grpc). */
import { create, type JsonObject } from "@bufbuild/protobuf";
import { type Address, getAddress } from "viem";
import * as pb from "../gen/proto/debugapi/v1/debugapi_pb.ts";
import type { Network } from "../network/network.ts";

/** The node's view of the network: itself and its connected peers (upstream's Struct; empty keys left out). */
export function topologyOf(network: Network, self: Address, role: "bidder" | "provider"): JsonObject {
  const providers = network
    .providers()
    .map((p) => getAddress(p.address))
    .filter((a) => a !== getAddress(self));
  const bidders = network
    .bidders()
    .map((a) => getAddress(a))
    .filter((a) => a !== getAddress(self));
  return {
    self: { "Ethereum Address": getAddress(self), "Peer Type": role },
    ...(providers.length ? { connected_providers: providers } : {}),
    ...(bidders.length ? { connected_bidders: bidders } : {}),
  };
}

export class DebugService {
  constructor(
    private readonly network: Network,
    private readonly self: Address,
    private readonly role: "bidder" | "provider",
  ) {}

  getTopology(): pb.TopologyResponse {
    return create(pb.TopologyResponseSchema, { topology: topologyOf(this.network, this.self, this.role) });
  }
}
