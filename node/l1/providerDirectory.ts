import { type Address, type Hex, parseAbiItem } from "viem";
import type { ChainClients } from "../chain/clients.ts";
import { providerRegistryAbi } from "../chain/contracts.ts";
import { builderKeyFor } from "../chain/deploy.ts";
import type { EventPoller } from "../chain/eventPoller.ts";
import { transact } from "../chain/transact.ts";
import type { NodeStore } from "../store/db.ts";
import { logger } from "../util/log.ts";
import { SerialQueue } from "../util/serial.ts";

export interface ProviderDirectoryOptions {
  /** The ProviderRegistry owner's clients on the settlement chain (maps builder keys with overrideAddBLSKey). */
  owner: ChainClients;
  providerRegistry: Address;
  /** The devnet's follower of the protocol contracts' events. */
  events: EventPoller;
  /**
   * Where the directory keeps the providers it knows, in order, for its next start: the settlement chain may no longer
   * hold old registrations' logs by then (the devnet's Anvil keeps the transactions of its last blocks only,
   * `--settlement-keep-blocks`).
   */
  store?: NodeStore;
  /** Called with the winner schedule (providers in registration order, those that unstaked left out) when it changes. */
  onChange?: (providers: Address[]) => void;
}

/**
 * Every provider registered in ProviderRegistry, by anyone, in registration order, with the builder key the oracle
 * records its blocks by. The devnet's own providers and those of foreign nodes are alike: each takes part in the
 * winner schedule once registered, so its commitments are opened and settled.
 *
 * Builder key: the provider's own key when it added one to the registry (a provider node adds its keys right after
 * registering, through its stake API); until then, and for a provider that adds none, `builderKeyFor(address)`,
 * mapped by the owner as the devnet's own providers' keys are at start. Both map to the provider on-chain.
 *
 * A provider that asks to unstake (ProviderRegistry's Unstake event) leaves the winner schedule: nobody may build
 * its blocks any more (a conformance run's provider, registered and unstaked by a scenario, has no node behind it
 * after the run). It stays in the directory, so that blocks it won before are still recorded with its key, and
 * registering again brings it back.
 */
export class ProviderDirectory {
  private readonly keys = new Map<string, Hex>();
  private readonly order: Address[] = [];
  /** Providers that asked to unstake (lower-case): out of the winner schedule. */
  private readonly unstaked = new Set<string>();
  private readonly queue = new SerialQueue();
  private off: (() => void) | undefined;
  private readonly log = logger("providers");
  /**
   * Set while start() replays what the store and the chain's logs hold: each provider's state is logged once at the
   * end, not every step of its history ("takes part", "back in", "out of" for one provider that simply unstaked).
   */
  private replaying = false;
  /** Per provider (lower-case), where on the settlement chain its last registration or unstake was: older ones are replays. */
  private readonly lastEvent = new Map<string, bigint>();
  private static readonly KEPT = "providers.directory";
  private static readonly UNSTAKED = "providers.unstaked";

  constructor(private readonly o: ProviderDirectoryOptions) {}

  /** Registered providers, in registration order. */
  list(): Address[] {
    return [...this.order];
  }

  /** The winner schedule: registered providers in registration order, without those that asked to unstake. */
  schedule(): Address[] {
    return this.order.filter((p) => !this.unstaked.has(p.toLowerCase()));
  }

  /** Whether the provider takes part in the winner schedule. */
  inSchedule(address: Address): boolean {
    return this.has(address) && !this.unstaked.has(address.toLowerCase());
  }

  has(address: Address): boolean {
    return this.keys.has(address.toLowerCase());
  }

  /** The builder key the oracle records a block won by `coinbase` with; undefined for an unknown address. */
  builderKeyOf(coinbase: Address): Hex | undefined {
    return this.keys.get(coinbase.toLowerCase());
  }

  /**
   * Takes the providers known at the last stop, reads every registration the chain still holds, then follows new
   * ones through the event follower. A registration cannot fall between the two: the devnet mines the chain, and
   * it mines nothing while it is stopped.
   */
  async start(): Promise<void> {
    const offs = [
      this.o.events.on("ProviderRegistered", (e) => this.add(e.args.provider as Address, positionOf(e))),
      this.o.events.on("BLSKeyAdded", (e) => this.keyAdded(e.args.provider as Address, e.args.blsPublicKey as Hex)),
      this.o.events.on("Unstake", (e) => this.leave(e.args.provider as Address, positionOf(e))),
    ];
    this.off = () => {
      for (const f of offs) f();
    };
    this.replaying = true;
    try {
      await this.replay();
    } finally {
      this.replaying = false;
    }
    for (const provider of this.order)
      if (this.unstaked.has(provider.toLowerCase()))
        this.log.info("provider unstaked: out of the winner schedule until it registers again", { provider });
      else
        this.log.info("provider takes part in the winner schedule", {
          provider,
          builderKey: this.keys.get(provider.toLowerCase()),
        });
  }

