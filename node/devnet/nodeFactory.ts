import type { Chain } from "viem";
import { bidderAccountIndex, devAccount, ROLES } from "../chain/accounts.ts";
import type { ProtocolContractAddresses } from "../chain/protocolContracts.ts";
import type { BidOutcomes } from "../explorer/bidOutcomes.ts";
import type { Network } from "../network/network.ts";
import { BidderNode, type BidderNodeOptions } from "../nodes/bidderNode.ts";
import { ProviderNode, type ProviderNodeOptions } from "../nodes/providerNode.ts";
import type { ValidatorService } from "../validators/validatorService.ts";
import type { DevnetConfig } from "./config.ts";
import type { DataDir } from "./dataDir.ts";

export interface NodeFactoryParts {
  config: DevnetConfig;
  dir: DataDir;
  settlementChain: Chain;
  contracts: ProtocolContractAddresses;
  validators: ValidatorService;
  bidOutcomes: BidOutcomes | undefined;
}

/**
 * The devnet's in-process nodes, made in one place: the options of bidder j (0: the devnet's bidder, then the extra
 * ones of `--bidders N`) and provider i from the devnet's config, and the node a kill starts again on the dead one's
 * options.
 */
export class NodeFactory {
  constructor(private readonly o: NodeFactoryParts) {}

  bidderOptions(j: number, network: Network): BidderNodeOptions {
    const c = this.o.config;
    return {
      privateKey: devAccount(j === 0 ? ROLES.bidder : bidderAccountIndex(j)).privateKey,
      settlementChain: this.o.settlementChain,
      contracts: this.o.contracts,
      rules: c.rules,
      storePath: this.o.dir.store(j === 0 ? "bidder" : `bidder-${j}`),
      bidTimeoutMs: c.bidTimeoutMs,
      network,
      validators: this.o.validators,
      streamKeepAliveMs: c.streamKeepAliveMs,
      cryptoWorkers: c.cryptoWorkers,
      outcomes: this.o.bidOutcomes,
    };
  }

  providerOptions(index: number, network: Network): ProviderNodeOptions {
    const c = this.o.config;
    return {
      index,
      privateKey: devAccount(ROLES.firstProvider + index).privateKey,
      settlementChain: this.o.settlementChain,
      contracts: this.o.contracts,
      rules: c.rules,
      storePath: this.o.dir.store(`provider-${index}`),
      decisionTimeoutMs: c.decisionTimeoutMs,
      network,
      validators: this.o.validators,
      streamKeepAliveMs: c.streamKeepAliveMs,
      cryptoWorkers: c.cryptoWorkers,
    };
  }

  bidder(options: BidderNodeOptions): BidderNode {
    return new BidderNode(options);
  }

  provider(options: ProviderNodeOptions): ProviderNode {
    return new ProviderNode(options);
  }
}
