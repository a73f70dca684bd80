// The load gate (`npm run load -- --profile gate`): at each level of LEVELS, k6 holds that many bids in flight on the
// target's bidder (BIDS bids per level, a fresh transaction hash each, a small amount, the L1 block after the next)
// and plays every provider application in the same VU (ReceiveBids held, every bid accepted on SendProcessedBids),
// so that each commitment can be held against the bid its provider was shown. The thresholds fail the run when any
// bid got fewer commitments than accepting providers, a commitment failed verification, a bid's stream failed, or a
// level did not run all its bids with that many in flight. Nothing is judged on speed.
// A commitment verifies when: it names one of the target's providers, none twice for one bid; its commitmentSignature
// recovers over its commitmentDigest to that provider; its receivedBidSignature recovers over its receivedBidDigest to
// the target's bidder; its receivedBidDigest is the bidDigest that provider's application was shown for this bid's
// transaction hash (ReceiveBids); it echoes the bid's transaction hashes, amount, block number and decay timestamps;
// and no other commitment of the run carries its commitmentDigest.
// The signature recovery is loadtest/gate/signer.ts, bundled into .bin/gate-signer.js by run.ts before k6 starts:
//   bun -e 'await (await import("./loadtest/gate/bundle.ts")).bundleSigner()'
//   k6 run -e TARGET=path/to/target.json -e LEVELS=1,8,32 -e BIDS=32 loadtest/gate.js

import { check, sleep } from "k6";
import encoding from "k6/encoding";
import http from "k6/http";
import { Counter, Gauge, Trend } from "k6/metrics";
import grpc from "k6/net/grpc";
import { signerOf } from "./.bin/gate-signer.js";
import { l1Block, randomHash } from "./l1.js";

const target = JSON.parse(open(__ENV.TARGET));
const LEVELS = (__ENV.LEVELS || "1,8,32").split(",").map(Number);
const BIDS = Number(__ENV.BIDS || 128);
const TRANSPORT = __ENV.BIDDER_TRANSPORT || "grpc";
const PROVIDER_VUS = (__ENV.PROVIDER_VUS || "on") !== "off";
const REPORT = __ENV.REPORT || "reports/load-gate.json";
const AMOUNT = "1000";
const SHOWN = 3; // problems printed per level (every one counts)
/** The target's bid timeout (how long its bidder waits for commitments) and 30 s more. */
const BID_DEADLINE_MS = (target.bidTimeoutMs || 30000) + 30000;

if (LEVELS.some((k) => !Number.isInteger(k) || k < 1 || k > BIDS))
  throw new Error(`LEVELS must be whole numbers from 1 to BIDS (${BIDS}), got ${__ENV.LEVELS}`);
const providerRpcUrls = target.providerRpcUrls || [];
const providerAddresses = (target.providerAddresses || []).map(bare);
const bidderAddress = bare(target.bidderAddress || "");
if (PROVIDER_VUS && providerRpcUrls.length === 0)
  throw new Error("the gate's providers need the target's providerRpcUrls (capability grpc), or PROVIDER_VUS=off");
if (TRANSPORT === "grpc" && !target.bidderRpcUrl)
  throw new Error("BIDDER_TRANSPORT=grpc needs the target's bidderRpcUrl (capability grpc)");
/** Providers that accept every bid: k6's applications, or (PROVIDER_VUS=off) the target's own, assumed to. */
const ACCEPTING = PROVIDER_VUS ? providerRpcUrls.length : (target.providerUrls || []).length;

const maxSeconds = 60 + LEVELS.length * (BID_DEADLINE_MS / 1000 + 30 + BIDS);
export const options = {
  scenarios: {
    gate: { executor: "per-vu-iterations", exec: "gate", vus: 1, iterations: 1, maxDuration: `${maxSeconds}s` },
  },
  thresholds: Object.assign(
    { checks: ["rate==1"] },
    ...LEVELS.map((k) => ({
      [`gate_bids{level:${k}}`]: [`count==${BIDS}`],
      [`in_flight{level:${k}}`]: [`max==${k}`],
      [`commitments_per_bid{level:${k}}`]: [`min>=${ACCEPTING}`],
      [`short_bids{level:${k}}`]: ["count==0"],
      [`unverified_commitments{level:${k}}`]: ["count==0"],
      [`bid_errors{level:${k}}`]: ["count==0"],
      [`checks{level:${k}}`]: ["rate==1"],
    })),
  ),
  summaryTrendStats: ["avg", "min", "max"],
  setupTimeout: "60s",
};

