import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Elysia, t } from "elysia";
import { REFUSAL_TEXT } from "../bidder/bids/refusalReason.ts";
import { FailedPreconditionError, InvalidArgumentError, NotFoundError } from "../protocol/grpcCodes.ts";
import type { BidOutcomes, OutcomeKind } from "./bidOutcomes.ts";
import type { ExplorerHub } from "./explorerHub.ts";

const require = createRequire(import.meta.url);
const PAGE_DIR = join(import.meta.dir, "page");

/** The page's own files and the libraries it runs on, all served from this installation (nothing from the internet). */
const FILES: Record<string, { path: () => string; type: string }> = {
  "index.html": { path: () => join(PAGE_DIR, "index.html"), type: "text/html; charset=utf-8" },
  "app.js": { path: () => join(PAGE_DIR, "app.js"), type: "text/javascript; charset=utf-8" },
  "style.css": { path: () => join(PAGE_DIR, "style.css"), type: "text/css; charset=utf-8" },
  "lib/preact.mjs": { path: () => require.resolve("preact"), type: "text/javascript; charset=utf-8" },
  "lib/hooks.mjs": { path: () => require.resolve("preact/hooks"), type: "text/javascript; charset=utf-8" },
  "lib/htm.mjs": {
    path: () => join(dirname(require.resolve("htm")), "htm.mjs"),
    type: "text/javascript; charset=utf-8",
  },
  "lib/chart.umd.min.js": {
    path: () => join(dirname(require.resolve("chart.js")), "chart.umd.min.js"),
    type: "text/javascript; charset=utf-8",
  },
};

const cache = new Map<string, string>();
function file(name: string): Response {
  const f = FILES[name];
  if (!f) throw new NotFoundError(`no explorer file ${name}`);
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(f.path(), "utf8");
    cache.set(name, text);
  }
  return new Response(text, { headers: { "content-type": f.type, "cache-control": "no-cache" } });
}

/** The explorer page (`/explorer`), its live stream and its search; on the control API or on its own server. */
export function explorerPage(hub: ExplorerHub) {
  return new Elysia({ name: "explorer-page" })
    .get("/", ({ redirect }) => redirect("/explorer/"), { detail: { hide: true } })
    .get("/explorer/", () => file("index.html"), { detail: { summary: "The devnet explorer (a page for a browser)" } })
    .get("/explorer/lib/:name", ({ params }) => file(`lib/${params.name}`), { detail: { hide: true } })
    .get("/explorer/:name", ({ params }) => file(params.name), { detail: { hide: true } })
    .get("/explorer/api/events", () => hub.stream(), {
      detail: {
        summary:
          "The explorer's live stream (text/event-stream): a snapshot, then bids, chain rows and notifications as they change",
      },
    })
    .get(
      "/explorer/api/search",
      ({ query }) => {
        if (!query.q.trim())
          throw new InvalidArgumentError("q must be a bid or commitment digest, a transaction hash or an address");
        return hub.search(query.q);
      },
      {
        query: t.Object({ q: t.String() }),
        detail: { summary: "Search by bid digest, commitment digest, transaction hash or address" },
      },
    );
}

const OUTCOMES: OutcomeKind[] = ["pending", "committed", "refused", "rejected"];

/** The devnet records no bids: it runs no nodes of its own (--no-nodes). */
export class BidsNotRecordedError extends FailedPreconditionError {
  override name = "BidsNotRecordedError";
}

/**
 * `/sim/v1/bids`: each bid the devnet's bidder sent, with every provider's outcome and each commitment's lifecycle.
 * `recorder` is undefined when the devnet has no bidder of its own (`notRecorded` says why).
 */
export function bidsApi(recorder: BidOutcomes | undefined, notRecorded = "the devnet records no bids") {
  const recorded = (): BidOutcomes => {
    if (!recorder) throw new BidsNotRecordedError(notRecorded);
    return recorder;
  };
  return new Elysia({ name: "sim-bids" })
    .get(
      "/sim/v1/bids",
      ({ query }) => {
        const bids = recorded();
        if (query.outcome !== undefined && !OUTCOMES.includes(query.outcome as OutcomeKind))
          throw new InvalidArgumentError(`outcome must be one of ${OUTCOMES.join(", ")}, got ${query.outcome}`);
        if (query.reason !== undefined && !(query.reason in REFUSAL_TEXT))
          throw new InvalidArgumentError(
            `reason must be one of ${Object.keys(REFUSAL_TEXT).join(", ")}, got ${query.reason}`,
          );
        if (query.blockNumber !== undefined && !/^[0-9]{1,20}$/.test(query.blockNumber))
          throw new InvalidArgumentError(`blockNumber must be a block number, got ${query.blockNumber}`);
        const limit = query.limit === undefined ? 100 : Number(query.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > bids.max)
          throw new InvalidArgumentError(`limit must be an integer from 1 to ${bids.max}, got ${query.limit}`);
        const list = bids.list({ ...query, outcome: query.outcome as OutcomeKind | undefined, limit });
        return { bids: list, kept: bids.size, max: bids.max };
      },
      {
        query: t.Object({
          bidder: t.Optional(t.String({ description: "bidder address" })),
          provider: t.Optional(
            t.String({
              description: "provider address: bids sent to it (its outcome filters with outcome and reason)",
            }),
          ),
          outcome: t.Optional(t.String({ description: OUTCOMES.join(" | ") })),
          reason: t.Optional(t.String({ description: Object.keys(REFUSAL_TEXT).join(" | ") })),
          blockNumber: t.Optional(t.String({ description: "the L1 block the bid targets" })),
          txnHash: t.Optional(t.String({ description: "one of the bid's transaction hashes" })),
          limit: t.Optional(t.String({ description: "at most this many, newest first (default 100)" })),
        }),
        detail: {
          summary:
            "The bids the devnet's bidder sent, newest first, with each provider's outcome (the last 10,000 are kept)",
        },
      },
    )
    .get(
      "/sim/v1/bids/:digest",
      ({ params }) => {
        const bids = recorded();
        if (!/^(0x)?[0-9a-fA-F]{64}$/.test(params.digest))
          throw new InvalidArgumentError(`digest must be 32 bytes of hex, got ${params.digest}`);
        const bid = bids.get(params.digest);
        if (!bid)
          throw new NotFoundError(
            `no bid with digest (or commitment digest) ${params.digest} among the last ${bids.max} bids of the devnet's bidder`,
          );
        return bid;
      },
      {
        detail: {
          summary:
            "One bid by its digest (or by one of its commitments' digests): each provider's outcome and each commitment's lifecycle",
          description:
            "outcome: committed (with the commitment) | refused by the node (reason: no_application, allowance_used, deposit_missing, invalid_bid, decision_timeout, bidder_timeout) | rejected (by the provider application); " +
            "lifecycle: stored, opened, settled (payment) or slashed (amount, refund).",
        },
      },
    );
}
