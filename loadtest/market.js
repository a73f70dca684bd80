// k6 plays both sides of the market against a target (its target.json): provider VUs attach to every provider
// node over gRPC (k6/net/grpc: hold ReceiveBids, answer each bid through one SendProcessedBids stream by a policy),
// bidder VUs send bids over gRPC (SendBid, time to the first commitment measured on the stream) or HTTP.
// Run through `npm run load` (starts a --no-auto-accept devnet, or TARGET=file), or directly:
//   k6 run -e TARGET=path/to/target.json -e PROFILE=steady loadtest/market.js
// Profiles: smoke, steady, ramp, slot-burst, soak, fan-out (see loadtest/README.md).

import { check, sleep } from "k6";
import exec from "k6/execution";
import http from "k6/http";
import { Counter, Rate, Trend } from "k6/metrics";
import grpc from "k6/net/grpc";
import { l1Block, randomHash } from "./l1.js";

const target = JSON.parse(open(__ENV.TARGET));
const PROFILE = __ENV.PROFILE || "steady";
const RATE = Number(__ENV.RATE || 30);
const DURATION = __ENV.DURATION || "20s";
const BIDDER_TRANSPORT = __ENV.BIDDER_TRANSPORT || "grpc";
const POLICY = __ENV.POLICY || "accept";
const STREAMS_PER_PROVIDER = Number(__ENV.STREAMS_PER_PROVIDER || 1);
const SUBSCRIBERS = Number(__ENV.SUBSCRIBERS || 100);
const BURST = Number(__ENV.BURST || 20);
const REPORT = __ENV.REPORT || `reports/load-${PROFILE}.json`;
const PROVIDER_VUS = (__ENV.PROVIDER_VUS || "on") !== "off";

const providerRpcUrls = target.providerRpcUrls || [];
const P = (target.providerUrls || []).length;
if (PROVIDER_VUS && providerRpcUrls.length === 0)
  throw new Error(
    "provider VUs need the target's providerRpcUrls (capability grpc); run with PROVIDER_VUS=off to use the target's own provider applications",
  );
if (BIDDER_TRANSPORT === "grpc" && !target.bidderRpcUrl)
  throw new Error("BIDDER_TRANSPORT=grpc needs the target's bidderRpcUrl (capability grpc)");

/** `http://host:port` → `host:port`, and whether it is TLS (the devnet's certificate is self-signed). */
function dial(url) {
  const m = /^(https?):\/\/([^/]+)/.exec(url);
  return { addr: m ? m[2] : url, tls: m ? m[1] === "https" : false };
}