const gateBids = new Counter("gate_bids");
const inFlight = new Trend("in_flight");
const perBid = new Trend("commitments_per_bid");
const shortBids = new Counter("short_bids");
const unverified = new Counter("unverified_commitments");
const bidErrors = new Counter("bid_errors");
const levelMs = Object.fromEntries(LEVELS.map((k) => [k, new Gauge(`gate_level_${k}_ms`)]));

// ---- clients (made in the init context: one per node) ------------------------------------------------------------
function newClient() {
  const c = new grpc.Client();
  c.load(["../proto"], "bidderapi/v1/bidderapi.proto", "providerapi/v1/providerapi.proto");
  return c;
}
const bidderClient = TRANSPORT === "grpc" ? newClient() : undefined;
const providerClients = PROVIDER_VUS ? providerRpcUrls.map(() => newClient()) : [];

function connect(c, url) {
  const m = /^(https?):\/\/([^/]+)/.exec(url);
  const tls = m ? m[1] === "https" : false;
  c.connect(m ? m[2] : url, tls ? { plaintext: false, tls: { insecureSkipVerify: true } } : { plaintext: true });
}

function bare(hex) {
  return String(hex).toLowerCase().replace(/^0x/, "");
}

function base64ToHex(b64) {
  const bytes = new Uint8Array(encoding.b64decode(b64, "std"));
  let h = "";
  for (const b of bytes) h += (b < 16 ? "0" : "") + b.toString(16);
  return h;
}

// ---- the provider applications: every bid accepted, and each bid digest shown kept by transaction hash ----------
/** txHash → provider index → the bidDigest (hex) that provider's application was shown. */
const shown = {};
const providerStreams = [];

function attachProviders() {
  if (!PROVIDER_VUS) return;
  providerRpcUrls.forEach((url, i) => {
    const c = providerClients[i];
    connect(c, url);
    const out = new grpc.Stream(c, "providerapi.v1.Provider/SendProcessedBids");
    const state = { open: true, client: c, out };
    out.on("error", (e) => {
      if (state.open) console.error(`SendProcessedBids on ${url}: ${e.code} ${e.message}`);
    });
    const bids = new grpc.Stream(c, "providerapi.v1.Provider/ReceiveBids");
    bids.on("data", (b) => {
      if (!state.open) return;
      for (const h of b.txHashes || []) {
        shown[bare(h)] = shown[bare(h)] || {};
        shown[bare(h)][i] = base64ToHex(b.bidDigest);
      }
      out.write({ bidDigest: b.bidDigest, status: "STATUS_ACCEPTED", dispatchTimestamp: Date.now() });
    });
    bids.on("error", (e) => {
      if (state.open) console.error(`ReceiveBids on ${url}: ${e.code} ${e.message}`);
    });
    bids.write({});
    providerStreams.push(state);
  });
}

function detachProviders() {
  for (const s of providerStreams) {
    s.open = false;
    s.out.on("end", () => s.client.close());
    s.out.end();
  }
}

// ---- one bid -------------------------------------------------------------------------------------------------------
function newBid() {
  const now = Date.now();
  return {
    txHashes: [randomHash()],
    amount: AMOUNT,
    blockNumber: l1Block(target.l1RpcUrl) + 2,
    decayStartTimestamp: now,
    decayEndTimestamp: now + 12000,
  };
}

/** Sends one bid; `done` gets { bid, commitments, error } once its stream has ended. */
function sendBid(done) {
  const bid = newBid();
  const rec = { bid, commitments: [], error: null };
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    done(rec);
  };
  // A stream that never ends counts as a failed bid, so the level still ends (and fails).
  const timer = setTimeout(() => {
    rec.error = `the bid's stream did not end within ${BID_DEADLINE_MS / 1000} s`;
    finish();
  }, BID_DEADLINE_MS);
  if (TRANSPORT === "http") {
    http
      .asyncRequest(
        "POST",
        `${target.bidderUrl}/v1/bidder/bid`,
        JSON.stringify({ ...bid, blockNumber: String(bid.blockNumber) }),
        {
          headers: { "content-type": "application/json" },
          timeout: `${BID_DEADLINE_MS + 10000}ms`,
          tags: { name: "SendBid" },
        },
      )
      .then(
        (res) => {
          if (res.status === 0) rec.error = `no answer: ${res.error}`;
          else if (res.status !== 200) rec.error = `HTTP ${res.status} ${String(res.body || "").slice(0, 200)}`;
          for (const line of String(res.body || "").split("\n")) {
            if (line.trim() === "" || rec.error) continue;
            try {
              const m = JSON.parse(line);
              if (m.result) rec.commitments.push(m.result);
              else rec.error = `a message without a result: ${line.slice(0, 200)}`;
            } catch {
              rec.error = `a line that is not JSON: ${line.slice(0, 200)}`;
            }
          }
          finish();
        },
        (e) => {
          rec.error = String(e);
          finish();
        },
      );
    return;
  }
  const s = new grpc.Stream(bidderClient, "bidderapi.v1.Bidder/SendBid");
  s.on("data", (c) => rec.commitments.push(c));
  s.on("error", (e) => {
    rec.error = `${e.code} ${e.message}`;
    finish();
  });
  s.on("end", finish);
  s.write(bid);
  s.end();
}

