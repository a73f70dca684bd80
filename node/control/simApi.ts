import { Elysia, t } from "elysia";
import { isAddress, type Address } from "viem";
import { InvalidArgumentError } from "../protocol/grpcCodes.ts";
import { unaryErrorResponse } from "../api/wire/errors.ts";
import { routingError } from "../api/wire/routing.ts";
import { swagger } from "@elysiajs/swagger";

/** What the control API can do to a running devnet (implemented by the Devnet). */
export interface SimControl {
  mine(blocks: number, winner?: Address): Promise<{ number: bigint; hash: string; winner: Address }[]>;
  status(): Promise<DevnetStatus>;
}

export interface DevnetStatus {
  l1: { rpcUrl: string; chainId: number; blockNumber: string };
  settlement: { rpcUrl: string; chainId: number; blockNumber: string };
  currentWindow: string;
  lastRecordedBlock: string;
  nextWinner: string | null;
  contracts: Record<string, string>;
  nodes: { name: string; role: "bidder" | "provider"; url: string | null; address: string; running: boolean }[];
}

/**
 * The devnet's control API (`/sim/v1/…`), on its own port: tests and scenarios use it to drive L1 time and to
 * inspect the devnet. Errors follow the same `{code,message,details}` envelope as the node APIs.
 */
export function simApi(control: SimControl) {
  const app: Elysia<any, any, any, any, any, any, any> = new Elysia({ name: "sim-control" })
    .onError({ as: "global" }, ({ code, error, request }) =>
      code === "NOT_FOUND"
        ? unaryErrorResponse(routingError(new URL(request.url).pathname, app.routes.map((r) => r.path)))
        : code === "VALIDATION" || code === "PARSE"
          ? unaryErrorResponse(new InvalidArgumentError(String((error as Error).message ?? error).split("\n")[0]!))
          : unaryErrorResponse(error),
    )
    .use(swagger({ path: "/swagger", documentation: { info: { title: "devnet control API", version: "1" } } }))
    .get("/sim/v1/status", () => control.status(), { detail: { summary: "Devnet status: chains, contracts, nodes" } })
    .post(
      "/sim/v1/mine",
      async ({ body }) => {
        const blocks = body?.blocks ?? 1;
        if (!Number.isInteger(blocks) || blocks < 1 || blocks > 1000)
          throw new InvalidArgumentError("blocks must be an integer from 1 to 1000");
        const winner = body?.winner;
        if (winner !== undefined && !isAddress(winner)) throw new InvalidArgumentError(`winner is not an address: ${winner}`);
        const mined = await control.mine(blocks, winner as Address | undefined);
        return { blocks: mined.map((b) => ({ number: b.number.toString(), hash: b.hash, winner: b.winner })) };
      },
      {
        body: t.Optional(
          t.Object({
            blocks: t.Optional(t.Integer({ minimum: 1, maximum: 1000, description: "blocks to mine (default 1)" })),
            winner: t.Optional(t.String({ description: "provider address that wins the first mined block" })),
          }),
        ),
        detail: { summary: "Mine L1 blocks; the oracle has recorded them (minus its lag) when this answers" },
      },
    );
  return app;
}
