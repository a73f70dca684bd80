import { swagger } from "@elysiajs/swagger";
import { type AnyElysia, Elysia, t } from "elysia";
import { type Address, isAddress } from "viem";
import { unaryErrorResponse } from "../api/wire/errors.ts";
import { routingError } from "../api/wire/routing.ts";
import { type KillPoint, parseFault, parseKillPoint, parseReplayFrom } from "../devnet/nodeOps.ts";
import { BUILDER_MODES, type BuilderMode } from "../l1/builder.ts";
import { MAX_BUNDLE_TXS, type PostedBundle } from "../l1/bundleBook.ts";
import { InvalidArgumentError } from "../protocol/grpcCodes.ts";
import type { ProtocolVersion } from "../protocol/protocolVersion.ts";
import { type L1Miner, MAX_MINE_BLOCKS, MINE_TIMEOUT_MS, mineWithin, parseMineRequest } from "./mineBlocks.ts";
import type { NetworkFaultsStatus } from "./networkFaultsApi.ts";

/** What the control API can do to a running devnet (implemented by the Devnet). */
export interface SimControl extends L1Miner {
  status(): Promise<DevnetStatus>;
  /** `every` k > 1: the mode applies to every k-th bundle of that provider, the others are built honestly. */
  setBuilderMode(provider: Address, mode: BuilderMode, every?: number): Promise<void>;
  postBundle(bundle: PostedBundle): Promise<void>;
  /** A provider's node says it is there: it stays in the winner schedule without a bundle to post. */
  heartbeat(provider: Address): Promise<ProviderScheduleEntry>;
  injectFault(node: string, fault: "store" | "open" | "none"): void | Promise<void>;
  stopProvider(index: number): Promise<void>;
  startProvider(index: number): Promise<void>;
  /**
   * Kills a node as SIGKILL would and starts a new one on its store (capability `sim-kill`); `after-ack`: the
   * node dies right after it next acknowledges a commitment (bidder: streams it to a client; provider: answers it). `replayFrom`: the new node handles the
   * settlement chain's events again from that block on.
   */
  killNode(name: string, at?: KillPoint, replayFrom?: bigint): Promise<KilledNode>;
  /** Mines an L1 block every `seconds` from now on (0: only when asked). */
  setL1BlockTime(seconds: number): { blockTime: number };
  /** Detaches or attaches again the built-in accept-all provider applications. */
  setResponders(attached: boolean): Promise<BuiltInApplications>;
}

export interface BuiltInApplications {
  attached: boolean;
  /** How many are attached now: one per running provider node while attached. */
  count: number;
  /** Whether POST /sim/v1/responders can detach them (not for node processes, which attach their own). */
  detachable: boolean;
}

export interface KilledNode {
  name: string;
  /** The node's HTTP API, the same as before the kill. */
  url: string;
  /** How long the kill took, and then the restart until the node served again and the mesh settled. */
  downMs: number;
  restartMs: number;
}

/** Whether a registered provider takes part in the winner schedule, and why. */
export interface ProviderScheduleEntry {
  /** false once it asked to unstake, or while nothing answers for it: it wins no blocks in its turn. */
  inSchedule: boolean;
  /** Why it is in or out: the devnet's node that runs it, when it was last heard from, unstaked, silent. */
  schedule: string;
  /** The L1 head when it last posted a bundle or a heartbeat (or was first seen registered). */
  lastHeardBlock: string | null;
}

export interface DevnetStatus {
  /** The protocol version of the devnet's contracts and nodes. */
  protocol: ProtocolVersion;
  /** `blockTime`: seconds between the L1 blocks mined on their own (0: only through /sim/v1/mine). */
  l1: { rpcUrl: string; chainId: number; blockNumber: string; blockTime: number };
  settlement: { rpcUrl: string; chainId: number; blockNumber: string };
  /** BlockTracker's current 10-block window (v1.1); null in v1.2, which has no windows. */
  currentWindow: string | null;
  /** v1.2: BidderRegistry's bidder withdrawal period (chain ms); null in v1.1. */
  bidderWithdrawalPeriodMs: string | null;
  /** v1.2: whether the oracle slashes a bundle that misses a position constraint (--bid-options-slash-enabled); null in v1.1. */
  bidOptionsSlash: boolean | null;
  lastRecordedBlock: string;
  nextWinner: string | null;
  settledCommitments: number;
  contracts: Record<string, string>;
  /** The validator opt-in registry on the L1 chain. */
  validatorOptInRouter: string | null;
  /**
   * Every provider registered in ProviderRegistry (by anyone), in registration order: its builder key, whether it is in
   * the winner schedule and why, its builder's behaviour and the devnet node that serves it (null for another
   * implementation's node).
   */
  registeredProviders: ({
    address: string;
    builderKey: string;
    builder: BuilderMode;
    node: string | null;
  } & ProviderScheduleEntry)[];
  /** Bundles posted for future blocks and not mined yet. */
  postedBundles: number;
  /** The devnet's built-in accept-all provider applications (`--auto-accept`, `POST /sim/v1/responders`). */
  builtInApplications: BuiltInApplications;
  /** The network faults in place and the kinds this devnet can set (`/sim/v1/network/faults`; none without netns). */
  networkFaults?: NetworkFaultsStatus;
  /** Each node; `rpcUrl` is its gRPC server (null while it is stopped). */
  nodes: {
    name: string;
    role: "bidder" | "provider";
    url: string | null;
    rpcUrl?: string | null;
    address: string;
    running: boolean;
    builder?: BuilderMode;
    builderEvery?: number;
    subscribers: number;
    receivers?: number;
  }[];
}

