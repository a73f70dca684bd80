import { type IWorldOptions, setWorldConstructor, World } from "@cucumber/cucumber";
import { MevCommitError } from "../../lib/errors.ts";
import type { BidderApi, NotificationsApi, ProviderApi, Unary } from "./clients/api.ts";
import { ControlClient } from "./clients/control.ts";
import { GrpcBidderApi, GrpcNotificationsApi, GrpcProviderApi } from "./clients/grpcApi.ts";
import { type CallOptions, call, type HttpResult } from "./clients/http.ts";
import { HttpBidderApi, HttpNotificationsApi, HttpProviderApi, unaryOf } from "./clients/httpApi.ts";
import { callRoute, grpcCallOf } from "./clients/routes.ts";
import { ScenarioScope } from "./clients/scope.ts";
import { SKIPPED_PREFIX } from "./health.ts";
import type { ProtocolRules } from "./protocolRules.ts";
import { run } from "./run.ts";
import type { Target } from "./target.ts";
import { type Transport, transport } from "./transport.ts";

export class TargetLacksCapability extends MevCommitError {}

/** A step sent an HTTP request to a node's API in a gRPC run: it must use the role clients, or be HTTP-only. */
export class HttpInGrpcRunError extends MevCommitError {}

const ROLE_API_PATH = /^\/v1\/(bidder|provider|subscribe)\b/;

/**
 * One scenario's state: the target, the scenario's scope (every request it opens is aborted when it ends), clients
 * of the target's roles, the teardowns registered by the support code, and the last response a step got.
 */
export class ConformanceWorld extends World {
  last: HttpResult | undefined;
  /** The last answer a step got from a node's API, on either transport (an HTTP request sets it too). */
  answer: Unary | undefined;
  readonly scope = new ScenarioScope();
  /** Teardowns in registration order; lifecycle.ts runs them last first. */
  readonly teardowns: { what: string; run: () => Promise<string[]> }[] = [];

  readonly transport: Transport = transport();

  constructor(options: IWorldOptions) {
    super(options);
  }

  get target(): Target {
    return run().target;
  }

  /** The facts of the target's protocol version the steps ask (features/support/protocolRules.ts). */
  get rules(): ProtocolRules {
    return this.target.rules;
  }

  has(capability: string): boolean {
    return this.target.capabilities.includes(capability);
  }

  /** Registers work to undo at the end of the scenario; it answers the problems it found. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a teardown that finds nothing may return nothing
  onTeardown(what: string, fn: () => Promise<string[] | void>): void {
    this.teardowns.push({ what, run: async () => (await fn()) ?? [] });
  }

  get control(): ControlClient {
    if (!this.target.controlUrl || !this.has("sim-control"))
      throw new TargetLacksCapability("this target has no control API (tag the scenario @sim)");
    return new ControlClient(this.target.controlUrl, this.scope);
  }

  get bidder(): BidderApi {
    return this.transport === "grpc"
      ? new GrpcBidderApi(this.rpcUrl("bidder"), this.scope, this.target.rules)
      : new HttpBidderApi(this.target.bidderUrl, this.scope);
  }

  /** Provider n (1-based). */
  provider(n: number): ProviderApi {
    const node = `provider ${n}`;
    return this.transport === "grpc"
      ? new GrpcProviderApi(this.rpcUrl(node), this.scope, this.target.rules)
      : new HttpProviderApi(this.nodeUrl(node), this.scope);
  }

  notifications(node: string): NotificationsApi {
    return this.transport === "grpc"
      ? new GrpcNotificationsApi(this.rpcUrl(node), this.scope, this.target.rules)
      : new HttpNotificationsApi(this.nodeUrl(node), this.scope);
  }

  /**
   * For a step that checks what exists only over HTTP (status codes, content types, JSON text, raw bodies): in a
   * gRPC run the scenario is reported skipped with the reason (return the answer from the step), never passed.
   */
  httpOnly(what: string): "skipped" | undefined {
    if (this.transport === "http") return undefined;
    this.attach(`${SKIPPED_PREFIX}HTTP only (${what}); this run speaks gRPC`, "text/plain");
    return "skipped";
  }

  /** The gRPC URL of a node named the way steps name it (the target's bidderRpcUrl, providerRpcUrls). */
  rpcUrl(node: string): string {
    const t = this.target;
    if (node === "bidder" || node === "the bidder") {
      if (!t.bidderRpcUrl) throw new TargetLacksCapability("a gRPC run needs the target's bidderRpcUrl");
      return t.bidderRpcUrl;
    }
    const m = /^provider(?: (\d+))?$/.exec(node);
    if (m) {
      const i = m[1] ? Number(m[1]) - 1 : 0;
      const url = t.providerRpcUrls?.[i];
      if (!url) throw new TargetLacksCapability(`a gRPC run needs the target's providerRpcUrls[${i}]`);
      return url;
    }
    throw new Error(`unknown node "${node}" (say "bidder", "provider" or "provider N")`);
  }

  /** The URL of a node named the way steps name it: "bidder", "the bidder", "provider", "provider 2". */
  nodeUrl(node: string): string {
    if (node === "bidder" || node === "the bidder") return this.target.bidderUrl;
    const m = /^provider(?: (\d+))?$/.exec(node);
    if (m) {
      const i = m[1] ? Number(m[1]) - 1 : 0;
      const url = this.target.providerUrls[i];
      if (!url) throw new Error(`the target has ${this.target.providerUrls.length} providers, not ${i + 1}`);
      return url;
    }
    throw new Error(`unknown node "${node}" (say "bidder", "provider" or "provider N")`);
  }

  /** An HTTP request of this scenario (aborted when it ends). */
  http(method: string, url: string, opts: CallOptions = {}): Promise<HttpResult> {
    if (this.transport === "grpc" && ROLE_API_PATH.test(new URL(url).pathname))
      throw new HttpInGrpcRunError(
        `${method} ${url}: this step speaks HTTP to a node's API in a gRPC run (use the role clients, or world.httpOnly)`,
      );
    return call(method, url, { ...opts, scope: this.scope });
  }

  /** An HTTP request to a node; its answer becomes the scenario's last response. Not to a role API in a gRPC run. */
  async request(method: string, node: string, path: string, opts?: CallOptions): Promise<HttpResult> {
    this.last = await this.http(method, this.nodeUrl(node) + path, opts);
    this.answer = unaryOf(this.last, `${method} ${path}`);
    return this.last;
  }

  /**
   * A call written as a gateway request: over HTTP exactly that request, over gRPC the call it stands for
   * (clients/routes.ts). Its answer becomes the last answer. A request with no gRPC form is HTTP-only: the step
   * answers "skipped" (return it).
   */
  async send(method: string, node: string, path: string, body?: string): Promise<"skipped" | undefined> {
    if (this.transport === "http") {
      await this.request(method, node, path, body === undefined ? {} : { body });
      return undefined;
    }
    const call = grpcCallOf(method, path, body, this.target.rules);
    const role = node === "bidder" || node === "the bidder" ? "bidder" : "provider";
    if (!call || call.role !== role) return this.httpOnly(`${method} ${path} has no gRPC form on the ${node}`);
    this.answer = await callRoute(call, this.rpcUrl(node), this.scope, this.target.rules);
    return undefined;
  }

  /** The last answer of a node's API, whatever the transport. */
  get lastAnswer(): Unary {
    if (!this.answer) throw new Error("no call was made in this scenario yet");
    return this.answer;
  }

  get response(): HttpResult {
    if (!this.last) throw new Error("no request was made in this scenario yet");
    return this.last;
  }
}

setWorldConstructor(ConformanceWorld);