  /** The providers known at the last stop, then every registration and unstake the chain still holds, in order. */
  private async replay(): Promise<void> {
    const gone = this.o.store?.getKv(ProviderDirectory.UNSTAKED);
    for (const provider of gone ? (JSON.parse(gone) as string[]) : []) this.unstaked.add(provider);
    const kept = this.o.store?.getKv(ProviderDirectory.KEPT);
    for (const provider of kept ? (JSON.parse(kept) as Address[]) : []) await this.add(provider);
    const { publicClient } = this.o.owner;
    const logs = await publicClient.getLogs({
      address: this.o.providerRegistry,
      event: parseAbiItem("event ProviderRegistered(address indexed provider, uint256 stakedAmount)"),
      fromBlock: 0n,
      toBlock: "latest",
    });
    const unstakes = await publicClient.getLogs({
      address: this.o.providerRegistry,
      event: parseAbiItem("event Unstake(address indexed provider, uint256 timestamp)"),
      fromBlock: 0n,
      toBlock: "latest",
    });
    // Registrations and unstakes in chain order: a provider that registered again after unstaking is back.
    const events = [...logs.map((l) => ({ l, join: true })), ...unstakes.map((l) => ({ l, join: false }))].sort(
      (a, b) => Number(a.l.blockNumber! - b.l.blockNumber!) || a.l.logIndex! - b.l.logIndex!,
    );
    for (const { l, join } of events) {
      const at = positionOf({ blockNumber: l.blockNumber!, logIndex: l.logIndex! });
      await (join ? this.add(l.args.provider!, at) : this.leave(l.args.provider!, at));
    }
  }

  stop(): void {
    this.off?.();
  }

  /** Waits until every registration up to the settlement chain's head is known. */
  async sync(): Promise<void> {
    await this.o.events.sync();
    await this.queue.run(async () => {});
  }

  /**
   * Whether an event at `at` is newer than the provider's last one (and then records it): the follower hands
   * events again after a restart (from its cursor, or further back when the chain's history changed).
   */
  private isNew(provider: Address, at: bigint | undefined): boolean {
    if (at === undefined) return true;
    const key = provider.toLowerCase();
    const last = this.lastEvent.get(key);
    if (last !== undefined && at <= last) return false;
    this.lastEvent.set(key, at);
    return true;
  }

  /** A registration: a new provider joins the schedule; one that unstaked and registered again rejoins it. */
  private add(provider: Address, at?: bigint): Promise<void> {
    return this.queue.run(async () => {
      if (!this.isNew(provider, at)) return;
      if (this.has(provider)) return this.setUnstaked(provider, false);
      const key = await this.ensureBuilderKey(provider).catch((e) => {
        // It still takes part; its blocks are recorded with a key that may map to nobody (no winner on-chain).
        this.log.error("cannot map a builder key to a registered provider", { provider, error: e });
        return builderKeyFor(provider);
      });
      this.keys.set(provider.toLowerCase(), key);
      this.order.push(provider);
      this.o.store?.setKv(ProviderDirectory.KEPT, JSON.stringify(this.order));
      if (!this.replaying) this.log.info("provider takes part in the winner schedule", { provider, builderKey: key });
      this.o.onChange?.(this.schedule());
    });
  }

  private leave(provider: Address, at?: bigint): Promise<void> {
    return this.queue.run(async () => {
      if (!this.isNew(provider, at) || !this.has(provider) || this.unstaked.has(provider.toLowerCase())) return;
      this.setUnstaked(provider, true);
    });
  }

  private setUnstaked(provider: Address, unstaked: boolean): void {
    const key = provider.toLowerCase();
    if (this.unstaked.has(key) === unstaked) return;
    if (unstaked) this.unstaked.add(key);
    else this.unstaked.delete(key);
    this.o.store?.setKv(ProviderDirectory.UNSTAKED, JSON.stringify([...this.unstaked]));
    if (!this.replaying)
      this.log.info(
        unstaked
          ? "provider unstaked: out of the winner schedule until it registers again"
          : "provider registered again: back in the winner schedule",
        { provider },
      );
    this.o.onChange?.(this.schedule());
  }

  /** A key the provider added itself replaces the devnet's stand-in key. */
  private keyAdded(provider: Address, key: Hex): Promise<void> {
    return this.queue.run(async () => {
      const current = this.keys.get(provider.toLowerCase());
      const standIn = builderKeyFor(provider).toLowerCase();
      if (!current || current.toLowerCase() !== standIn || key.toLowerCase() === standIn) return;
      this.keys.set(provider.toLowerCase(), key);
      this.log.info("provider's own builder key replaces the devnet's", { provider, builderKey: key });
    });
  }

  private async ensureBuilderKey(provider: Address): Promise<Hex> {
    const { publicClient } = this.o.owner;
    const keys = await publicClient.readContract({
      address: this.o.providerRegistry,
      abi: providerRegistryAbi,
      functionName: "getBLSKeys",
      args: [provider],
    });
    const key = builderKeyFor(provider);
    const own = keys.find((k) => k.toLowerCase() !== key.toLowerCase());
    if (own) return own;
    if (keys.length > 0) return key;
    await transact(
      this.o.owner,
      {
        address: this.o.providerRegistry,
        abi: providerRegistryAbi,
        functionName: "overrideAddBLSKey",
        args: [provider, key],
        gas: 300_000n,
      },
      "mapping a builder key",
    );
    return key;
  }
}

/** An event's place on the settlement chain, as one number that orders events. */
function positionOf(e: { blockNumber: bigint; logIndex: number }): bigint {
  return (e.blockNumber << 32n) + BigInt(e.logIndex);
}
