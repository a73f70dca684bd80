/**
 * The transports of one node: its HTTP gateway (Elysia, node/api) over the node's services. Each role's
 * composition root (BidderNode, ProviderNode) builds the services and hands them here; no service knows a transport.
 */
import type { Address } from "viem";
import { createNodeApp, type NodeRole } from "../api/app.ts";
import { serve, type Served } from "../api/serve.ts";
import { bidderApi } from "../api/bidder/index.ts";
import { providerApi } from "../api/provider/index.ts";
import { notificationRoutes } from "../api/notifications.ts";
import { debugRoutes } from "../api/debug.ts";
import { validatorRoutes } from "../api/validator.ts";
import type { BidderService } from "../services/bidderService.ts";
import type { ProviderService } from "../services/providerService.ts";
import type { NotificationsService } from "../services/notificationsService.ts";
import type { ValidatorApiService } from "../services/validatorApiService.ts";
import type { DebugService } from "../services/debugService.ts";

/** Every service a node serves; `bidder` on a bidder node, `provider` on a provider node. */
export interface NodeServices {
  role: NodeRole;
  address: Address;
  bidder?: BidderService;
  provider?: ProviderService;
  notifications: NotificationsService;
  validator: ValidatorApiService;
  debug: DebugService;
}

export interface NodeListen {
  host: string;
  /** HTTP port; 0 picks a free one. */
  httpPort: number;
  /** How often an idle stream sends a blank line (ms, 0 = never); default 15 s. */
  streamKeepAliveMs?: number;
}

/** A node's listening transports. */
export interface NodeServer {
  /** The HTTP gateway's base URL. */
  url: string;
  stop(): Promise<void>;
}

/** The HTTP app of a node: its role's routes, notifications, debug and validator, `/health` and `/swagger`. */
export function httpApp(s: NodeServices, opts: { streamKeepAliveMs?: number } = {}) {
  return createNodeApp({
    role: s.role,
    address: s.address,
    streamKeepAliveMs: opts.streamKeepAliveMs,
    plugins: [
      ...(s.bidder ? bidderApi(s.bidder) : []),
      ...(s.provider ? providerApi(s.provider) : []),
      notificationRoutes(s.notifications),
      debugRoutes(s.debug),
      validatorRoutes(s.validator),
    ],
  });
}

/** Starts a node's transports; `name` is used in errors and logs. */
export function serveNode(s: NodeServices, listen: NodeListen, name: string): NodeServer {
  const http: Served = serve(httpApp(s, listen), listen.host, listen.httpPort, name);
  return {
    url: http.url,
    stop: () => http.stop(),
  };
}
