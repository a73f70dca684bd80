import { swagger } from "@elysiajs/swagger";
import { type AnyElysia, Elysia } from "elysia";
import { RpcError } from "../protocol/grpcCodes.ts";
import type { ProtocolVersion } from "../protocol/protocolVersion.ts";
import type { ProtocolRules } from "../protocol/rules.ts";
import type { NodeRole } from "../services/nodeServices.ts";
import { logger } from "../util/log.ts";
import { unaryErrorResponse } from "./wire/errors.ts";
import { routingError } from "./wire/routing.ts";
import { DEFAULT_STREAM_KEEPALIVE_MS, setStreamKeepAlive } from "./wire/stream.ts";

export interface NodeAppOptions {
  role: NodeRole;
  /** Ethereum address of the node, shown in the OpenAPI description. */
  address: string;
  /** The rules of the node's protocol version: the OpenAPI document's version (API_VERSIONS). */
  rules: ProtocolRules;
  /** Elysia plugins, one per service area (bidder, provider, notifications, …). */
  plugins: AnyElysia[];
  /** Health check: resolves to undefined when healthy, else the reason (answered as 503). */
  health?: () => Promise<string | undefined>;
  /** How often an idle stream sends a blank line (ms, 0 = never); default DEFAULT_STREAM_KEEPALIVE_MS. */
  streamKeepAliveMs?: number;
}

/**
 * The OpenAPI document's version per protocol version: v1.1's is the one the pinned interface carries (interface.md
 * §9); v1.2's is what upstream's v1.2.5 API descriptions carry.
 */
export const API_VERSIONS: Record<ProtocolVersion, string> = { "v1.1": "1.1.6-oas3", "v1.2": "1.0.0-alpha" };

/**
 * One node's HTTP app: the services of its role, `/health`, the OpenAPI page at `/swagger`, and grpc-gateway's
 * error conventions for everything (mapped statuses, 404 / 501 routing errors).
 */
export function createNodeApp(opts: NodeAppOptions) {
  const log = logger(`${opts.role}-api`);
  const keepAliveMs = opts.streamKeepAliveMs ?? DEFAULT_STREAM_KEEPALIVE_MS;
  let app = new Elysia({ name: `${opts.role}-node` })
    .mapResponse({ as: "global" }, ({ response }) => {
      if (response instanceof Response && keepAliveMs !== DEFAULT_STREAM_KEEPALIVE_MS)
        setStreamKeepAlive(response, keepAliveMs);
    })
    .onError({ as: "global" }, ({ code, error, request }) => {
      const path = new URL(request.url).pathname;
      if (code === "NOT_FOUND")
        return unaryErrorResponse(
          routingError(
            path,
            app.routes.map((r) => r.path),
          ),
        );
      if (error instanceof RpcError) log.debug("request failed", { path, code: error.code, message: error.message });
      else log.error("handler crashed", { path, code, error });
      return unaryErrorResponse(error);
    })
    .use(
      swagger({
        path: "/swagger",
        exclude: ["/health", "/swagger", "/swagger/json"],
        documentation: {
          info: {
            title: `mev-commit ${opts.role} node`,
            version: API_VERSIONS[opts.rules.version],
            description: `Reference ${opts.role} node (${opts.address}). Streams are newline-delimited JSON: one {"result":…} per message, {"error":…} on failure.`,
          },
        },
      }),
    )
    .get(
      "/health",
      async () => {
        const problem = await opts.health?.();
        return problem
          ? new Response(`${problem}\n`, { status: 503, headers: { "content-type": "text/plain" } })
          : new Response("ok\n", { headers: { "content-type": "text/plain" } });
      },
      { detail: { hide: true } },
    );
  for (const p of opts.plugins) app = app.use(p) as typeof app;
  return app;
}
