import { MevCommitError } from "../../lib/errors.ts";

/**
 * A `--role` bidder or provider node on a Worker of this process, meeting its peers over MessagePorts
 * (node/network/portNetwork.ts): the benchmark's nodes on threads of their own (scenarios/bench/nodeProcesses.bench.ts
 * `--nodes threads`), each with its own event loop and heap, as separate machines would be, without libp2p's CPU.
 */
export type RoleThreadCommand = { t: "start"; argv: string[]; ports: MessagePort[] } | { t: "stop" };
export type RoleThreadReport =
  | { t: "ready"; url: string; rpcUrl?: string }
  | { t: "failed"; message: string }
  | { t: "stopped" };

export class RoleThreadError extends MevCommitError {}

export interface RoleThread {
  readonly url: string;
  readonly rpcUrl?: string;
  stop(): Promise<void>;
}

/** Starts the node of `argv` (parseRoleArgs) on a new thread with `ports` to its peers; resolves once it serves. */
export function startRoleThread(
  name: string,
  argv: string[],
  ports: MessagePort[],
  timeoutMs = 60_000,
): Promise<RoleThread> {
  const worker = new Worker(new URL("./roleThreadWorker.ts", import.meta.url).href);
  let stopped: (() => void) | undefined;
  return new Promise<RoleThread>((resolve, reject) => {
    const timer = setTimeout(() => {
      worker.terminate();
      reject(new RoleThreadError(`${name} did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    worker.onerror = (e) => {
      clearTimeout(timer);
      reject(new RoleThreadError(`${name}: ${e.message}`));
    };
    worker.onmessage = (e: MessageEvent<RoleThreadReport>) => {
      const r = e.data;
      if (r.t === "stopped") return stopped?.();
      clearTimeout(timer);
      if (r.t === "failed") {
        worker.terminate();
        return reject(new RoleThreadError(`${name} failed to start: ${r.message}`));
      }
      resolve({
        url: r.url,
        rpcUrl: r.rpcUrl,
        stop: () =>
          new Promise<void>((done) => {
            const force = setTimeout(() => {
              worker.terminate();
              done();
            }, 10_000);
            stopped = () => {
              clearTimeout(force);
              worker.terminate();
              done();
            };
            worker.postMessage({ t: "stop" } satisfies RoleThreadCommand);
          }),
      });
    };
    worker.postMessage({ t: "start", argv, ports } satisfies RoleThreadCommand, { transfer: ports });
  });
}

/** A bidder and its providers on threads of their own (startNodeThreads); stop the bidder first. */
export interface NodeThreads {
  readonly bidder: RoleThread;
  readonly providers: readonly RoleThread[];
}

/**
 * Provider nodes (`providers`: each one's `--role provider` arguments) and a bidder (`bidder`) on threads of their
 * own, the bidder holding a port to each provider (providers never talk to each other). Providers start first, so the
 * bidder meets them all as it starts. If one fails to start, those already started are stopped before the error.
 */
export async function startNodeThreads(providers: string[][], bidder: string[]): Promise<NodeThreads> {
  const channels = providers.map(() => new MessageChannel());
  const started: RoleThread[] = [];
  try {
    for (const [i, argv] of providers.entries())
      started.push(await startRoleThread(`provider-${i}`, argv, [channels[i]!.port2]));
    const b = await startRoleThread(
      "bidder",
      bidder,
      channels.map((c) => c.port1),
    );
    return { bidder: b, providers: started };
  } catch (e) {
    for (const t of started) await t.stop();
    throw e;
  }
}
