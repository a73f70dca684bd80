import type { Address, Chain, Hex } from "viem";
import { createNodeApp } from "../api/app.ts";
import { serve, type Served } from "../api/serve.ts";
import { chainClients, type ChainClients } from "../chain/clients.ts";
import type { ContractAddresses } from "../chain/deploy.ts";
import { NodeStore } from "../store/db.ts";

export interface ProviderNodeOptions {
  /** Position among the devnet's providers (0-based), used in names and ports. */
  index: number;
  privateKey: Hex;
  settlementChain: Chain;
  contracts: ContractAddresses;
  storePath: string;
  decisionTimeoutMs: number;
}

/** A provider node: its key, its store, its services, and the HTTP app that serves them. */
export class ProviderNode {
  readonly role = "provider" as const;
  readonly settlement: ChainClients;
  readonly store: NodeStore;
  readonly address: Address;
  private served: Served | undefined;

  constructor(readonly options: ProviderNodeOptions) {
    this.settlement = chainClients(options.settlementChain, options.privateKey);
    this.address = this.settlement.account.address;
    this.store = new NodeStore(options.storePath);
  }

  get name(): string {
    return `provider-${this.options.index}`;
  }

  get url(): string {
    if (!this.served) throw new Error(`${this.name} is not listening`);
    return this.served.url;
  }

  get listening(): boolean {
    return this.served !== undefined;
  }

  buildApp() {
    return createNodeApp({ role: "provider", address: this.address, plugins: [] });
  }

  async listen(host: string, port: number): Promise<string> {
    this.served = serve(this.buildApp(), host, port, this.name);
    return this.served.url;
  }

  async stop(): Promise<void> {
    await this.served?.stop();
    this.served = undefined;
    this.store.close();
  }
}
