import type { Address } from "viem";
import type { BuiltInApplications, DevnetStatus, KilledNode } from "../control/simApi.ts";
import type { BundleSource } from "../l1/builder.ts";
import type { BidderNode } from "../nodes/bidderNode.ts";
import type { Notifier } from "../notify/notifier.ts";
import { NoNodesError } from "./devnetErrors.ts";
import type { NodeEndpoint, NodeHost } from "./nodeHost.ts";
import type { Fault } from "./nodeOps.ts";

/** `--no-nodes`: the devnet runs no node of its own; the user's nodes bring their own network (and bootnode). */
export class NoNodes implements NodeHost {
  readonly hasNodes = false;
  readonly bidderNodes = [];
  readonly providerNodes = [];
  readonly responderAgents = [];

  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  close(): void {}
  async abort(): Promise<void> {}

  endpoints(): { bidder: NodeEndpoint; providers: NodeEndpoint[] } {
    throw new NoNodesError("no bidder node");
  }

  bootnodeAddrs(): string[] {
    return [];
  }

  async settle(): Promise<void> {}

  async stopProvider(index: number): Promise<void> {
    throw new NoNodesError(`no provider node ${index}`);
  }

  async startProvider(index: number): Promise<void> {
    throw new NoNodesError(`no provider node ${index}`);
  }

  async kill(name: string): Promise<KilledNode> {
    throw new NoNodesError(`no node ${name}`);
  }

  async injectFault(node: string, _fault: Fault): Promise<void> {
    if (node === "bidder") throw new NoNodesError("no bidder node");
    throw new NoNodesError(`no provider node ${node}`);
  }

  async status(): Promise<DevnetStatus["nodes"]> {
    return [];
  }

  providerName(_address: Address): string | undefined {
    return undefined;
  }

  bundleSources(): BundleSource[] {
    return [];
  }

  notifiers(): Notifier[] {
    return [];
  }

  bidderFeed(): Record<string, never> {
    return {};
  }

  async attachResponders(): Promise<void> {}

  async setResponders(): Promise<BuiltInApplications> {
    throw new NoNodesError("no built-in provider applications");
  }

  builtInApplications(): BuiltInApplications {
    return { attached: false, count: 0, detachable: false };
  }

  bidderNode(): BidderNode {
    throw new NoNodesError("no bidder node");
  }
}
