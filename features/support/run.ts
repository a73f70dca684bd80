import type { StartedTarget } from "./target.ts";

let current: StartedTarget | undefined;

export function setRun(s: StartedTarget): void {
  current = s;
}

/** The target started (or loaded) for this run. */
export function run(): StartedTarget {
  if (!current) throw new Error("the target is not started (BeforeAll hook did not run)");
  return current;
}
