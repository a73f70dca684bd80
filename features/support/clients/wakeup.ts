/** Waiters woken all at once by an event (a stream's new line, its end, its headers); each wait also ends after its time. */
export class Wakeup {
  private waiters: (() => void)[] = [];

  wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves at the next wake() or after `ms`, whichever comes first. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, Math.max(0, ms));
      this.waiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}
