import type { Address, Chain, Hex } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { BidSender } from "../bidder/bids/bidSender.ts";
import type { BidOutcomeSink } from "../bidder/bids/outcomeSink.ts";
import type { BidderDepositModel } from "../bidder/deposits/depositModel.ts";
import { DepositManagerClient } from "../bidder/deposits/perProvider/depositManagerClient.ts";
import { PerProviderDeposits } from "../bidder/deposits/perProvider/perProviderDeposits.ts";
import { ProviderDepositsRegistry } from "../bidder/deposits/perProvider/providerDepositsRegistry.ts";
import { AutoDepositor } from "../bidder/deposits/window/autoDepositor.ts";
import { DepositStore } from "../bidder/deposits/window/depositStore.ts";
import { BidderRegistryClient } from "../bidder/deposits/window/registry.ts";
import { WindowDeposits } from "../bidder/deposits/window/windowDeposits.ts";
import { claimSlashedFunds } from "../bidder/slashedFunds.ts";
import { type ChainClients, chainClients } from "../chain/clients.ts";
import type { ContractAddresses } from "../chain/contracts.ts";
import type { EventPoller } from "../chain/eventPoller.ts";
import { protocolEventPoller } from "../chain/protocolEvents.ts";
import { txPipelineFor } from "../chain/txPipeline.ts";
import { processCrypto } from "../crypto/cryptoPool.ts";
import type { Network } from "../network/network.ts";
import { Notifier } from "../notify/notifier.ts";
import { commitmentFailure, publishPeerEvents, publishRegistryEvents, v12Notices } from "../notify/sources.ts";
import { protocolDomains } from "../protocol/digest.ts";
import type { ProtocolRules } from "../protocol/rules.ts";
import { type NodeListen, type NodeServer, type NodeServices, serveNode } from "../server/nodeServer.ts";
import { BidderService } from "../services/bidderService.ts";
import { DebugService } from "../services/debugService.ts";
import { NotificationsService } from "../services/notificationsService.ts";
import { ValidatorApiService, type ValidatorsSource } from "../services/validatorApiService.ts";
import { NodeStore } from "../store/db.ts";
import { CommitmentStore } from "../tracker/commitmentStore.ts";
import { CommitmentTracker } from "../tracker/tracker.ts";
import { KillAfterAck } from "../util/killAfterAck.ts";
import { KillSwitch } from "../util/killSwitch.ts";

/** A v1.1 call (window deposits) on a node of protocol v1.2, or the other way round. */
export class WrongProtocolVersionError extends MevCommitError {}

export interface BidderNodeOptions {
  privateKey: Hex;
  settlementChain: Chain;
  contracts: ContractAddresses;
  /**
   * The rules of the protocol version: the events followed, what an open carries, and the deposits (per window, or
   * per provider with the deposit manager).
   */
  rules: ProtocolRules;
  storePath: string;
  bidTimeoutMs: number;
  network: Network;
  /** The beacon proposer schedule and opt-in states (GET /v1/validator/get_validators). */
  validators: ValidatorsSource;
  /** How often an idle stream sends a blank line (ms, 0 = never); default 15 s. */
  streamKeepAliveMs?: number;
  /** Worker threads for the bid-path crypto, shared with the process's other nodes (default 0: this thread). */
  cryptoWorkers?: number;
  /** Told each bid's outcome at every provider (the devnet's explorer). */
  outcomes?: BidOutcomeSink;
}

/** The bidder node's composition root: its key, its store, its role code, the API services over them and their transports. */
export class BidderNode {
  readonly role = "bidder" as const;
  readonly settlement: ChainClients;
  readonly store: NodeStore;
  readonly address: Address;
  readonly events: EventPoller;
  /** The bidder's deposit model: window deposits (v1.1) or per-provider deposits and the deposit manager (v1.2). */
  readonly depositModel: BidderDepositModel;
  readonly commitments: CommitmentStore;
  readonly sender: BidSender;
  readonly tracker: CommitmentTracker;
  readonly notifier = new Notifier();
  private readonly off: (() => void)[] = [];
  /** The API services every transport serves. */
  readonly services: NodeServices;
  private served: NodeServer | undefined;
  private readonly life = new KillSwitch();

