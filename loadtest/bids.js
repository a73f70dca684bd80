// k6 load profile: SendBid against a bidder node. Run through `npm run load` (which starts a devnet, or uses
// TARGET=file), or directly: k6 run -e TARGET=path/to/target.json -e BLOCK=<l1 block> -e PROFILE=steady bids.js
import http from "k6/http";
import { check } from "k6";
import { Counter, Trend } from "k6/metrics";

const target = JSON.parse(open(__ENV.TARGET));
const block = __ENV.BLOCK;
const profile = __ENV.PROFILE || "steady";
const rate = Number(__ENV.RATE || 50);
const duration = __ENV.DURATION || "20s";

const profiles = {
  smoke: { executor: "shared-iterations", vus: 2, iterations: 20, maxDuration: "30s" },
  steady: { executor: "constant-arrival-rate", rate, timeUnit: "1s", duration, preAllocatedVUs: 20, maxVUs: 200 },
  ramp: {
    executor: "ramping-arrival-rate",
    startRate: 10,
    timeUnit: "1s",
    preAllocatedVUs: 20,
    maxVUs: 300,
    stages: [
      { target: rate, duration: "10s" },
      { target: rate * 2, duration: duration },
      { target: 0, duration: "5s" },
    ],
  },
};

if (!profiles[profile]) throw new Error(`unknown PROFILE ${profile}: smoke, steady or ramp`);
// No thresholds: a load run measures and prints; it never fails on speed.
export const options = { scenarios: { bids: profiles[profile] }, summaryTrendStats: ["avg", "p(50)", "p(99)", "max"] };

const commitments = new Counter("commitments");
const streamErrors = new Counter("stream_errors");
const perBid = new Trend("commitments_per_bid");

function hash(n) {
  let h = "";
  for (let i = 0; i < 64; i++) h += "0123456789abcdef"[Math.floor(Math.random() * 16)];
  return h;
}

export default function () {
  const now = Date.now();
  const body = JSON.stringify({
    txHashes: [hash()],
    amount: "1000",
    blockNumber: block,
    decayStartTimestamp: String(now),
    decayEndTimestamp: String(now + 12000),
  });
  const res = http.post(`${target.bidderUrl}/v1/bidder/bid`, body, { headers: { "content-type": "application/json" }, timeout: "60s" });
  const lines = (res.body || "").split("\n").filter((l) => l.trim() !== "");
  let n = 0;
  for (const l of lines) {
    const m = JSON.parse(l);
    if (m.result) n++;
    else streamErrors.add(1);
  }
  commitments.add(n);
  perBid.add(n);
  check(res, { "status 200": (r) => r.status === 200, "one commitment per provider": () => n === target.providerUrls.length });
}
