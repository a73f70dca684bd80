/**
 * The admin API of a node started with `--role … --admin-port P`: what a devnet that runs its nodes as processes
 * (`npm run node -- --network processes|netns`) needs of each, for its control API. The operations themselves are
 * the devnet's own (node/devnet/nodeOps.ts, node/network/meshView.ts); only the transport is new. Not for
 * production: it arms failing transactions. Stop and kill are signals (SIGTERM, SIGKILL), not routes. A bidder's
 * GET /admin/v1/bid-events streams what became of each bid it sent (NDJSON, node/explorer/bidEvents.ts): the devnet
 * follows it to record the bids for its explorer (`/sim/v1/bids`).
 */
import { type AnyElysia, Elysia, t } from "elysia";
import { unaryErrorResponse } from "../api/wire/errors.ts";
import { armBidderFault, armProviderFault, nodeCounts, parseFault } from "../devnet/nodeOps.ts";
import type { BidEventFeed } from "../explorer/bidEvents.ts";
import { type MeshView, meshViewOf } from "../network/meshView.ts";
import type { BidderNode } from "../nodes/bidderNode.ts";
import type { ProviderNode } from "../nodes/providerNode.ts";
import type { Libp2pNetwork } from "../p2p/libp2pNetwork.ts";
import { InvalidArgumentError } from "../protocol/grpcCodes.ts";

/** GET /admin/v1/status: the node's URLs, its stream counts and who it sees on the network. */
export interface AdminStatus {
  role: "bidder" | "provider";
  address: string;
  url: string;
  rpcUrl: string;
  subscribers: number;
  receivers?: number;
  mesh: MeshView;
}

export function adminApi(
  node: { role: "bidder"; node: BidderNode; bidEvents?: BidEventFeed } | { role: "provider"; node: ProviderNode },
  network: Libp2pNetwork,
) {
  const app: AnyElysia = new Elysia({ name: "node-admin" })
    .onError({ as: "global" }, ({ code, error }) =>
      code === "VALIDATION" || code === "PARSE"
        ? unaryErrorResponse(new InvalidArgumentError(String((error as Error).message ?? error).split("\n")[0]!))
        : unaryErrorResponse(error),
    )
    .get(
      "/admin/v1/status",
      (): AdminStatus => ({
        role: node.role,
        address: node.node.address,
        url: node.node.url,
        rpcUrl: node.node.rpcUrl,
        ...nodeCounts(node.node),
        mesh: meshViewOf(network),
      }),
    )
    .post(
      "/admin/v1/faults",
      ({ body }) => {
        const fail = parseFault(body.fail);
        if (node.role === "bidder") armBidderFault(node.node, fail);
        else armProviderFault(node.node, fail);
        return { fail };
      },
      { body: t.Object({ fail: t.String() }) },
    )
    .get("/admin/v1/bid-events", () => {
      if (node.role !== "bidder" || !node.bidEvents) throw new InvalidArgumentError("a provider node sends no bids");
      return new Response(node.bidEvents.follow(), {
        headers: { "content-type": "application/x-ndjson", "cache-control": "no-cache" },
      });
    })
    .get("/admin/v1/bundles/:block", ({ params }) => {
      if (node.role !== "provider") throw new InvalidArgumentError("a bidder node builds no bundles");
      if (!/^[0-9]{1,78}$/.test(params.block))
        throw new InvalidArgumentError(`block must be a non-negative integer, got ${params.block}`);
      return { bundles: node.node.bundlesFor(BigInt(params.block)) };
    });
  return app;
}
