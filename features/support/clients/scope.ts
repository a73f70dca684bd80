/**
 * The life of one scenario's requests: every request the suite opens for a scenario takes a signal from its scope,
 * and the scope is ended when the scenario ends, so nothing a scenario opened (a ReceiveBids stream still waiting for
 * its headers, a SendBid stream, a Subscribe stream, a slow unary call) outlives it. A request left open would take
 * the next scenario's bids (issue 9, item 1).
 */

import { MevCommitError } from "../../../lib/errors.ts";

/** The reason a request was aborted: its scenario ended. */
export class ScenarioEndedError extends MevCommitError {
  constructor() {
    super("the scenario ended while this request was open");
  }
}

export class ScenarioScope {
  private readonly controller = new AbortController();
  private readonly open = new Set<AbortController>();

  get ended(): boolean {
    return this.controller.signal.aborted;
  }

  /**
   * A controller for one request: aborted by the caller, or with the scope. The caller calls `done()` once the
   * request is over, so a long scenario does not pile up finished controllers.
   */
  request(): { signal: AbortSignal; abort: (reason?: unknown) => void; done: () => void } {
    const own = new AbortController();
    if (this.ended) own.abort(new ScenarioEndedError());
    else this.open.add(own);
    return {
      signal: own.signal,
      abort: (reason?: unknown) => own.abort(reason),
      done: () => this.open.delete(own),
    };
  }

  /** How many requests are still open (for the teardown's report). */
  get openCount(): number {
    return this.open.size;
  }

  /** Aborts every request still open; later requests fail at once. */
  end(): void {
    if (this.ended) return;
    const reason = new ScenarioEndedError();
    this.controller.abort(reason);
    for (const c of this.open) c.abort(reason);
    this.open.clear();
  }
}

/**
 * Requests outside any scenario (the run's set-up, the health probe) use this scope; it is never ended.
 */
export const RUN_SCOPE = new ScenarioScope();
