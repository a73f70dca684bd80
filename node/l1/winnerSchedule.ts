import type { Address } from "viem";

/**
 * Who wins the next L1 block: round-robin over the providers, unless a winner was named for the next block.
 * Pure state; the block driver asks it once per block.
 */
export class WinnerSchedule {
  private next = 0;
  private override: Address | undefined;

  constructor(private providers: Address[]) {}

  setProviders(providers: Address[]): void {
    this.providers = providers;
    this.next = this.providers.length ? this.next % this.providers.length : 0;
  }

  /** Names the winner of the next block only; round-robin resumes after it. */
  setNextWinner(winner: Address): void {
    this.override = winner;
  }

  peek(): Address | undefined {
    return this.override ?? this.providers[this.next % Math.max(this.providers.length, 1)];
  }

  take(): Address | undefined {
    if (this.override) {
      const w = this.override;
      this.override = undefined;
      return w;
    }
    if (!this.providers.length) return undefined;
    const w = this.providers[this.next % this.providers.length];
    this.next = (this.next + 1) % this.providers.length;
    return w;
  }
}
