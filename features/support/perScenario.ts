import type { ConformanceWorld } from "./world.ts";

/** Per-scenario state that must be torn down: `teardown` answers the problems it found (none = clean). */
export interface ScenarioState {
  // biome-ignore lint/suspicious/noConfusingVoidType: a teardown that finds nothing may return nothing
  teardown(): Promise<string[] | void>;
}

/**
 * One instance of `make(world)` per scenario, created on first use and torn down with the scenario (lifecycle.ts
 * runs every teardown, last created first, and fails the scenario loudly when one reports problems).
 */
export function perScenario<T extends ScenarioState>(
  what: string,
  make: (world: ConformanceWorld) => T,
): (world: ConformanceWorld) => T {
  const states = new WeakMap<ConformanceWorld, T>();
  return (world) => {
    let s = states.get(world);
    if (!s) {
      const created = make(world);
      states.set(world, (s = created));
      world.onTeardown(`the ${what}`, async () => (await created.teardown()) ?? []);
    }
    return s;
  };
}
