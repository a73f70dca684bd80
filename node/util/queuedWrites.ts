/**
 * Lets a streamed response's bytes go out before the next piece of heavy work.
 *
 * Bun writes the bytes enqueued on a streamed response only when its event loop reaches its I/O phase: after the
 * current callback, its microtasks, every `setImmediate` and every other I/O callback of the same turn. So with two
 * providers' decisions arriving in one turn, the first commitment's line waited for the whole of the second
 * provider's path (sign, record, the bidder's check: ~1.5 ms) before it left (docs/performance.md). Stream writers
 * call `noteQueuedWrite`; the bid-path crypto awaits `queuedWritesSent()` first, which resolves once the loop has
 * written them out: after two `Bun.sleep(0)` (~0.15 ms each on an idle loop; from an I/O callback the first one
 * still runs before the write), where `setTimeout(0)` is clamped to 1 ms (measured on Bun 1.4.5).
 */
let sent: Promise<void> | undefined;

/** Bytes were enqueued on a streamed response in this turn of the event loop. */
export function noteQueuedWrite(): void {
  sent ??= afterThisTurnsWrites().then(() => {
    sent = undefined;
  });
}

/** Resolves once the writes noted so far are out (at once when there are none). */
export function queuedWritesSent(): Promise<void> | undefined {
  return sent;
}

/**
 * Resolves once the lines queued in this turn of the event loop are out (two `Bun.sleep(0)`, as above): work started
 * then fills a wait of the loop (an application deciding) without holding back a line of this turn.
 */
export async function afterThisTurnsWrites(): Promise<void> {
  await Bun.sleep(0);
  await Bun.sleep(0);
}
