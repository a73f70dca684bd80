/**
 * The control API's kill "after-ack" for a node that shares the devnet's process: armed, the node dies the moment
 * it next acknowledges a commitment (the bidder streaming it to its client, the provider answering the bidder). What
 * is not durable by then is lost, as when a SIGKILL lands right after the write: `freeze` ends the node's store
 * and chain access at once, and `wait()` resolves a moment later (the sockets still carry the acknowledgement), for
 * the node's `kill()` to end the rest.
 */

/** How long a node killed "after-ack" keeps its sockets, for the acknowledgement to reach the other side. */
const FLUSH_MS = 250;

export class KillAfterAck {
  private armed: (() => void) | undefined;
  private done = false;

  constructor(private readonly freeze: () => void) {}

  /** Whether the node froze at an acknowledgement (its store is closed already). */
  get frozen(): boolean {
    return this.done;
  }

  /** Arms the kill; resolves once the node froze at its next acknowledgement and the flush time passed. */
  wait(): Promise<void> {
    return new Promise((resolve) => {
      this.armed = () => setTimeout(resolve, FLUSH_MS);
    });
  }

  /** Takes an armed kill back (a deadline that passed). */
  disarm(): void {
    this.armed = undefined;
  }

  /** Called at each acknowledgement, just before it is handed out. */
  acknowledging(): void {
    const armed = this.armed;
    if (!armed || this.done) return;
    this.armed = undefined;
    this.done = true;
    this.freeze();
    armed();
  }
}
