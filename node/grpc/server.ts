/**
 * A node's gRPC server (@grpc/grpc-js; docs/grpc.md says why): upstream's services for the node's role, with the
 * same handlers as the HTTP gateway behind them, server reflection, plaintext or TLS.
 */

import type { DescService } from "@bufbuild/protobuf";
import { Server, ServerCredentials, type UntypedServiceImplementation } from "@grpc/grpc-js";
import { MevCommitError } from "../../lib/errors.ts";
import { Bidder } from "../gen/proto/bidderapi/v1/bidderapi_pb.ts";
import { DebugService } from "../gen/proto/debugapi/v1/debugapi_pb.ts";
import { Notifications } from "../gen/proto/notificationsapi/v1/notifications_pb.ts";
import { Provider } from "../gen/proto/providerapi/v1/providerapi_pb.ts";
import { Bidder as BidderV12 } from "../gen/proto/v1.2/bidderapi/v1/bidderapi_pb.ts";
import { Provider as ProviderV12 } from "../gen/proto/v1.2/providerapi/v1/providerapi_pb.ts";
import { Validator } from "../gen/proto/validatorapi/v1/validatorapi_pb.ts";
import type { NodeServices } from "../services/nodeServices.ts";
import { logger } from "../util/log.ts";
import { addReflection } from "./reflection.ts";
import { serviceDefinition } from "./serviceDefinition.ts";
import {
  bidderHandlers,
  bidderV12Handlers,
  debugHandlers,
  notificationsHandlers,
  providerHandlers,
  validatorHandlers,
} from "./services.ts";
import type { TlsFiles } from "./tls.ts";

const log = logger("grpc");

export interface GrpcListen {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Serve TLS with this certificate; plaintext (h2c) when absent. */
  tls?: TlsFiles;
}

export interface ServedGrpc {
  /** `http://host:port` (plaintext) or `https://host:port` (TLS). */
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Drops every connection at once, with no status or trailers (a crash of the node). */
  kill(): void;
}

export class GrpcListenError extends MevCommitError {}

/**
 * The proto services a node serves, with their handlers: its role's service (of its protocol version), then
 * notifications, validator, debug.
 */
export function grpcServicesOf(s: NodeServices): [DescService, UntypedServiceImplementation][] {
  const bidder = (b: NonNullable<NodeServices["bidder"]>): [DescService, UntypedServiceImplementation] =>
    b.rules.bidOptions ? [BidderV12, bidderV12Handlers(b, s.bidderDeposits)] : [Bidder, bidderHandlers(b)];
  const provider = (p: NonNullable<NodeServices["provider"]>): [DescService, UntypedServiceImplementation] => [
    p.rules.bidOptions ? ProviderV12 : Provider,
    providerHandlers(p),
  ];
  return [
    ...(s.bidder ? [bidder(s.bidder)] : []),
    ...(s.provider ? [provider(s.provider)] : []),
    [Notifications, notificationsHandlers(s.notifications)],
    [Validator, validatorHandlers(s.validator)],
    [DebugService, debugHandlers(s.debug)],
  ];
}

export async function serveGrpc(s: NodeServices, listen: GrpcListen, what: string): Promise<ServedGrpc> {
  const server = new Server({ "grpc.keepalive_permit_without_calls": 1 });
  const services = grpcServicesOf(s);
  for (const [desc, impl] of services) server.addService(serviceDefinition(desc), impl);
  addReflection(
    server,
    services.map(([d]) => d),
  );
  const creds = listen.tls
    ? ServerCredentials.createSsl(null, [{ cert_chain: listen.tls.cert, private_key: listen.tls.key }], false)
    : ServerCredentials.createInsecure();
  const host = listen.host.includes(":") ? `[${listen.host}]` : listen.host;
  const bind = () =>
    new Promise<number>((resolve, reject) =>
      server.bindAsync(`${host}:${listen.port}`, creds, (e, p) => (e ? reject(e) : resolve(p))),
    );
  let port: number | undefined;
  // A node restarted on its port may find it briefly taken (by an outgoing connection's source port, on a busy
  // machine): try for a while before giving up.
  for (let tries = 0; port === undefined; tries++) {
    try {
      port = await bind();
    } catch (e) {
      if (listen.port === 0 || tries >= 30) {
        server.forceShutdown();
        throw new GrpcListenError(`${what} cannot serve gRPC on ${host}:${listen.port}: ${(e as Error).message}`, {
          cause: e,
        });
      }
      if (tries === 0)
        log.warn("gRPC port busy, retrying for 3 s", { node: what, port: listen.port, error: (e as Error).message });
      await Bun.sleep(100);
    }
  }
  return {
    url: `${listen.tls ? "https" : "http"}://${host}:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        // Open streams (ReceiveBids, Subscribe) never end by themselves: cut them after a short grace.
        const force = setTimeout(() => server.forceShutdown(), 500);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
    kill: () => server.forceShutdown(),
  };
}
