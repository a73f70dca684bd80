/**
 * Steps of request-limits.feature: messages above gRPC's default maximum of 4 MiB (4,194,304 bytes), over HTTP and
 * gRPC alike.
 */
import { Then, When } from "@cucumber/cucumber";
import { BidSuiteError, bidsOf } from "../support/bids.ts";
import type { MessageStream, Unary } from "../support/clients/api.ts";
import type { ConformanceWorld } from "../support/world.ts";

/** Over the 4 MiB maximum by a margin no framing or encoding overhead closes. */
const OVERSIZED = 5 * 1024 * 1024;
const oversized = () => "a".repeat(OVERSIZED);

/** Oversized requests of the scenario, for the step that judges them. */
const sent = new WeakMap<ConformanceWorld, { what: string; stream: MessageStream; ended: Promise<unknown> }>();

When(
  "the bidder is sent a bid whose transaction hash list holds a 5 MiB string",
  async function (this: ConformanceWorld) {
    const s = bidsOf(this);
    const bid = JSON.parse(
      await s.substitute(
        JSON.stringify({
          txHashes: ["TO-REPLACE"],
          amount: "5301",
          blockNumber: "$BLOCK",
          decayStartTimestamp: "$DECAY_START",
          decayEndTimestamp: "$DECAY_END",
        }),
      ),
    ) as { txHashes: string[] };
    bid.txHashes = [oversized()];
    const stream = this.bidder.sendBid(JSON.stringify(bid));
    sent.set(this, { what: "the 5 MiB bid", stream, ended: stream.done });
    await stream.done;
  },
);

When(/^a client subscribes to the bidder with a topic of 5 MiB$/, async function (this: ConformanceWorld) {
  const stream = this.notifications("the bidder").subscribe({ rawBody: JSON.stringify({ topics: [oversized()] }) });
  sent.set(this, { what: "the 5 MiB Subscribe call", stream, ended: stream.done });
  await Promise.race([stream.done, new Promise((r) => setTimeout(r, 10_000))]);
  if (!stream.ended) {
    stream.close();
    throw new BidSuiteError(`the 5 MiB Subscribe call was still open after 10 s: ${stream.describe(600)}`);
  }
});

/**
 * The HTTP statuses an @upstream scenario accepts for a body above the limit: upstream's gateway maps
 * ResourceExhausted to 429; 413 is the reference's divergence ("Request body above a route's limit"), which only the
 * @intended scenario holds every implementation to.
 */
const UPSTREAM_OR_DIVERGENCE = [429, 413];

/**
 * ResourceExhausted, what gRPC servers answer for a message above their maximum; either envelope (unary `{code,…}`
 * or a stream's `{"error":…}` line) carries the code.
 */
Then("it is refused with ResourceExhausted, code 8", async function (this: ConformanceWorld) {
  const r = sent.get(this);
  if (!r) throw new BidSuiteError("no oversized request was sent in this scenario");
  await r.ended;
  const o = r.stream;
  const where = `${r.what}: ${o.describe(600)}`;
  if (o.transport === "grpc") {
    const codes = o.lines.map((l) => (l as { error?: { code?: number } }).error?.code);
    if (codes.length !== 1 || codes[0] !== 8) throw new BidSuiteError(`expected one status with code 8; ${where}`);
    return;
  }
  if (!UPSTREAM_OR_DIVERGENCE.includes(o.status ?? 0))
    throw new BidSuiteError(`expected HTTP 429 (upstream) or 413 (the reference's divergence); ${where}`);
  let body: { code?: number; error?: { code?: number } };
  try {
    body = JSON.parse(o.text.trim()) as typeof body;
  } catch {
    throw new BidSuiteError(`the body is not one JSON value; ${where}`);
  }
  if ((body.error?.code ?? body.code) !== 8) throw new BidSuiteError(`expected code 8; ${where}`);
});

/** Oversized unary calls of the scenario, for the step that judges them. */
const sentUnary = new WeakMap<ConformanceWorld, { what: string; answer: Unary }>();

When(
  /^the bidder is sent a withdraw_from_windows request listing window 1 (\d+) times$/,
  async function (this: ConformanceWorld, times: string) {
    const answer = await this.bidder.withdrawFromWindows(Array.from({ length: Number(times) }, () => 1n));
    sentUnary.set(this, { what: `withdraw_from_windows with ${times} windows`, answer });
  },
);

When(
  /^provider (\d+) is sent a decision whose bid digest is (\d+) MiB of base64$/,
  async function (this: ConformanceWorld, p: string, mib: string) {
    const decision = JSON.stringify({
      bidDigest: "A".repeat(Number(mib) * 1024 * 1024),
      status: "STATUS_ACCEPTED",
      dispatchTimestamp: "1",
    });
    const answer = await this.provider(Number(p)).sendProcessedBids(decision);
    sentUnary.set(this, { what: `a ${mib} MiB decision`, answer });
  },
);

Then("the call is refused with ResourceExhausted, code 8", function (this: ConformanceWorld) {
  const r = sentUnary.get(this);
  if (!r) throw new BidSuiteError("no oversized unary call was made in this scenario");
  const where = `${r.what}: ${r.answer.describe().slice(0, 600)}`;
  if (r.answer.error?.code !== 8) throw new BidSuiteError(`expected code 8; ${where}`);
  const status = r.answer.http?.status;
  if (status !== undefined && !UPSTREAM_OR_DIVERGENCE.includes(status))
    throw new BidSuiteError(`expected HTTP 429 (upstream) or 413 (the reference's divergence); ${where}`);
});

/** 413 Content Too Large: the client must send less; 429 would tell it to retry the same body later. */
Then("the oversized request was answered with HTTP 413", async function (this: ConformanceWorld) {
  const r = sent.get(this);
  if (!r) throw new BidSuiteError("no oversized request was sent in this scenario");
  await r.ended;
  if (r.stream.status !== 413) throw new BidSuiteError(`expected HTTP 413; ${r.what}: ${r.stream.describe(600)}`);
});

Then("the oversized call was answered with HTTP 413", function (this: ConformanceWorld) {
  const r = sentUnary.get(this);
  if (!r) throw new BidSuiteError("no oversized unary call was made in this scenario");
  const status = r.answer.http?.status;
  if (status !== 413) throw new BidSuiteError(`expected HTTP 413; ${r.what}: ${r.answer.describe().slice(0, 600)}`);
});
