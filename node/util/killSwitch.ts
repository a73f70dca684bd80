/**
 * The "process" of a node that shares its process with others (the devnet's nodes): `kill()` ends it the way a
 * SIGKILL ends a process of its own, as far as anyone outside can tell. From that moment every chain request the
 * node makes, or is still waiting on, never answers (a dead process never sends, and never sees a reply), so no
 * code of the killed node that is still suspended somewhere (a store transaction awaiting its receipt, an open, a
 * poll) can reach the chain or resume. The node's kill() drops its sockets and closes its store handle; see
 * docs/crash-safety.md for what is and is not simulated.
 */
import type { Transport } from "viem";

export class KillSwitch {
  private dead = false;

  get killed(): boolean {
    return this.dead;
  }

  kill(): void {
    this.dead = true;
  }
}

/** A promise that never settles: what a call of a killed node waits on forever. */
function never<T>(): Promise<T> {
  return new Promise<T>(() => {});
}

/** `work`'s outcome, unless `life` was killed before it settled: then never (what a dead process sees). */
export async function whileAlive<T>(life: KillSwitch | undefined, work: Promise<T>): Promise<T> {
  if (!life) return work;
  try {
    const value = await work;
    return life.killed ? never() : value;
  } catch (e) {
    if (life.killed) return never();
    throw e;
  }
}

/** `inner`, except that once `life` is killed its requests never answer, and answers still in flight are dropped. */
export function killableTransport<T extends Transport>(inner: T, life: KillSwitch): T {
  return ((opts: Parameters<T>[0]) => {
    const t = inner(opts);
    const request = (async (args: unknown, options: unknown) => {
      if (life.killed) return never();
      try {
        const answer = await (t.request as (a: unknown, o: unknown) => Promise<unknown>)(args, options);
        return life.killed ? never() : answer;
      } catch (e) {
        if (life.killed) return never();
        throw e;
      }
    }) as typeof t.request;
    return { ...t, request };
  }) as T;
}
