import type { Address } from "viem";
import { logger } from "../util/log.ts";

/** Blocks a provider the devnet does not run may stay silent before it leaves the winner schedule (default). */
export const DEFAULT_PROVIDER_LIVENESS_BLOCKS = 32;
/**
 * Least time a provider is silent before it leaves, however fast blocks come: a node that polls the L1 head (every
 * 100 ms for a `--role` node) must not drop out while a test mines a burst of blocks back to back.
 */
export const MIN_SILENCE_MS = 5_000;

export interface ProviderLivenessOptions {
  /**
   * L1 blocks a provider the devnet does not run may go without being heard from (a bundle or a heartbeat posted to
   * the control API) before it leaves the winner schedule; 0 keeps every staked provider in the schedule.
   */
  blocks: number;
  /** The devnet node that runs the provider, if any (`provider-0`, …): such a provider is always in the schedule. */
  nodeOf(provider: Address): string | undefined;
  /** Least silence in ms besides the blocks (default MIN_SILENCE_MS). */
  minSilenceMs?: number;
  /** The clock (tests). */
  now?: () => number;
}

/** Why a provider is in the winner schedule or out of it (`/sim/v1/status`). */
export interface Liveness {
  live: boolean;
  reason: string;
  /** The L1 head when the provider was last heard from, or first seen (null: not seen yet). */
  lastHeardBlock: bigint | null;
}

/**
 * Which registered providers have something answering for them. The devnet builds a block from the bundles of its
 * own provider nodes and from those posted to its control API; a provider with neither (its node is gone, or a foreign
 * node that posts nothing) would win blocks nobody builds. So a provider the devnet does not run stays in the winner
 * schedule while it was heard from (`POST /sim/v1/bundles` or `POST /sim/v1/heartbeat`) within the last `blocks` L1
 * blocks or MIN_SILENCE_MS, counting from when the devnet first saw it registered; it leaves when both run out and
 * comes back when it is heard from again, with a log line each way. The devnet's own provider nodes are always in.
 */
export class ProviderLiveness {
  private readonly lastHeard = new Map<string, { block: bigint; at: number }>();
  private readonly silent = new Set<string>();
  private readonly log = logger("providers");

  constructor(private readonly o: ProviderLivenessOptions) {}

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  /** The provider posted a bundle or a heartbeat while the L1 head was `head`. */
  heard(provider: Address, head: bigint): void {
    const key = provider.toLowerCase();
    const last = this.lastHeard.get(key);
    this.lastHeard.set(key, { block: last && last.block > head ? last.block : head, at: this.now() });
    if (this.silent.delete(key))
      this.log.info("provider heard from again: back in the winner schedule", { provider, block: head });
  }

  /** After each L1 block: providers first seen start counting from it, and those silent too long leave. */
  onBlock(head: bigint, providers: Address[]): void {
    for (const provider of providers) {
      const key = provider.toLowerCase();
      const last = this.lastHeard.get(key);
      if (last === undefined) {
        this.lastHeard.set(key, { block: head, at: this.now() });
        continue;
      }
      if (this.o.blocks <= 0 || this.o.nodeOf(provider) || this.silent.has(key)) continue;
      const quietMs = this.now() - last.at;
      if (head - last.block >= BigInt(this.o.blocks) && quietMs >= (this.o.minSilenceMs ?? MIN_SILENCE_MS)) {
        this.silent.add(key);
        this.log.info("provider silent: out of the winner schedule until it posts a bundle or a heartbeat", {
          provider,
          lastHeardBlock: last.block,
          blocks: this.o.blocks,
          quietMs,
        });
      }
    }
  }

  /** Whether the provider may win blocks (it may still be out for having unstaked: ProviderDirectory). */
  isLive(provider: Address): boolean {
    return this.o.blocks <= 0 || !!this.o.nodeOf(provider) || !this.silent.has(provider.toLowerCase());
  }

  describe(provider: Address): Liveness {
    const key = provider.toLowerCase();
    const lastHeardBlock = this.lastHeard.get(key)?.block ?? null;
    const node = this.o.nodeOf(provider);
    if (node) return { live: true, reason: `the devnet's node ${node}`, lastHeardBlock };
    if (this.o.blocks <= 0)
      return { live: true, reason: "liveness check off (--provider-liveness-blocks 0)", lastHeardBlock };
    if (this.silent.has(key))
      return {
        live: false,
        reason: `silent: no bundle or heartbeat since L1 block ${lastHeardBlock} (${this.o.blocks} blocks or more)`,
        lastHeardBlock,
      };
    return {
      live: true,
      reason:
        lastHeardBlock === null
          ? "registered: not seen by the block driver yet"
          : `last heard from (bundle or heartbeat) or first seen registered at L1 block ${lastHeardBlock}`,
      lastHeardBlock,
    };
  }
}
