/** A --port-base for a devnet started by a test or a tool: one whose every derived port is free now. */
import { configuredPorts, DEFAULTS, portsFromBase } from "../devnet/config.ts";
import { portFree } from "../util/ports.ts";

/** A base all of whose derived ports are free now, below the ephemeral range (the devnet's own dials use that). */
export async function freePortBase(providers: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 16_000 + 10 * Math.floor(Math.random() * 1_500);
    const ports = configuredPorts({ ...DEFAULTS, providers, ...portsFromBase(base, providers) });
    if ((await Promise.all([...ports].map((p) => portFree(p)))).every(Boolean)) return base;
  }
  throw new Error("no base with every derived port free");
}