// ---- judging a bid -------------------------------------------------------------------------------------------------
const bidSigners = {}; // receivedBidDigest + signature → signer, recovered once per bid
const digestsSeen = {}; // commitmentDigest → the bid's transaction hash

function recover(digest, signature) {
  try {
    return signerOf(bare(digest), bare(signature));
  } catch (e) {
    return `(no signer: ${e.message})`;
  }
}

/** What is wrong with each commitment of one bid (empty when it verifies). */
function commitmentProblems(rec) {
  const { bid } = rec;
  const hash = bid.txHashes[0];
  const named = {};
  return rec.commitments.map((c) => {
    const p = [];
    const provider = bare(c.providerAddress || "");
    const i = providerAddresses.indexOf(provider);
    if (i < 0) p.push(`providerAddress ${provider} is none of the target's providers`);
    if (named[provider]) p.push(`a second commitment from ${provider}`);
    named[provider] = true;
    const signer = recover(c.commitmentDigest, c.commitmentSignature);
    if (signer !== provider) p.push(`commitmentSignature recovers to ${signer}, not ${provider}`);
    const bidKey = `${c.receivedBidDigest}/${c.receivedBidSignature}`;
    if (!(bidKey in bidSigners)) bidSigners[bidKey] = recover(c.receivedBidDigest, c.receivedBidSignature);
    if (bidSigners[bidKey] !== bidderAddress)
      p.push(`receivedBidSignature recovers to ${bidSigners[bidKey]}, not the bidder ${bidderAddress}`);
    if (PROVIDER_VUS && i >= 0) {
      const was = shown[hash]?.[i];
      if (was === undefined) p.push(`provider ${provider}'s application was never shown this bid`);
      else if (bare(c.receivedBidDigest || "") !== was)
        p.push(`receivedBidDigest ${c.receivedBidDigest}, but the provider was shown ${was}`);
    }
    const hashes = (c.txHashes || []).map(bare).join(",");
    if (hashes !== hash) p.push(`txHashes ${hashes}, not the bid's ${hash}`);
    for (const [field, want] of [
      ["bidAmount", bid.amount],
      ["blockNumber", bid.blockNumber],
      ["decayStartTimestamp", bid.decayStartTimestamp],
      ["decayEndTimestamp", bid.decayEndTimestamp],
    ])
      if (String(c[field]) !== String(want)) p.push(`${field} ${c[field]}, not the bid's ${want}`);
    const d = bare(c.commitmentDigest || "");
    if (digestsSeen[d] !== undefined && digestsSeen[d] !== `${hash}/${provider}`)
      p.push(`commitmentDigest ${d} also answered another bid or provider (${digestsSeen[d]})`);
    digestsSeen[d] = `${hash}/${provider}`;
    return p;
  });
}

function judgeLevel(k, records) {
  const tags = { level: String(k) };
  let told = 0;
  const tell = (line) => {
    if (told++ < SHOWN) console.error(`gate, ${k} in flight: ${line}`);
  };
  for (const rec of records) {
    const n = rec.commitments.length;
    const problems = commitmentProblems(rec);
    const bad = problems.filter((p) => p.length > 0).length;
    gateBids.add(1, tags);
    perBid.add(n, tags);
    shortBids.add(n < ACCEPTING ? 1 : 0, tags);
    unverified.add(bad, tags);
    bidErrors.add(rec.error ? 1 : 0, tags);
    check(
      rec,
      {
        "one commitment from each accepting provider": () => n === ACCEPTING,
        "every commitment verifies": () => bad === 0,
        "the bid's stream ended without an error": () => !rec.error,
      },
      tags,
    );
    const hash = rec.bid.txHashes[0].slice(0, 12);
    if (n !== ACCEPTING) tell(`bid ${hash}…: ${n} of ${ACCEPTING} commitments (every provider accepts every bid)`);
    if (rec.error) tell(`bid ${hash}…: ${rec.error}`);
    problems.forEach((p, j) => {
      if (p.length) tell(`bid ${hash}…, commitment ${j + 1}: ${p.join("; ")}`);
    });
  }
  if (told > SHOWN) console.error(`gate, ${k} in flight: … ${told - SHOWN} more`);
}