function uintField(name: string, v: string | number): bigint {
  const text = String(v);
  if (!/^[0-9]{1,78}$/.test(text))
    throw new InvalidArgumentError(`${name} must be a non-negative integer, got ${JSON.stringify(v)}`);
  return BigInt(text);
}

/**
 * The devnet's control API (`/sim/v1/…`), on its own port: tests and scenarios use it to drive L1 time and to
 * inspect the devnet. Errors follow the same `{code,message,details}` envelope as the node APIs.
 */
export function simApi(control: SimControl) {
  const app: AnyElysia = new Elysia({ name: "sim-control" })
    .onError({ as: "global" }, ({ code, error, request }) =>
      code === "NOT_FOUND"
        ? unaryErrorResponse(
            routingError(
              new URL(request.url).pathname,
              app.routes.map((r) => r.path),
            ),
          )
        : code === "VALIDATION" || code === "PARSE"
          ? unaryErrorResponse(new InvalidArgumentError(String((error as Error).message ?? error).split("\n")[0]!))
          : unaryErrorResponse(error),
    )
    .use(swagger({ path: "/swagger", documentation: { info: { title: "devnet control API", version: "1" } } }))
    .get("/sim/v1/status", () => control.status(), { detail: { summary: "Devnet status: chains, contracts, nodes" } })
    .post(
      "/sim/v1/mine",
      async ({ request }) => {
        const mined = await mineWithin(control, await parseMineRequest(request), request.signal);
        return { blocks: mined.map((b) => ({ number: b.number.toString(), hash: b.hash, winner: b.winner })) };
      },
      {
        parse: "none",
        // For the OpenAPI document only: parseMineRequest reads and checks the body.
        body: t.Optional(
          t.Object({
            blocks: t.Optional(
              t.Integer({ minimum: 1, maximum: MAX_MINE_BLOCKS, description: "blocks to mine (default 1)" }),
            ),
            winner: t.Optional(t.String({ description: "provider address that wins the first mined block" })),
            timeoutMs: t.Optional(
              t.Integer({
                minimum: 1,
                description: `how long to mine before answering 504 DEADLINE_EXCEEDED with the count mined; no more blocks are mined then (default ${MINE_TIMEOUT_MS})`,
              }),
            ),
          }),
        ),
        detail: { summary: "Mine L1 blocks; the oracle has recorded them (minus its lag) when this answers" },
      },
    )
    .post(
      "/sim/v1/builder",
      async ({ body }) => {
        if (!isAddress(body.provider)) throw new InvalidArgumentError(`provider is not an address: ${body.provider}`);
        if (!BUILDER_MODES.includes(body.mode as BuilderMode))
          throw new InvalidArgumentError(`mode must be one of ${BUILDER_MODES.join(", ")}, got ${body.mode}`);
        const every = body.every ?? 1;
        if (!Number.isInteger(every) || every < 1)
          throw new InvalidArgumentError(`every must be a positive integer, got ${body.every}`);
        await control.setBuilderMode(body.provider as Address, body.mode as BuilderMode, every);
        return { provider: body.provider, mode: body.mode, every };
      },
      {
        body: t.Object({
          provider: t.String({ description: "provider address" }),
          mode: t.String({
            description:
              "honest | omit (commit but do not include) | reverse (bundle out of order) | gap (bundle not contiguous)",
          }),
          every: t.Optional(
            t.Integer({
              minimum: 1,
              description: "apply the mode to every k-th bundle only, counted from now (default 1: every bundle)",
            }),
          ),
        }),
        detail: { summary: "How a provider's block builder includes the bundles it committed to" },
      },
    )
    .post(
      "/sim/v1/bundles",
      async ({ body }) => {
        if (!isAddress(body.provider)) throw new InvalidArgumentError(`provider is not an address: ${body.provider}`);
        const blockNumber = uintField("blockNumber", body.blockNumber);
        const bidAmount = body.bidAmount === undefined ? undefined : uintField("bidAmount", body.bidAmount);
        await control.postBundle({
          provider: body.provider as Address,
          blockNumber,
          bidAmount,
          rawTransactions: body.rawTransactions,
        });
        return {
          provider: body.provider,
          blockNumber: blockNumber.toString(),
          transactions: body.rawTransactions.length,
        };
      },
      {
        body: t.Object({
          provider: t.String({
            description: "address of the provider (registered in ProviderRegistry) that committed to the bundle",
          }),
          blockNumber: t.Union([t.String(), t.Integer()], { description: "the future L1 block the bid targets" }),
          rawTransactions: t.Array(t.String(), {
            maxItems: MAX_BUNDLE_TXS,
            description: "the bid's signed raw transactions (hex), in order",
          }),
          bidAmount: t.Optional(
            t.Union([t.String(), t.Integer()], { description: "orders a block's bundles, highest first (wei)" }),
          ),
        }),
        detail: {
          summary:
            "A provider application posts a bundle it committed to: if that provider wins the block, the devnet's builder includes it",
          description:
            "Stand-in for a provider's own block building, for provider nodes the devnet does not run (their commitments are not in its store). " +
            "Bundles are included in the builder mode set for the provider and dropped once their block is mined.",
        },
      },
    )
    .post(
      "/sim/v1/heartbeat",
      async ({ body }) => {
        if (!isAddress(body.provider)) throw new InvalidArgumentError(`provider is not an address: ${body.provider}`);
        return { provider: body.provider, ...(await control.heartbeat(body.provider as Address)) };
      },
      {
        body: t.Object({
          provider: t.String({ description: "address of a provider registered in ProviderRegistry" }),
        }),
        detail: {
          summary: "A provider node the devnet does not run says it is there: it stays in the winner schedule",
          description:
            "A provider the devnet does not run leaves the winner schedule after --provider-liveness-blocks L1 blocks " +
            "without a bundle or a heartbeat, and comes back with the next one. Answers whether it is in the schedule and why.",
        },
      },
    )
    .post(
      "/sim/v1/providers/:index/:action",
      async ({ params }) => {
        const index = Number(params.index);
        if (!Number.isInteger(index) || index < 0)
          throw new InvalidArgumentError(`provider index must be a non-negative integer, got ${params.index}`);
        if (params.action === "stop") await control.stopProvider(index);
        else if (params.action === "start") await control.startProvider(index);
        else throw new InvalidArgumentError(`action must be start or stop, got ${params.action}`);
        return { index, action: params.action };
      },
      { detail: { summary: "Stop or start a provider node (it leaves or joins the network)" } },
    )
    .post("/sim/v1/l1", ({ body }) => control.setL1BlockTime(body.blockTime), {
      body: t.Object({
        blockTime: t.Integer({
          minimum: 0,
          maximum: 3600,
          description: "seconds between L1 blocks mined on their own; 0: only through POST /sim/v1/mine",
        }),
      }),
      detail: {
        summary: "Pause or pace the L1's own blocks (--l1-block-time), e.g. while a conformance run mines them itself",
      },
    })
    .post("/sim/v1/responders", ({ body }) => control.setResponders(body.attached), {
      body: t.Object({
        attached: t.Boolean({ description: "false: detach the built-in applications; true: attach them again" }),
      }),
      detail: {
        summary: "Detach or attach again the devnet's built-in accept-all provider applications (--auto-accept)",
        description:
          "Another provider application (a conformance run's) is then the only one reading the provider nodes' bids. " +
          "A provider node started later gets one only while they are attached.",
      },
    })
    .post(
      "/sim/v1/nodes/:name/kill",
      ({ params, body }) => control.killNode(params.name, parseKillPoint(body?.at), parseReplayFrom(body?.replayFrom)),
      {
        body: t.Optional(
          t.Object({
            replayFrom: t.Optional(
              t.Union([t.String(), t.Integer()], {
                description:
                  "a settlement block: the restarted node handles the chain's events again from there (its event cursor is set back)",
              }),
            ),
            at: t.Optional(
              t.String({
                description:
                  "now (default) | after-ack: the bidder dies right after it next streams a commitment to a client (what was not durable by then is lost); answers once it was killed there and serves again, or DeadlineExceeded after 60 s without a commitment",
              }),
            ),
          }),
        ),
        detail: {
          summary:
            "Kill a node (as SIGKILL would: no goodbye, nothing flushed) and start it again on its store, keys and ports",
          description:
            "Answers once the new node serves again and the devnet's nodes see each other. Names as in /sim/v1/status: bidder, provider-0, …. " +
            "The devnet's nodes share one process, so a kill is simulated: docs/crash-safety.md says what is and is not.",
        },
      },
    )
    .post(
      "/sim/v1/faults",
      async ({ body }) => {
        const fail = parseFault(body.fail);
        await control.injectFault(body.node, fail);
        return { node: body.node, fail };
      },
      {
        body: t.Object({
          node: t.String({ description: '"bidder" or a provider address' }),
          fail: t.String({
            description:
              "store | open: that node's next such transaction is sent so that the chain rejects it; none: disarm",
          }),
        }),
        detail: { summary: "Make a node's next store or open transaction fail on-chain" },
      },
    );
  return app;
}
