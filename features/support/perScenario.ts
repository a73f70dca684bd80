import { After } from "@cucumber/cucumber";
import type { ConformanceWorld } from "./world.ts";

/** Per-scenario state that must be torn down: `teardown` answers the problems it found (none = clean). */
export interface ScenarioState {
  teardown(): Promise<string[] | void>;
}

export class TeardownError extends Error {
  override name = "TeardownError";
}

/**
 * One instance of `make(world)` per scenario, created on first use, torn down by an After hook that fails the
 * scenario (loudly) when the teardown reports problems.
 */
export function perScenario<T extends ScenarioState>(what: string, make: (world: ConformanceWorld) => T): (world: ConformanceWorld) => T {
  const states = new WeakMap<ConformanceWorld, T>();
  After(async function (this: ConformanceWorld) {
    const s = states.get(this);
    if (!s) return;
    states.delete(this);
    const problems = (await s.teardown()) ?? [];
    if (problems.length) throw new TeardownError(`tearing down the ${what} of the scenario:\n${problems.join("\n")}`);
  });
  return (world) => {
    let s = states.get(world);
    if (!s) states.set(world, (s = make(world)));
    return s;
  };
}
