/**
 * Work held until the end of the event loop's turn, run in one pass: what a callback schedules while the pass runs
 * joins the same pass. Noise's messages gathered per turn (turnEncryption.ts) are handed to the TCP connection
 * at the turn's end, whose own gathering (turnWrites.ts) then writes them in the same pass rather than a turn later.
 */
let queue: (() => void)[] = [];
let scheduled = false;

export function atTurnEnd(fn: () => void): void {
  queue.push(fn);
  if (!scheduled) {
    scheduled = true;
    setImmediate(runPass);
  }
}

function runPass(): void {
  try {
    for (let i = 0; i < queue.length; i++) {
      try {
        queue[i]!();
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  } finally {
    queue = [];
    scheduled = false;
  }
}
