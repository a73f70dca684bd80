import type { AnyElysia } from "elysia";
import { MevCommitError } from "../../lib/errors.ts";

/** An app listening on a host and port; `port: 0` picks a free one. */
export interface Served {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Closes the listener and every open connection at once (a crash: open streams end with no final line). */
  kill(): void;
}

export class ListenError extends MevCommitError {}

export function serve(app: AnyElysia, host: string, port: number, what: string): Served {
  try {
    app.listen({ hostname: host, port, idleTimeout: 0 });
  } catch (e) {
    throw new ListenError(`${what} cannot listen on ${host}:${port}: ${(e as Error).message}`, { cause: e });
  }
  const actual = app.server!.port!;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${actual}`,
    port: actual,
    async stop() {
      await app.stop(true);
    },
    kill() {
      void app.server?.stop(true);
    },
  };
}
