import type { Address, Chain, Hex } from "viem";
import { type ChainClients, chainClients } from "../chain/clients.ts";
import type { ContractAddresses } from "../chain/contracts.ts";
import type { EventPoller } from "../chain/eventPoller.ts";
import { protocolEventPoller } from "../chain/protocolEvents.ts";
import { processCrypto } from "../crypto/cryptoPool.ts";
import type { Network, ProviderPeer } from "../network/network.ts";
import { Notifier } from "../notify/notifier.ts";
import { commitmentFailure, publishPeerEvents, publishRegistryEvents, v12Notices } from "../notify/sources.ts";
import { protocolDomains } from "../protocol/digest.ts";
import type { ProtocolRules } from "../protocol/rules.ts";
import type { G1Point } from "../protocol/types.ts";
import type { BidderBalanceCheck, CommittedAmounts } from "../provider/bids/balanceCheck.ts";
import { BidDispatcher } from "../provider/bids/bidDispatcher.ts";
import { BidIntake } from "../provider/bids/bidIntake.ts";
import { CommitmentStorer } from "../provider/bids/commitmentStorer.ts";
import { PerProviderBalanceCheck } from "../provider/bids/perProviderBalanceCheck.ts";
import { WindowBalanceCheck } from "../provider/bids/windowBalanceCheck.ts";
import { nikeKeyFromNodeKey } from "../provider/nikeKey.ts";
import { ProviderStakeService } from "../provider/stake/stakeService.ts";
import { type NodeListen, type NodeServer, type NodeServices, serveNode } from "../server/nodeServer.ts";
import { DebugService } from "../services/debugService.ts";
import { NotificationsService } from "../services/notificationsService.ts";
import { ProviderService } from "../services/providerService.ts";
import { ValidatorApiService, type ValidatorsSource } from "../services/validatorApiService.ts";
import { NodeStore } from "../store/db.ts";
import { CommitmentStore } from "../tracker/commitmentStore.ts";
import type { CommitmentRecord } from "../tracker/record.ts";
import { CommitmentTracker } from "../tracker/tracker.ts";
import { KillAfterAck } from "../util/killAfterAck.ts";
import { KillSwitch } from "../util/killSwitch.ts";
import { logger } from "../util/log.ts";

const log = logger("provider");

export interface ProviderNodeOptions {
  /** Position among the devnet's providers (0-based), used in names and ports. */
  index: number;
  privateKey: Hex;
  settlementChain: Chain;
  contracts: ContractAddresses;
  /** The rules of the contracts' protocol version: the events followed, the balance check, the API messages. */
  rules: ProtocolRules;
  storePath: string;
  decisionTimeoutMs: number;
  network: Network;
  /** The beacon proposer schedule and opt-in states (GET /v1/validator/get_validators). */
  validators: ValidatorsSource;
  /** How often an idle stream sends a blank line (ms, 0 = never); default 15 s. */
  streamKeepAliveMs?: number;
  /** Worker threads for the bid-path crypto, shared with the process's other nodes (default 0: this thread). */
  cryptoWorkers?: number;
}

/** A provider node's composition root: its keys, its store, its role code, the API services over them and their transports. */
export class ProviderNode {
  readonly role = "provider" as const;
  readonly settlement: ChainClients;
  readonly address: Address;
  readonly nikePublicKey: G1Point;
  private store: NodeStore | undefined;
  /** The follower of the settlement chain's events (undefined until start). */
  events: EventPoller | undefined;
  readonly dispatcher = new BidDispatcher();
  storer: CommitmentStorer | undefined;
  tracker: CommitmentTracker | undefined;
  readonly notifier = new Notifier();
  private off: (() => void)[] = [];
  commitments: CommitmentStore | undefined;
  /** The balance check of the deposit model (WindowBalanceCheck or PerProviderBalanceCheck), while started. */
  deposits: BidderBalanceCheck | undefined;
  /** The API services every transport serves. */
  readonly services: NodeServices;
  private served: NodeServer | undefined;
  private readonly nikeSecret: bigint;
  private readonly life = new KillSwitch();

