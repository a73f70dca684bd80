/**
 * Work begun ahead of the moment it is needed, in a gap of the event loop: it starts once `start` resolves, unless it
 * was taken or dropped first. `take()` gives its result, or undefined when it never started (the caller then does
 * the work itself, on time) or failed (the caller does it again and meets the error where it always did). So the
 * result is never later than without it, and work nobody takes before it starts is never done.
 *
 * One runs at a time in a thread: a second one due while the first runs is not started (with two providers on one
 * event loop, the second's would delay the first's decision; docs/performance.md "Tried and rejected"). The provider
 * node uses it for its NIKE shared key (~0.26 ms) while its application decides.
 */
export class Ahead<T> {
  /** Ahead work running in this thread: one at a time, so that one never waits behind another in a gap. */
  private static busy = false;
  private running: Promise<T | undefined> | undefined;
  private settled = false;

  constructor(start: Promise<void>, compute: () => Promise<T>) {
    start.then(
      () => {
        if (this.settled || Ahead.busy) return;
        Ahead.busy = true;
        this.running = compute()
          .catch(() => undefined)
          .finally(() => (Ahead.busy = false));
      },
      () => {},
    );
  }

  /** Its result, if it started; undefined otherwise (and it never will). */
  take(): Promise<T | undefined> {
    this.settled = true;
    return this.running ?? Promise.resolve(undefined);
  }

  /** Not needed after all: it will not start if it has not yet. */
  drop(): void {
    this.settled = true;
  }
}
