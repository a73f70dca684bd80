import { type Address, createWalletClient, type Hex, http, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { logger } from "../util/log.ts";

/**
 * How a provider's builder treats the bundles it committed to (control API: /sim/v1/builder):
 * - honest: each bundle in committed order, contiguous (the upstream reward rule is met);
 * - omit: commit but do not include (slash);
 * - reverse: include a bundle in reverse order (slash when it has two or more transactions);
 * - gap: put an unrelated transaction between the bundle's transactions (slash when two or more).
 * With `every` k > 1 the mode applies to every k-th bundle the builder handles for that provider (counted from the
 * moment the mode was set, bundles in block order, best bid first) and the others are built honestly.
 */
export type BuilderMode = "honest" | "omit" | "reverse" | "gap";
export const BUILDER_MODES: readonly BuilderMode[] = ["honest", "omit", "reverse", "gap"];

/**
 * Where the builder finds what a provider committed to for a block: bundles of raw transactions, best bid first. A
 * provider may have several sources (the devnet's own node's store, bundles its application posted); the builder
 * includes them source after source.
 */
export interface BundleSource {
  address: Address;
  /** A node in a process of its own answers over its admin API. */
  bundlesFor(block: bigint): string[][] | Promise<string[][]>;
}

/**
 * The winner's block builder on the devnet L1: just before a block is mined (manual mining, FIFO order) it sends
 * the raw transactions of the bundles its provider committed to for that block. Bids by hash have no raw
 * transactions: the bidder's own transactions are expected in the mempool.
 */
export class Builder {
  private readonly modes = new Map<string, { mode: BuilderMode; every: number; seen: number }>();
  private readonly log = logger("builder");
  private readonly filler;

  constructor(
    private readonly l1: PublicClient,
    l1RpcUrl: string,
    private readonly sources: () => BundleSource[],
    fillerKey: Hex,
  ) {
    this.filler = createWalletClient({ account: privateKeyToAccount(fillerKey), transport: http(l1RpcUrl) });
  }

  setMode(provider: Address, mode: BuilderMode, every = 1): void {
    this.modes.set(provider.toLowerCase(), { mode, every, seen: 0 });
  }

  modeOf(provider: Address): BuilderMode {
    return this.modes.get(provider.toLowerCase())?.mode ?? "honest";
  }

  /** 1 when the mode applies to every bundle, k for every k-th. */
  everyOf(provider: Address): number {
    return this.modes.get(provider.toLowerCase())?.every ?? 1;
  }

  readonly beforeMine = async (block: bigint, winner: Address): Promise<void> => {
    const sources = this.sources().filter((s) => s.address.toLowerCase() === winner.toLowerCase());
    if (!sources.length) return;
    const setting = this.modes.get(winner.toLowerCase()) ?? { mode: "honest" as BuilderMode, every: 1, seen: 0 };
    const bundles = (await Promise.all(sources.map((s) => s.bundlesFor(block)))).flat();
    for (const bundle of bundles) {
      setting.seen++;
      const mode = setting.seen % setting.every === 0 ? setting.mode : "honest";
      if (mode === "omit") continue;
      const txs = mode === "reverse" ? [...bundle].reverse() : bundle;
      for (const [i, raw] of txs.entries()) {
        if (mode === "gap" && i === 1) await this.sendFiller();
        await this.send(raw);
      }
    }
  };

  private async send(raw: string): Promise<void> {
    const tx = (raw.startsWith("0x") ? raw : `0x${raw}`) as Hex;
    try {
      await this.l1.request({ method: "eth_sendRawTransaction", params: [tx] });
    } catch (e) {
      // Already in the pool or mined (another bundle carried it), or invalid: the oracle judges the block.
      this.log.debug("raw transaction not added", { error: (e as Error).message.split("\n")[0] });
    }
  }

  private async sendFiller(): Promise<void> {
    await this.filler
      .sendTransaction({ to: this.filler.account.address, value: 0n, chain: null })
      .catch((e) => this.log.warn("filler transaction failed", { error: e }));
  }
}
