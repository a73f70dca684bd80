/** Bounded waits: a wait that can hang gets a deadline, and the error says what it was waiting for. */

import { MevCommitError } from "../../lib/errors.ts";

export class DeadlineError extends MevCommitError {
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`timed out after ${ms} ms waiting for ${what}`, { context: { what, ms } });
  }
}

/** Settles as `work` does, or rejects with a DeadlineError naming `what` once `ms` have passed. */
export async function within<T>(what: string, ms: number, work: PromiseLike<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(what, ms)), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `ok` every `everyMs` until it holds; a DeadlineError naming `what` after `ms`. */
export async function until(
  what: string,
  ms: number,
  ok: () => boolean | Promise<boolean>,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new DeadlineError(what, ms);
    await Bun.sleep(everyMs);
  }
}

/**
 * One step of a shutdown: it may fail or overrun its deadline, and the shutdown goes on with the next step (a stop
 * never hangs on one part); `report` is told which step and why.
 */
export async function shutdownStep(
  what: string,
  ms: number,
  work: () => unknown,
  report: (message: string) => void,
): Promise<void> {
  try {
    await within(what, ms, Promise.resolve().then(work));
  } catch (e) {
    report(
      e instanceof DeadlineError
        ? `stop: ${what} did not finish within ${ms} ms; going on`
        : `stop: ${what} failed: ${(e as Error).message}`,
    );
  }
}
