import type { StartedTarget } from "./target.ts";

let current: StartedTarget | undefined;

export function setRun(s: StartedTarget | undefined): void {
  current = s;
}

/** Whether a target is loaded or started for this process (the CLI starts it once for every cucumber pass). */
export function hasRun(): boolean {
  return current !== undefined;
}

/** The target started (or loaded) for this run. */
export function run(): StartedTarget {
  if (!current) throw new Error("the target is not started (BeforeAll hook did not run)");
  return current;
}
