/** The progress bar: blocks done / total, bids, commitments, settled, slashed. One line redrawn on a terminal. */
export interface ProgressCounts {
  phase: string;
  done: number;
  total: number;
  bids: number;
  commitments: number;
  settled: number;
  slashed: number;
}

export function progressLine(c: ProgressCounts, width = 24): string {
  const filled = c.total ? Math.round((c.done / c.total) * width) : 0;
  const bar = "█".repeat(filled) + "░".repeat(width - filled);
  return `${c.phase.padEnd(8)} ${bar} ${String(c.done).padStart(String(c.total).length)}/${c.total} blocks · bids ${c.bids} · commitments ${c.commitments} · settled ${c.settled} · slashed ${c.slashed}`;
}

export class Progress {
  private lastPrinted = -1;
  private lastPhase = "";
  private drawn = false;

  constructor(
    private readonly out: NodeJS.WriteStream = process.stderr,
    private readonly enabled = true,
  ) {}

  update(c: ProgressCounts): void {
    if (!this.enabled) return;
    const line = progressLine(c);
    if (this.out.isTTY) {
      this.out.write(`\r\x1b[2K${line}`);
      this.drawn = true;
      return;
    }
    // Not a terminal (CI logs): a line at every tenth of the run.
    const tenth = c.total ? Math.floor((c.done / c.total) * 10) : 0;
    if (tenth !== this.lastPrinted || c.phase !== this.lastPhase) {
      this.lastPrinted = tenth;
      this.lastPhase = c.phase;
      this.out.write(`${line}\n`);
    }
  }

  /** Ends the redrawn line so that the next output starts on its own line. */
  done(): void {
    if (this.drawn) this.out.write("\n");
    this.drawn = false;
  }

  /** Prints a message above the bar. */
  note(message: string): void {
    if (!this.enabled) return;
    if (this.drawn) this.out.write("\r\x1b[2K");
    this.out.write(`${message}\n`);
  }
}