// ---- the gate ------------------------------------------------------------------------------------------------------
/** Untimed bids until one gets a commitment from every accepting provider (the applications attached), at most 30 s. */
function warmUp(then) {
  const deadline = Date.now() + 30000;
  const once = () =>
    sendBid((rec) => {
      if (rec.commitments.length === ACCEPTING || Date.now() > deadline) then();
      else setTimeout(once, 500);
    });
  once();
}

/** Level `i`: `k` bids in flight until BIDS have ended (a new one as each ends), judged, then the next level. */
function runLevel(i, done) {
  if (i >= LEVELS.length) return done();
  const k = LEVELS[i];
  const tags = { level: String(k) };
  const records = [];
  const t0 = Date.now();
  let launched = 0;
  let running = 0;
  const launch = () => {
    launched++;
    running++;
    inFlight.add(running, tags);
    sendBid((rec) => {
      running--;
      records.push(rec);
      if (launched < BIDS) launch();
      else if (records.length === BIDS) {
        levelMs[k].add(Date.now() - t0);
        judgeLevel(k, records);
        runLevel(i + 1, done);
      }
    });
  };
  while (launched < k) launch();
}

export function gate() {
  if (bidderClient) connect(bidderClient, target.bidderRpcUrl);
  attachProviders();
  sleep(1);
  warmUp(() =>
    runLevel(0, () => {
      detachProviders();
      if (bidderClient) bidderClient.close();
    }),
  );
}

// ---- summary -------------------------------------------------------------------------------------------------------
export function handleSummary(data) {
  const m = (name, stat) => {
    const x = data.metrics[name];
    return x && x.values[stat] !== undefined ? x.values[stat] : null;
  };
  const held = (name) => {
    const x = data.metrics[name];
    return !!x && Object.values(x.thresholds || {}).every((t) => t.ok);
  };
  const levels = LEVELS.map((k) => {
    const sub = (name) => `${name}{level:${k}}`;
    const names = [
      "gate_bids",
      "in_flight",
      "commitments_per_bid",
      "short_bids",
      "unverified_commitments",
      "bid_errors",
      "checks",
    ];
    const bids = m(sub("gate_bids"), "count") || 0;
    return {
      inFlight: k,
      maxInFlight: m(sub("in_flight"), "max"),
      bids,
      commitments: Math.round((m(sub("commitments_per_bid"), "avg") || 0) * bids),
      commitmentsPerBid: m(sub("commitments_per_bid"), "avg"),
      fewestCommitments: m(sub("commitments_per_bid"), "min"),
      shortBids: m(sub("short_bids"), "count") || 0,
      unverifiedCommitments: m(sub("unverified_commitments"), "count") || 0,
      bidErrors: m(sub("bid_errors"), "count") || 0,
      checks: { passed: m(sub("checks"), "passes") || 0, failed: m(sub("checks"), "fails") || 0 },
      durationMs: m(`gate_level_${k}_ms`, "value"),
      passed: names.every((n) => held(sub(n))),
    };
  });
  const summary = {
    profile: "gate",
    bidderTransport: TRANSPORT,
    providers: providerAddresses.length,
    acceptingProviders: ACCEPTING,
    providerApplications: PROVIDER_VUS ? "k6" : "the target's own",
    bidsPerLevel: BIDS,
    durationS: data.state.testRunDurationMs / 1000,
    levels,
    thresholdsPassed: Object.values(data.metrics).every(
      (x) => !x.thresholds || Object.values(x.thresholds).every((t) => t.ok),
    ),
  };
  const f = (x, d = 2) => (x === null || x === undefined ? "-" : Number(x).toFixed(d));
  const text = [
    "",
    `load gate: bidders over ${TRANSPORT}, ${ACCEPTING} accepting providers (${summary.providerApplications} applications), ${BIDS} bids per level, ${f(summary.durationS, 1)} s`,
    "  in flight  bids  commitments/bid  short  unverified  errors  verdict",
    ...levels.map(
      (l) =>
        `  ${String(l.inFlight).padStart(9)}  ${String(l.bids).padStart(4)}  ${f(l.commitmentsPerBid).padStart(15)}  ${String(l.shortBids).padStart(5)}  ${String(l.unverifiedCommitments).padStart(10)}  ${String(l.bidErrors).padStart(6)}  ${l.passed ? "passed" : "FAILED"}`,
    ),
    `  summary    ${REPORT}`,
    "",
  ].join("\n");
  return { stdout: text, [REPORT]: `${JSON.stringify(summary, null, 2)}\n` };
}
