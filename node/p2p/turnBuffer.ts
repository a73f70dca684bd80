/**
 * Bytes handed to a connection within one turn of the event loop, held and sent as one buffer at the turn's end
 * (turnEnd.ts). Used twice on a libp2p connection: under Noise (turnEncryption.ts: one Noise message per turn) and
 * under the socket (turnWrites.ts: one socket write per turn).
 *
 * Back-pressure is kept: `add` answers "cannot send more" only while the connection beneath refused more on the last
 * flush, until its owner calls `drained`.
 */
import { concatBytes } from "../protocol/bytes.ts";
import { atTurnEnd } from "./turnEnd.ts";

export class TurnBuffer {
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  private scheduled = false;
  /** The connection beneath refused more on the last flush and has not drained since. */
  private full = false;

  /**
   * @param sendOne hands one buffer to the connection beneath and answers whether it can take more.
   * @param maxHeld bytes held before a flush within the turn (one Noise message's plaintext at most).
   */
  constructor(
    private readonly sendOne: (bytes: Uint8Array) => boolean,
    private readonly maxHeld = Number.POSITIVE_INFINITY,
  ) {}

  add(data: Iterable<Uint8Array>): { sentBytes: number; canSendMore: boolean } {
    let sentBytes = 0;
    for (const buf of data) {
      this.held.push(buf);
      sentBytes += buf.byteLength;
    }
    this.heldBytes += sentBytes;
    if (this.heldBytes >= this.maxHeld) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      atTurnEnd(this.flush);
    }
    return { sentBytes, canSendMore: !this.full };
  }

  /** Sends what is held now (at the turn's end, and before a close or a reset). */
  readonly flush = (): void => {
    this.scheduled = false;
    if (this.held.length === 0) return;
    const one = this.held.length === 1 ? this.held[0]! : concatBytes(...this.held);
    this.held = [];
    this.heldBytes = 0;
    this.full = !this.sendOne(one);
  };

  /** The connection beneath drained: it takes more again. */
  drained(): void {
    this.full = false;
  }
}