  constructor(readonly options: BidderNodeOptions) {
    this.settlement = chainClients(options.settlementChain, options.privateKey, this.life);
    this.address = this.settlement.account.address;
    this.store = new NodeStore(options.storePath);
    const c = options.contracts;
    const rules = options.rules;
    this.events = protocolEventPoller(this.settlement.publicClient, c, this.store, undefined, undefined, rules);
    if (rules.deposits === "provider") {
      const pipeline = txPipelineFor(options.settlementChain, options.privateKey);
      this.depositModel = new PerProviderDeposits(
        new ProviderDepositsRegistry(this.settlement, c),
        new DepositManagerClient(this.settlement, () => pipeline.forgetNonce()),
      );
    } else {
      const registry = new BidderRegistryClient(this.settlement, c);
      const depositStore = new DepositStore(this.store);
      this.depositModel = new WindowDeposits(
        registry,
        depositStore,
        new AutoDepositor(registry, depositStore, this.events),
      );
    }
    this.commitments = new CommitmentStore(this.store);
    this.sender = new BidSender({
      privateKey: options.privateKey,
      address: this.address,
      domains: protocolDomains(BigInt(options.settlementChain.id), c.preconfManager),
      network: options.network,
      commitments: this.commitments,
      timeoutMs: options.bidTimeoutMs,
      crypto: processCrypto(options.cryptoWorkers ?? 0),
      outcomes: options.outcomes,
    });
    this.tracker = new CommitmentTracker({
      role: { role: "bidder" },
      self: this.address,
      settlement: this.settlement,
      preconfManager: c.preconfManager,
      blockTracker: c.blockTracker,
      commitments: this.commitments,
      events: this.events,
      rules,
      onOpenFailed: commitmentFailure(this.notifier, "commitment_open_failed"),
      notices: v12Notices(this.notifier, rules),
    });
    this.services = {
      role: "bidder",
      address: this.address,
      bidder: new BidderService({
        sender: this.sender,
        deposits: this.depositModel.model === "window" ? this.depositModel : undefined,
        commitments: () => this.commitments,
        claimSlashedFunds: () => claimSlashedFunds(this.settlement, c.providerRegistry),
        acknowledging: () => this.afterAck.acknowledging(),
        rules,
      }),
      bidderDeposits: this.depositModel,
      notifications: new NotificationsService(this.notifier, rules),
      validator: new ValidatorApiService(options.validators),
      debug: new DebugService(options.network, this.address, "bidder"),
    };
    this.off.push(
      publishPeerEvents(this.notifier, options.network, this.address),
      publishRegistryEvents(this.notifier, this.events, this.settlement.publicClient, c.providerRegistry),
    );
  }

  /** Window deposits; only a node of protocol v1.1 has them. */
  get windowDeposits(): WindowDeposits {
    if (this.depositModel.model !== "window")
      throw new WrongProtocolVersionError("window deposits are protocol v1.1; this bidder node runs v1.2");
    return this.depositModel;
  }

  /** Per-provider deposits and the deposit manager; only a node of protocol v1.2 has them. */
  get perProviderDeposits(): PerProviderDeposits | undefined {
    return this.depositModel.model === "perProvider" ? this.depositModel : undefined;
  }

  get url(): string {
    if (!this.served) throw new Error("bidder node is not listening");
    return this.served.url;
  }

  /** The gRPC server's URL (`http://host:port`, `https://…` with TLS). */
  get rpcUrl(): string {
    if (!this.served) throw new Error("bidder node is not listening");
    return this.served.rpcUrl;
  }

  /** Starts following the chain (resuming auto-deposit if it ran before a restart) and serves HTTP and gRPC. */
  async start(listen: NodeListen): Promise<string> {
    // The bidder never stores commitments; one the chain lost stays pending until its provider stores it again.
    await this.tracker.reconcile(() => {});
    await this.events.start();
    this.tracker.start();
    await this.depositModel.resume();
    this.served = await serveNode(
      this.services,
      { streamKeepAliveMs: this.options.streamKeepAliveMs, ...listen },
      "bidder node",
    );
    await this.options.network.connectBidder(this.address);
    return this.served.url;
  }

  /** The ports it serves on (to start a successor there after a kill). */
  get listenPorts(): { httpPort: number; rpcPort: number } | undefined {
    return (
      this.served && {
        httpPort: Number(new URL(this.served.url).port),
        rpcPort: Number(new URL(this.served.rpcUrl).port),
      }
    );
  }

  /**
   * Dies at once, as a SIGKILL ends a node in a process of its own (docs/crash-safety.md): clients' connections and
   * the peers' links drop with no final message or goodbye, nothing is drained or flushed, and the store is closed
   * under whatever was still running. A killed node does not start again: a new one on the same store takes over.
   */
  async kill(): Promise<void> {
    this.life.kill();
    this.events.stop();
    this.tracker.close();
    this.depositModel.close();
    for (const f of this.off) f();
    this.served?.kill();
    this.served = undefined;
    await this.options.network.crash(this.address);
    if (this.afterAck.frozen) return;
    this.commitments.crash();
    this.store.close();
  }

  /** The control API's kill "after-ack" (node/util/killAfterAck.ts). */
  readonly afterAck = new KillAfterAck(() => {
    this.life.kill();
    this.events.stop();
    this.tracker.close();
    this.depositModel.close();
    this.commitments.crash();
    this.store.close();
  });

  async stop(): Promise<void> {
    await this.options.network.disconnectBidder(this.address);
    this.events.stop();
    for (const f of this.off) f();
    this.tracker.close();
    this.depositModel.close();
    await this.served?.stop();
    this.served = undefined;
    await this.tracker.drain();
    this.store.close();
  }
}
