import { setWorldConstructor, World, type IWorldOptions } from "@cucumber/cucumber";
import { call, type CallOptions, type HttpResult } from "../../scenarios/clients/http.ts";
import { ControlClient } from "../../scenarios/clients/control.ts";
import { run } from "./run.ts";
import type { Target } from "./target.ts";

export class TargetLacksCapability extends Error {
  override name = "TargetLacksCapability";
}

/** One scenario's state: the target, clients for it, and the last response the scenario got. */
export class ConformanceWorld extends World {
  last: HttpResult | undefined;

  constructor(options: IWorldOptions) {
    super(options);
  }

  get target(): Target {
    return run().target;
  }

  get control(): ControlClient {
    if (!this.target.controlUrl) throw new TargetLacksCapability("this target has no control API (tag the scenario @sim)");
    return new ControlClient(this.target.controlUrl);
  }

  /** The URL of a node named the way steps name it: "bidder", "provider", "provider 2". */
  nodeUrl(node: string): string {
    if (node === "bidder") return this.target.bidderUrl;
    const m = /^provider(?: (\d+))?$/.exec(node);
    if (m) {
      const i = m[1] ? Number(m[1]) - 1 : 0;
      const url = this.target.providerUrls[i];
      if (!url) throw new Error(`the target has ${this.target.providerUrls.length} providers, not ${i + 1}`);
      return url;
    }
    throw new Error(`unknown node "${node}" (say "bidder", "provider" or "provider N")`);
  }

  async request(method: string, node: string, path: string, opts?: CallOptions): Promise<HttpResult> {
    this.last = await call(method, this.nodeUrl(node) + path, opts);
    return this.last;
  }

  get response(): HttpResult {
    if (!this.last) throw new Error("no request was made in this scenario yet");
    return this.last;
  }
}

setWorldConstructor(ConformanceWorld);
