/**
 * Is the target still there? When a scenario fails and the target no longer answers, the scenario fails with "the
 * target went down during this scenario" and the scenarios after it are reported "not run: the target is down"
 * (one line each) instead of a cascade of connection errors, unless the target file gives a `restart` command, which
 * the suite runs before going on (issue 9, item 4).
 */
import { spawn } from "node:child_process";
import { MevCommitError } from "../../lib/errors.ts";
import { call, HttpCallError } from "./clients/http.ts";
import { providerNodeName } from "./providerNames.ts";
import type { Target } from "./target.ts";

export class TargetDownError extends MevCommitError {}

/** The attachment that marks a scenario as not run (read by the CLI's summary and JSON result). */
export const NOT_RUN_PREFIX = "not run: ";
/** The attachment that says why a scenario was skipped. */
export const SKIPPED_PREFIX = "skipped: ";

let down: string | undefined;

export function targetDown(): string | undefined {
  return down;
}

export function markDown(why: string): void {
  down = why;
}

/** Which of the target's nodes answer nothing at all (refused or reset); undefined when every one answers. */
export async function probeTarget(target: Target, timeoutMs = 3_000): Promise<string | undefined> {
  const nodes = [
    ["bidder", target.bidderUrl, "bidder"],
    ...target.providerUrls.map((u, i) => [`provider ${i + 1}`, u, providerNodeName(i)]),
  ] as const;
  const dead: string[] = [];
  await Promise.all(
    nodes.map(async ([name, url, nodeName]) => {
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          await call("GET", `${url}/health`, { timeoutMs });
          return;
        } catch (e) {
          if (!(e instanceof HttpCallError) || !e.connectionFailed) return; // it answered slowly or oddly: it is there
          if (attempt === 0) await new Promise((r) => setTimeout(r, 300));
          else dead.push(`${name} (${nodeName && nodeName !== name ? `${nodeName}, ` : ""}${url}) refuses connections`);
        }
      }
    }),
  );
  return dead.length ? dead.join(", ") : undefined;
}

/** Runs the target's restart command and waits until every node answers again. */
export async function restartTarget(target: Target, log: (line: string) => void, timeoutMs = 180_000): Promise<void> {
  if (!target.restart) throw new TargetDownError("the target file gives no restart command");
  log(`the target is down (${down}); running its restart command: ${target.restart}`);
  const code = await new Promise<number>((resolve) => {
    const p = spawn("sh", ["-c", target.restart!], { stdio: ["ignore", "inherit", "inherit"] });
    p.on("exit", (c) => resolve(c ?? 1));
    p.on("error", () => resolve(127));
  });
  if (code !== 0) throw new TargetDownError(`the restart command exited with ${code}`);
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const still = await probeTarget(target, 2_000);
    if (!still) break;
    if (performance.now() > deadline)
      throw new TargetDownError(`the target is still down ${timeoutMs} ms after its restart command: ${still}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  down = undefined;
  log("the target answers again; going on");
}
