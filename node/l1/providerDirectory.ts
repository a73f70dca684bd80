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
  /** Called with the providers, in registration order, whenever one joins. */
  onChange?: (providers: Address[]) => void;
}

/**
 * Every provider registered in ProviderRegistry, by anyone, in registration order, with the builder key the oracle
 * records its blocks by. The devnet's own providers and those of foreign nodes are alike: each takes part in the
 * winner schedule once registered, so its commitments are opened and settled.
 *
 * Builder key: the provider's own key when it added one to the registry (a provider node adds its keys right after
 * registering, through its stake API); until then, and for a provider that adds none, `builderKeyFor(address)`,
 * mapped by the owner as the devnet's own providers' keys are at start. Both map to the provider on-chain. A provider stays in the directory after it withdraws (a builder wins blocks whether or not it is
 * registered with mev-commit; its blocks are then recorded with a key that maps to nobody).
 */
export class ProviderDirectory {
  private readonly keys = new Map<string, Hex>();
  private readonly order: Address[] = [];
  private readonly queue = new SerialQueue();
  private off: (() => void) | undefined;
  private readonly log = logger("providers");
  private static readonly KEPT = "providers.directory";

  constructor(private readonly o: ProviderDirectoryOptions) {}

  /** Registered providers, in registration order. */
  list(): Address[] {
    return [...this.order];
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
      this.o.events.on("ProviderRegistered", (e) => this.add(e.args.provider as Address)),
      this.o.events.on("BLSKeyAdded", (e) => this.keyAdded(e.args.provider as Address, e.args.blsPublicKey as Hex)),
    ];
    this.off = () => {
      for (const f of offs) f();
    };
    const kept = this.o.store?.getKv(ProviderDirectory.KEPT);
    for (const provider of kept ? (JSON.parse(kept) as Address[]) : []) await this.add(provider);
    const { publicClient } = this.o.owner;
    const logs = await publicClient.getLogs({
      address: this.o.providerRegistry,
      event: parseAbiItem("event ProviderRegistered(address indexed provider, uint256 stakedAmount)"),
      fromBlock: 0n,
      toBlock: "latest",
    });
    for (const l of logs) await this.add(l.args.provider!);
  }

  stop(): void {
    this.off?.();
  }

  /** Waits until every registration up to the settlement chain's head is known. */
  async sync(): Promise<void> {
    await this.o.events.sync();
    await this.queue.run(async () => {});
  }

  private add(provider: Address): Promise<void> {
    return this.queue.run(async () => {
      if (this.has(provider)) return;
      const key = await this.ensureBuilderKey(provider).catch((e) => {
        // It still takes part; its blocks are recorded with a key that may map to nobody (no winner on-chain).
        this.log.error("cannot map a builder key to a registered provider", { provider, error: e });
        return builderKeyFor(provider);
      });
      this.keys.set(provider.toLowerCase(), key);
      this.order.push(provider);
      this.o.store?.setKv(ProviderDirectory.KEPT, JSON.stringify(this.order));
      this.log.info("provider takes part in the winner schedule", { provider, builderKey: key });
      this.o.onChange?.(this.list());
    });
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
