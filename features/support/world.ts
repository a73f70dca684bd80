import { setWorldConstructor, World, type IWorldOptions } from "@cucumber/cucumber";
import type { BidderApi, NotificationsApi, ProviderApi } from "./clients/api.ts";
import { ControlClient } from "./clients/control.ts";
import { call, type CallOptions, type HttpResult } from "./clients/http.ts";
import { HttpBidderApi, HttpNotificationsApi, HttpProviderApi } from "./clients/httpApi.ts";
import { ScenarioScope } from "./clients/scope.ts";
import { run } from "./run.ts";
import type { Target } from "./target.ts";

export class TargetLacksCapability extends Error {
  override name = "TargetLacksCapability";
}

/** The transport the role interfaces use (TRANSPORT=http, the default; another transport plugs in here). */
export const TRANSPORT = process.env.TRANSPORT ?? "http";

/**
 * One scenario's state: the target, the scenario's scope (every request it opens is aborted when it ends), clients
 * of the target's roles, the teardowns registered by the support code, and the last response a step got.
 */
export class ConformanceWorld extends World {
  last: HttpResult | undefined;
  readonly scope = new ScenarioScope();
  /** Teardowns in registration order; lifecycle.ts runs them last first. */
  readonly teardowns: { what: string; run: () => Promise<string[]> }[] = [];

  constructor(options: IWorldOptions) {
    super(options);
    if (TRANSPORT !== "http") throw new Error(`TRANSPORT=${TRANSPORT}: only "http" is implemented in this suite so far`);
  }

  get target(): Target {
    return run().target;
  }

  has(capability: string): boolean {
    return this.target.capabilities.includes(capability);
  }

  /** Registers work to undo at the end of the scenario; it answers the problems it found. */
  onTeardown(what: string, fn: () => Promise<string[] | void>): void {
    this.teardowns.push({ what, run: async () => (await fn()) ?? [] });
  }

  get control(): ControlClient {
    if (!this.target.controlUrl || !this.has("sim-control")) throw new TargetLacksCapability("this target has no control API (tag the scenario @sim)");
    return new ControlClient(this.target.controlUrl, this.scope);
  }

  get bidder(): BidderApi {
    return new HttpBidderApi(this.target.bidderUrl, this.scope);
  }

  /** Provider n (1-based). */
  provider(n: number): ProviderApi {
    return new HttpProviderApi(this.nodeUrl(`provider ${n}`), this.scope);
  }

  notifications(node: string): NotificationsApi {
    return new HttpNotificationsApi(this.nodeUrl(node), this.scope);
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
    return call(method, url, { ...opts, scope: this.scope });
  }

  /** An HTTP request to a node; its answer becomes the scenario's last response. */
  async request(method: string, node: string, path: string, opts?: CallOptions): Promise<HttpResult> {
    this.last = await this.http(method, this.nodeUrl(node) + path, opts);
    return this.last;
  }

  get response(): HttpResult {
    if (!this.last) throw new Error("no request was made in this scenario yet");
    return this.last;
  }
}

setWorldConstructor(ConformanceWorld);
