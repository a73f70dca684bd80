import type { Address } from "viem";

/**
 * Who wins the next L1 block: round-robin over the providers, unless a winner was named for the next block.
 * Providers `eligible` turns down are skipped in their turn (nothing answers for them); a named winner always wins.
 * Pure state; the block driver asks it once per block.
 */
export class WinnerSchedule {
  private next = 0;
  private override: Address | undefined;
  private eligible: (provider: Address) => boolean = () => true;

  constructor(private providers: Address[]) {}

  /** Which providers may win a block in their turn (default all). */
  setEligible(eligible: (provider: Address) => boolean): void {
    this.eligible = eligible;
  }

  setProviders(providers: Address[]): void {
    this.providers = providers;
    this.next = this.providers.length ? this.next % this.providers.length : 0;
  }

  /** Names the winner of the next block only; round-robin resumes after it. */
  setNextWinner(winner: Address): void {
    this.override = winner;
  }

  peek(): Address | undefined {
    return this.override ?? this.nextEligible()?.provider;
  }

  take(): Address | undefined {
    if (this.override) {
      const w = this.override;
      this.override = undefined;
      return w;
    }
    const found = this.nextEligible();
    if (!found) return undefined;
    this.next = (found.index + 1) % this.providers.length;
    return found.provider;
  }

  /** The first eligible provider from the one whose turn it is, in round-robin order. */
  private nextEligible(): { provider: Address; index: number } | undefined {
    for (let i = 0; i < this.providers.length; i++) {
      const index = (this.next + i) % this.providers.length;
      const provider = this.providers[index]!;
      if (this.eligible(provider)) return { provider, index };
    }
    return undefined;
  }
}
