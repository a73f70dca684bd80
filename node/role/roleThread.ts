/**
 * A `--role` bidder or provider node on a Worker of this process, meeting its peers over MessagePorts
 * (node/network/portNetwork.ts): the benchmark's nodes on threads of their own (scenarios/bench/nodeProcesses.bench.ts
 * `--nodes threads`), each with its own event loop and heap, as separate machines would be, without libp2p's CPU.
 */
export type RoleThreadCommand = { t: "start"; argv: string[]; ports: MessagePort[] } | { t: "stop" };
export type RoleThreadReport = { t: "ready"; url: string; rpcUrl?: string } | { t: "failed"; message: string } | { t: "stopped" };

export class RoleThreadError extends Error {
  override name = "RoleThreadError";
}

export interface RoleThread {
  readonly url: string;
  readonly rpcUrl?: string;
  stop(): Promise<void>;
}

/** Starts the node of `argv` (parseRoleArgs) on a new thread with `ports` to its peers; resolves once it serves. */
export function startRoleThread(name: string, argv: string[], ports: MessagePort[], timeoutMs = 60_000): Promise<RoleThread> {
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
            const force = setTimeout(() => (worker.terminate(), done()), 10_000);
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
