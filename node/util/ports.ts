import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { MevCommitError } from "../../lib/errors.ts";

/**
 * Ports for something that will listen on them a little later (an Anvil child, a devnet process, its restart).
 *
 * They are picked below the OS's ephemeral range, never from it: the OS hands ephemeral ports to every outgoing
 * connection on the machine, so a port that was free when picked there could be the local end of some connection
 * (often the starting process's own, to its chains and peers) by the time its server binds it. Seen: a devnet
 * that could not listen on its control port ("Is port … in use?") after its nodes had dialled each other.
 */
const PICK_FLOOR = 15_000;

export class NoFreePortError extends MevCommitError {
  constructor(
    readonly wanted: number,
    readonly found: number,
    readonly range: [number, number],
  ) {
    super(`found ${found} of ${wanted} free TCP ports in ${range[0]}–${range[1]}`, {
      context: { wanted, found, range },
    });
  }
}

/** The first port of the OS's ephemeral range (Linux reads it from /proc; elsewhere the IANA range's start). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 1024) return low;
  } catch {
    // not Linux
  }
  return 49_152;
}

/** Ports this process handed out already: the first caller may not have bound its port yet. */
const handedOut = new Set<number>();

function listen(port: number, host: string): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", () => resolve(undefined));
    srv.listen({ port, host, exclusive: true }, () => resolve(srv));
  });
}

/** `n` distinct TCP ports, free right now on `host` and outside the ephemeral range (held open while picking). */
export async function freePorts(
  n: number,
  host = "127.0.0.1",
  avoid: ReadonlySet<number> = new Set(),
): Promise<number[]> {
  const top = ephemeralLow() - 1;
  const span = top - PICK_FLOOR + 1;
  const held: Server[] = [];
  try {
    for (let tries = 0; held.length < n; tries++) {
      if (span < 1 || tries > 2_000) throw new NoFreePortError(n, held.length, [PICK_FLOOR, top]);
      const port = PICK_FLOOR + Math.floor(Math.random() * span);
      if (handedOut.has(port) || avoid.has(port)) continue;
      const srv = await listen(port, host);
      if (!srv) continue;
      held.push(srv);
      handedOut.add(port);
    }
    return held.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  }
}

/** Whether `port` can be listened on right now on `host`. */
export async function portFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  const srv = await listen(port, host);
  if (!srv) return false;
  await new Promise((r) => srv.close(r));
  return true;
}

/** A TCP port that is free right now on the host, outside the ephemeral range. */
export async function freePort(host = "127.0.0.1", avoid?: ReadonlySet<number>): Promise<number> {
  const [port] = await freePorts(1, host, avoid);
  return port!;
}