  /** The rules of the protocol version the node speaks (its option). */
  readonly rules: ProtocolRules;

  constructor(readonly options: ProviderNodeOptions) {
    this.rules = options.rules;
    this.settlement = chainClients(options.settlementChain, options.privateKey, this.life);
    this.address = this.settlement.account.address;
    const nike = nikeKeyFromNodeKey(options.privateKey);
    this.nikeSecret = nike.secret;
    this.nikePublicKey = nike.publicKey;
    this.services = {
      role: "provider",
      address: this.address,
      provider: new ProviderService({
        dispatcher: this.dispatcher,
        stake: new ProviderStakeService(this.settlement, options.contracts),
        commitments: () => this.commitments,
        rules: this.rules,
      }),
      notifications: new NotificationsService(this.notifier, this.rules),
      validator: new ValidatorApiService(options.validators),
      debug: new DebugService(options.network, this.address, "provider"),
    };
  }

  get name(): string {
    return `provider-${this.options.index}`;
  }

  get url(): string {
    if (!this.served) throw new Error(`${this.name} is not listening`);
    return this.served.url;
  }

  /** The gRPC server's URL (`http://host:port`, `https://…` with TLS). */
  get rpcUrl(): string {
    if (!this.served) throw new Error(`${this.name} is not listening`);
    return this.served.rpcUrl;
  }

  get listening(): boolean {
    return this.served !== undefined;
  }

  /** Opens the store, follows the chain, serves HTTP and gRPC and joins the network. A stopped node can start again. */
  async start(listen: NodeListen): Promise<string> {
    if (this.life.killed) throw new Error(`${this.name} was killed: a new node on its store takes its place`);
    const o = this.options;
    const c = o.contracts;
    this.store = new NodeStore(o.storePath);
    this.commitments = new CommitmentStore(this.store);
    const rules = this.rules;
    this.events = protocolEventPoller(this.settlement.publicClient, c, this.store, undefined, undefined, rules);
    const deposits = this.balanceCheck(rules, this.events, this.commitments);
    this.deposits = deposits;
    const storer = new CommitmentStorer(this.settlement, c.preconfManager, this.commitments);
    const storeFailed = commitmentFailure(this.notifier, "commitment_store_failed", rules);
    storer.onStoreFailed = (digest, txnHash, error) => {
      const r = this.commitments?.get(digest);
      this.refund(deposits, r);
      storeFailed(digest, txnHash, error, r);
    };
    this.storer = storer;
    const intake = new BidIntake({
      privateKey: o.privateKey,
      address: this.address,
      nikeSecret: this.nikeSecret,
      domains: protocolDomains(BigInt(o.settlementChain.id), c.preconfManager),
      deposits,
      dispatcher: this.dispatcher,
      decisionTimeoutMs: o.decisionTimeoutMs,
      crypto: processCrypto(o.cryptoWorkers ?? 0),
      onCommitted: (commitment, bidder) => storer.record(commitment, bidder),
    });
    const notices = v12Notices(this.notifier, rules);
    this.tracker = new CommitmentTracker({
      role: { role: "provider", nikeSecret: this.nikeSecret },
      self: this.address,
      settlement: this.settlement,
      preconfManager: c.preconfManager,
      blockTracker: c.blockTracker,
      commitments: this.commitments,
      events: this.events,
      rules,
      onOpenFailed: commitmentFailure(this.notifier, "commitment_open_failed", rules),
      notices,
      onOtherProviderWon: (r) => {
        this.refund(deposits, r);
        notices.otherProviderWonBlock(r.digest, `0x${r.bidder}`, r.bidAmount);
      },
    });
    this.off = [
      publishPeerEvents(this.notifier, o.network, this.address),
      publishRegistryEvents(this.notifier, this.events, this.settlement.publicClient, c.providerRegistry),
    ];
    await this.tracker.reconcile((r) => storer.restore(r));
    await this.events.start();
    this.tracker.start();
    try {
      this.served = await serveNode(
        this.services,
        { streamKeepAliveMs: this.options.streamKeepAliveMs, ...listen },
        this.name,
      );
    } catch (e) {
      // Nothing half-started stays behind: a later start opens everything again.
      this.events.stop();
      for (const f of this.off) f();
      this.tracker.close();
      storer.stop();
      await storer.drain();
      this.store.close();
      this.store = undefined;
      throw e;
    }
    const peer: ProviderPeer = {
      address: this.address,
      nikePublicKey: this.nikePublicKey,
      handleBid: async (bid, _from, signal) => {
        const reply = await intake.handle(bid, signal);
        this.afterAck.acknowledging();
        return reply;
      },
    };
    await o.network.connectProvider(peer);
    return this.served.url;
  }