function durationSeconds(d) {
  const m = /^(\d+)(ms|s|m|h)$/.exec(d);
  if (!m) throw new Error(`DURATION must look like 20s, 2m or 500ms, got ${d}`);
  return Number(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[m[2]];
}
const seconds = durationSeconds(DURATION);

// ---- the policy a provider VU decides by -------------------------------------------------------------------------
function policy() {
  const [name, arg] = POLICY.split(":");
  if (name === "accept") return () => ({ accept: true, delayMs: 0 });
  if (name === "reject") {
    const percent = Number(arg || 50);
    return () => ({ accept: Math.random() * 100 >= percent, delayMs: 0 });
  }
  if (name === "delay") return () => ({ accept: true, delayMs: Number(arg || 100) });
  throw new Error(`POLICY must be accept, reject:N (percent) or delay:MS, got ${POLICY}`);
}
const everyBidCommitted = POLICY === "accept" || POLICY.startsWith("delay");

// ---- scenarios per profile -----------------------------------------------------------------------------------------
const providerHold = seconds + 10; // providers stay until every bid had its answer
const providers = {
  executor: "per-vu-iterations",
  exec: "provider",
  vus: Math.max(1, providerRpcUrls.length * STREAMS_PER_PROVIDER),
  iterations: 1,
  maxDuration: `${providerHold + 30}s`,
};
const bidderStart = "3s"; // the provider streams are attached first
const bidders = {
  smoke: {
    executor: "shared-iterations",
    exec: "bidder",
    vus: 2,
    iterations: 20,
    maxDuration: "60s",
    startTime: bidderStart,
  },
  steady: {
    executor: "constant-arrival-rate",
    exec: "bidder",
    rate: RATE,
    timeUnit: "1s",
    duration: DURATION,
    preAllocatedVUs: 20,
    maxVUs: 300,
    startTime: bidderStart,
  },
  soak: {
    executor: "constant-arrival-rate",
    exec: "bidder",
    rate: RATE,
    timeUnit: "1s",
    duration: DURATION,
    preAllocatedVUs: 20,
    maxVUs: 300,
    startTime: bidderStart,
  },
  ramp: {
    executor: "ramping-arrival-rate",
    exec: "bidder",
    startRate: Math.max(1, Math.floor(RATE / 5)),
    timeUnit: "1s",
    preAllocatedVUs: 20,
    maxVUs: 400,
    startTime: bidderStart,
    stages: [
      { target: RATE, duration: `${Math.ceil(seconds / 3)}s` },
      { target: RATE * 2, duration: `${Math.ceil(seconds / 3)}s` },
      { target: 0, duration: `${Math.ceil(seconds / 3)}s` },
    ],
  },
  "slot-burst": { executor: "constant-vus", exec: "slotBurst", vus: 1, duration: DURATION, startTime: bidderStart },
  "fan-out": {
    executor: "constant-arrival-rate",
    exec: "bidder",
    rate: RATE,
    timeUnit: "1s",
    duration: DURATION,
    preAllocatedVUs: 20,
    maxVUs: 300,
    startTime: bidderStart,
  },
};
if (!bidders[PROFILE]) throw new Error(`unknown PROFILE ${PROFILE}: smoke, steady, ramp, slot-burst, soak or fan-out`);

const scenarios = { bidders: bidders[PROFILE] };
if (PROVIDER_VUS) scenarios.providers = providers;
if (PROFILE === "fan-out")
  scenarios.subscribers = {
    executor: "per-vu-iterations",
    exec: "subscriber",
    vus: SUBSCRIBERS,
    iterations: 1,
    maxDuration: `${providerHold + 30}s`,
  };

// Correctness only: no threshold on speed. Every check must hold (CI runs the smoke profile on this).
export const options = {
  scenarios,
  thresholds: { checks: ["rate==1"], stream_errors: ["count==0"] },
  summaryTrendStats: ["avg", "min", "p(50)", "p(99)", "max"],
  setupTimeout: "60s",
};

// ---- metrics -------------------------------------------------------------------------------------------------------
const bids = new Counter("bids");
const commitments = new Counter("commitments");
const perBid = new Trend("commitments_per_bid");
const firstCommitment = new Trend("first_commitment_ms", true);
const bidStream = new Trend("bid_stream_ms", true);
const decisions = new Counter("decisions");
const bidsReceived = new Counter("bids_received");
const streamErrors = new Counter("stream_errors");
const notifications = new Counter("notifications");
const answered = new Rate("bids_answered");
// Wall-clock instants (ms) of every bid's start and end: bids per second over the time bids were in flight.
const bidClock = new Trend("bid_clock");

// ---- helpers ---------------------------------------------------------------------------------------------------------
// One gRPC client per VU (protos load in the init context), connected on first use to the one node the VU talks to.
const grpcClient = new grpc.Client();
grpcClient.load(
  ["../proto"],
  "bidderapi/v1/bidderapi.proto",
  "providerapi/v1/providerapi.proto",
  "notificationsapi/v1/notifications.proto",
);
let connectedTo;
function client(url) {
  if (connectedTo === url) return grpcClient;
  if (connectedTo) throw new Error(`a VU talks to one node (connected to ${connectedTo}, asked for ${url})`);
  const d = dial(url);
  grpcClient.connect(d.addr, d.tls ? { plaintext: false, tls: { insecureSkipVerify: true } } : { plaintext: true });
  connectedTo = url;
  return grpcClient;
}

function bid() {
  const now = Date.now();
  return {
    txHashes: [randomHash()],
    amount: "1000",
    blockNumber: l1Block(target.l1RpcUrl) + 2,
    decayStartTimestamp: now,
    decayEndTimestamp: now + 12000,
  };
}

function judge(n, t0) {
  bidClock.add(t0);
  bidClock.add(Date.now());
  bids.add(1);
  commitments.add(n);
  perBid.add(n);
  answered.add(n > 0);
  check(n, {
    "every provider committed": (x) => !everyBidCommitted || x === P,
    "no more commitments than providers": (x) => x <= P,
  });
}

/** One bid over gRPC: the commitments as they arrive on the SendBid stream. */
function grpcBid(onDone) {
  const c = client(target.bidderRpcUrl);
  const s = new grpc.Stream(c, "bidderapi.v1.Bidder/SendBid");
  const t0 = Date.now();
  let n = 0;
  s.on("data", () => {
    if (n === 0) firstCommitment.add(Date.now() - t0);
    n++;
  });
  s.on("error", (e) => {
    streamErrors.add(1);
    console.error(`SendBid: ${e.code} ${e.message}`);
  });
  s.on("end", () => {
    bidStream.add(Date.now() - t0);
    judge(n, t0);
    if (onDone) onDone();
  });
  s.write(bid());
  s.end();
}

/** One bid over HTTP: k6 reads the whole NDJSON body, so only the full stream time is measured. */
function httpBid() {
  const t0 = Date.now();
  const res = http.post(
    `${target.bidderUrl}/v1/bidder/bid`,
    JSON.stringify({ ...bid(), blockNumber: String(bid().blockNumber) }),
    {
      headers: { "content-type": "application/json" },
      timeout: "60s",
      tags: { name: "SendBid" },
    },
  );
  bidStream.add(Date.now() - t0);
  let n = 0;
  for (const l of (res.body || "").split("\n")) {
    if (l.trim() === "") continue;
    const m = JSON.parse(l);
    if (m.result) n++;
    else streamErrors.add(1);
  }
  check(res, { "SendBid answered 200": (r) => r.status === 200 });
  judge(n, t0);
}

// ---- VUs -----------------------------------------------------------------------------------------------------------
/** A provider application: ReceiveBids held open, every decision on one SendProcessedBids stream. */
export function provider() {
  const url = providerRpcUrls[exec.scenario.iterationInTest % providerRpcUrls.length];
  const c = client(url);
  const decide = policy();
  const out = new grpc.Stream(c, "providerapi.v1.Provider/SendProcessedBids");
  out.on("error", (e) => {
    streamErrors.add(1);
    c.close();
    console.error(`SendProcessedBids on ${url}: ${e.code} ${e.message}`);
  });
  const bidsIn = new grpc.Stream(c, "providerapi.v1.Provider/ReceiveBids");
  let open = true;
  bidsIn.on("data", (b) => {
    bidsReceived.add(1);
    const d = decide();
    const answer = () => {
      if (!open) return;
      out.write({
        bidDigest: b.bidDigest,
        status: d.accept ? "STATUS_ACCEPTED" : "STATUS_REJECTED",
        dispatchTimestamp: Date.now(),
      });
      decisions.add(1);
    };
    if (d.delayMs > 0) setTimeout(answer, d.delayMs);
    else answer();
  });
  bidsIn.on("error", (e) => {
    if (!open) return;
    streamErrors.add(1);
    console.error(`ReceiveBids on ${url}: ${e.code} ${e.message}`);
  });
  bidsIn.write({});
  setTimeout(() => {
    open = false;
    // Half-close SendProcessedBids, wait for its answer, then leave (which ends ReceiveBids).
    out.on("end", () => c.close());
    out.end();
  }, providerHold * 1000);
}

export function bidder() {
  if (BIDDER_TRANSPORT === "http") httpBid();
  else grpcBid();
}

/** slot-burst: waits for each new L1 block, then sends BURST bids at once. */
export function slotBurst() {
  const start = l1Block(target.l1RpcUrl);
  const deadline = Date.now() + 30000;
  while (l1Block(target.l1RpcUrl, true) === start && Date.now() < deadline) sleep(0.05);
  if (BIDDER_TRANSPORT === "http") {
    const reqs = [];
    for (let i = 0; i < BURST; i++)
      reqs.push([
        "POST",
        `${target.bidderUrl}/v1/bidder/bid`,
        JSON.stringify({ ...bid(), blockNumber: String(bid().blockNumber) }),
        { headers: { "content-type": "application/json" }, timeout: "60s" },
      ]);
    const t0 = Date.now();
    for (const res of http.batch(reqs)) {
      let n = 0;
      for (const l of (res.body || "").split("\n")) if (l.trim() !== "" && JSON.parse(l).result) n++;
      judge(n, t0);
    }
  } else for (let i = 0; i < BURST; i++) grpcBid();
}

/** fan-out: one Subscribe stream held for the run, on the bidder or a provider node. */
export function subscriber() {
  const nodes = [target.bidderRpcUrl, ...providerRpcUrls].filter(Boolean);
  const url = nodes[exec.scenario.iterationInTest % nodes.length];
  const c = client(url);
  const s = new grpc.Stream(c, "notificationsapi.v1.Notifications/Subscribe");
  let open = true;
  s.on("data", () => notifications.add(1));
  s.on("error", (e) => {
    if (!open) return;
    streamErrors.add(1);
    console.error(`Subscribe on ${url}: ${e.code} ${e.message}`);
  });
  s.write({
    topics: [
      "peer_connected",
      "peer_disconnected",
      "provider_registered",
      "provider_deposit",
      "commitment_store_failed",
      "commitment_open_failed",
      "validator_opted_in",
      "epoch_validators_opted_in",
    ],
  });
  setTimeout(() => {
    open = false;
    c.close();
  }, providerHold * 1000);
}

// ---- summary -------------------------------------------------------------------------------------------------------
function metric(data, name, stat) {
  const m = data.metrics[name];
  return m && m.values[stat] !== undefined ? m.values[stat] : null;
}

export function handleSummary(data) {
  const elapsedS = data.state.testRunDurationMs / 1000;
  const bidSpan = ((metric(data, "bid_clock", "max") || 0) - (metric(data, "bid_clock", "min") || 0)) / 1000;
  const checks = data.metrics.checks ? data.metrics.checks.values : { passes: 0, fails: 0 };
  const summary = {
    profile: PROFILE,
    bidderTransport: BIDDER_TRANSPORT,
    policy: POLICY,
    providers: P,
    providerStreams: PROVIDER_VUS ? providerRpcUrls.length * STREAMS_PER_PROVIDER : 0,
    durationS: elapsedS,
    biddingS: bidSpan,
    bids: metric(data, "bids", "count") || 0,
    bidsPerSecond: bidSpan > 0 ? (metric(data, "bids", "count") || 0) / bidSpan : null,
    commitments: metric(data, "commitments", "count") || 0,
    commitmentsPerBid: metric(data, "commitments_per_bid", "avg"),
    firstCommitmentMs: {
      p50: metric(data, "first_commitment_ms", "p(50)"),
      p99: metric(data, "first_commitment_ms", "p(99)"),
      max: metric(data, "first_commitment_ms", "max"),
    },
    bidStreamMs: {
      p50: metric(data, "bid_stream_ms", "p(50)"),
      p99: metric(data, "bid_stream_ms", "p(99)"),
      max: metric(data, "bid_stream_ms", "max"),
    },
    bidsReceivedByProviders: metric(data, "bids_received", "count") || 0,
    decisions: metric(data, "decisions", "count") || 0,
    decisionsPerSecond: bidSpan > 0 ? (metric(data, "decisions", "count") || 0) / bidSpan : null,
    notifications: metric(data, "notifications", "count") || 0,
    subscribers: PROFILE === "fan-out" ? SUBSCRIBERS : 0,
    streamErrors: metric(data, "stream_errors", "count") || 0,
    checks: { passed: checks.passes, failed: checks.fails },
    thresholdsPassed: Object.values(data.metrics).every(
      (m) => !m.thresholds || Object.values(m.thresholds).every((t) => t.ok),
    ),
  };
  const f = (x, d = 1) => (x === null || x === undefined ? "-" : Number(x).toFixed(d));
  const text = [
    "",
    `load ${PROFILE}: bidders over ${BIDDER_TRANSPORT}, ${summary.providerStreams} provider streams (policy ${POLICY}), ${f(elapsedS)} s`,
    `  bids                 ${summary.bids} in ${f(bidSpan)} s (${f(summary.bidsPerSecond)}/s), ${summary.commitments} commitments, ${f(summary.commitmentsPerBid, 2)} per bid`,
    `  first commitment     p50 ${f(summary.firstCommitmentMs.p50)} ms, p99 ${f(summary.firstCommitmentMs.p99)} ms, max ${f(summary.firstCommitmentMs.max)} ms${BIDDER_TRANSPORT === "http" ? "  (not measurable over HTTP in k6)" : "  (SendBid sent → first commitment on the gRPC stream)"}`,
    `  whole bid stream     p50 ${f(summary.bidStreamMs.p50)} ms, p99 ${f(summary.bidStreamMs.p99)} ms, max ${f(summary.bidStreamMs.max)} ms`,
    `  provider decisions   ${summary.decisions} (${f(summary.decisionsPerSecond)}/s while bidding) for ${summary.bidsReceivedByProviders} bids received`,
    ...(PROFILE === "fan-out"
      ? [`  notifications        ${summary.notifications} on ${SUBSCRIBERS} Subscribe streams`]
      : []),
    `  stream errors        ${summary.streamErrors}`,
    `  checks               ${checks.passes} passed, ${checks.fails} failed`,
    `  summary              ${REPORT}`,
    "",
  ].join("\n");
  return { stdout: text, [REPORT]: `${JSON.stringify(summary, null, 2)}\n` };
}
