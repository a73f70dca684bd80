/**
 * The transports of one node: its HTTP gateway (Elysia, node/api) and its gRPC server (node/grpc), both over the
 * node's services. Each role's composition root (BidderNode, ProviderNode) builds the services and hands them here;
 * no service knows a transport.
 */
import { createNodeApp } from "../api/app.ts";
import { bidderApi } from "../api/bidder/index.ts";
import { debugRoutes } from "../api/debug.ts";
import { notificationRoutes } from "../api/notifications.ts";
import { providerApi } from "../api/provider/index.ts";
import { type Served, serve } from "../api/serve.ts";
import { validatorRoutes } from "../api/validator.ts";
import { type ServedGrpc, serveGrpc } from "../grpc/server.ts";
import type { TlsFiles } from "../grpc/tls.ts";
import type { NodeServices } from "../services/nodeServices.ts";

export type { NodeServices } from "../services/nodeServices.ts";
export interface NodeListen {
  host: string;
  /** HTTP port; 0 picks a free one. */
  httpPort: number;
  /** How often an idle stream sends a blank line (ms, 0 = never); default 15 s. */
  streamKeepAliveMs?: number;
  /** gRPC port; 0 picks a free one. */
  rpcPort: number;
  /** Serve gRPC over TLS with this certificate (plaintext when absent). */
  rpcTls?: TlsFiles;
  /**
   * What `/health` answers beyond the node itself: undefined when ready, else why not (503). A devnet answers
   * "starting" until it has written its target file, so that whoever waits for health finds the file.
   */
  readiness?: () => Promise<string | undefined>;
}

/** A node's listening transports. */
export interface NodeServer {
  /** The HTTP gateway's base URL. */
  url: string;
  /** The gRPC server: `http://host:port`, or `https://…` with TLS. */
  rpcUrl: string;
  stop(): Promise<void>;
  /** Drops both transports' connections at once, with no goodbye (a crash of the node). */
  kill(): void;
}

/** The HTTP app of a node: its role's routes, notifications, debug and validator, `/health` and `/swagger`. */
export function httpApp(
  s: NodeServices,
  opts: { streamKeepAliveMs?: number; readiness?: () => Promise<string | undefined> } = {},
) {
  return createNodeApp({
    role: s.role,
    address: s.address,
    rules: s.notifications.rules,
    streamKeepAliveMs: opts.streamKeepAliveMs,
    health: opts.readiness,
    plugins: [
      ...(s.bidder ? bidderApi(s.bidder, s.bidderDeposits) : []),
      ...(s.provider ? providerApi(s.provider) : []),
      notificationRoutes(s.notifications),
      debugRoutes(s.debug),
      validatorRoutes(s.validator),
    ],
  });
}

/** Starts a node's transports; `name` is used in errors and logs. Nothing stays listening when one fails. */
export async function serveNode(s: NodeServices, listen: NodeListen, name: string): Promise<NodeServer> {
  const http: Served = serve(httpApp(s, listen), listen.host, listen.httpPort, name);
  let rpc: ServedGrpc;
  try {
    rpc = await serveGrpc(s, { host: listen.host, port: listen.rpcPort, tls: listen.rpcTls }, name);
  } catch (e) {
    await http.stop();
    throw e;
  }
  return {
    url: http.url,
    rpcUrl: rpc.url,
    stop: async () => {
      await Promise.all([http.stop(), rpc.stop()]);
    },
    kill: () => {
      http.kill();
      rpc.kill();
    },
  };
}