  /**
   * The balance check of `rules`: v1.1's per window, or v1.2's per (bidder, this provider), which gets back what
   * some commitments had reserved (`refund`).
   */
  private balanceCheck(rules: ProtocolRules, events: EventPoller, committed: CommittedAmounts): BidderBalanceCheck {
    const c = this.options.contracts;
    if (rules.deposits === "window")
      return new WindowBalanceCheck(this.settlement.publicClient, c.bidderRegistry, events, committed);
    return new PerProviderBalanceCheck(this.settlement.publicClient, c.bidderRegistry, this.address, events, committed);
  }

  /**
   * v1.2: a commitment whose money never leaves the deposit gives it back, once. As upstream v1.2.5 refunds on its
   * own notifications, that is a stored commitment of a block another provider won (other_provider_won_block) or one
   * the chain refused to store (commitment_store_failed): a commitment is one or the other, never both, and one still
   * pending when its block's winner is recorded is neither then.
   */
  private refund(deposits: BidderBalanceCheck, r: CommitmentRecord | undefined): void {
    if (!r || !deposits.refunds) return;
    deposits.refund(`0x${r.bidder}`, r.bidAmount);
    // A balance rebuilt from the store after a restart leaves it out (CommittedAmounts).
    this.commitments
      ?.markRefunded(r.digest)
      .catch((e) => log.warn("could not note a refund in the store", { commitment: r.digest, error: e }));
  }

  /** The raw-transaction bundles this provider committed to for an L1 block, best bid first (its builder's input). */
  bundlesFor(block: bigint): string[][] {
    return (this.commitments?.forBlock(block) ?? [])
      .filter((r) => r.rawTransactions.length > 0)
      .map((r) => r.rawTransactions);
  }

  /**
   * Dies at once, as a SIGKILL ends a node in a process of its own (docs/crash-safety.md): provider applications'
   * streams and the peers' links drop with no final message or goodbye, store transactions in flight are neither
   * awaited nor sent, and the store is closed under whatever was still running. A killed node does not start again:
   * a new one on the same store takes over.
   */
  async kill(): Promise<void> {
    this.life.kill();
    this.storer?.stop();
    this.events?.stop();
    this.tracker?.close();
    for (const f of this.off) f();
    this.served?.kill();
    this.served = undefined;
    await this.options.network.crash(this.address);
    if (this.afterAck.frozen) return;
    this.commitments?.crash();
    this.store?.close();
    this.store = undefined;
  }

  /** The control API's kill "after-ack" (node/util/killAfterAck.ts): dies as it answers a bid with a commitment. */
  readonly afterAck = new KillAfterAck(() => {
    this.life.kill();
    this.storer?.stop();
    this.events?.stop();
    this.tracker?.close();
    this.commitments?.crash();
    this.store?.close();
  });

  async stop(): Promise<void> {
    await this.options.network.disconnectProvider(this.address);
    await this.served?.stop();
    this.served = undefined;
    this.events?.stop();
    for (const f of this.off) f();
    this.tracker?.close();
    this.storer?.stop();
    await Promise.all([this.tracker?.drain(), this.storer?.drain()]);
    this.store?.close();
    this.store = undefined;
  }
}
