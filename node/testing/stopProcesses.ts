import type { Subprocess } from "bun";
import { MevCommitError } from "../../lib/errors.ts";
import { DeadlineError, within } from "../util/deadline.ts";

export class ProcessStopError extends MevCommitError {
  constructor(
    readonly stuck: string[],
    readonly graceMs: number,
  ) {
    super(`did not exit within ${graceMs} ms of SIGTERM (killed with SIGKILL): ${stuck.join("; ")}`, {
      context: { stuck, graceMs },
    });
  }
}

/**
 * Stops child processes the way a user's Ctrl-C would: SIGTERM, up to `graceMs` to exit, then SIGKILL (to the
 * whole process group of a `detached` child, so its own children go too). A process that needed the SIGKILL is a
 * bug of its own: the call rejects with a ProcessStopError naming it, after every process is gone.
 */
export async function stopProcesses(
  children: { proc: Subprocess; name: string; group?: boolean }[],
  graceMs = 15_000,
): Promise<void> {
  const running = children.filter((c) => c.proc.exitCode === null && c.proc.signalCode === null);
  for (const c of running) c.proc.kill("SIGTERM");
  const stuck: string[] = [];
  await Promise.all(
    running.map(async (c) => {
      try {
        await within(`${c.name} to exit`, graceMs, c.proc.exited);
      } catch (e) {
        if (!(e instanceof DeadlineError)) throw e;
        stuck.push(c.name);
        try {
          if (c.group) process.kill(-c.proc.pid, "SIGKILL");
          else c.proc.kill("SIGKILL");
        } catch {
          // gone meanwhile
        }
        await within(`${c.name} to die of SIGKILL`, 5_000, c.proc.exited);
      }
    }),
  );
  if (stuck.length) throw new ProcessStopError(stuck, graceMs);
}
