/**
 * Steps of the bid → commitment features (bidding, bid-validation, provider). Scenario state lives in
 * features/support/bids.ts; signatures are recovered with viem (secp256k1, v = 27/28), independently of the node.
 * cucumber-js turns a regex group written (\d+) into a number: steps convert with Number() / String().
 */

import { expect } from "bun:test";
import { type DataTable, Given, Then, When } from "@cucumber/cucumber";
import { keccak256, parseEther, parseGwei, recoverAddress } from "viem";
import {
  amountOf,
  type BidOutcome,
  type BidScenario,
  BidSuiteError,
  bidsOf,
  RECEIVE_WAIT_MS,
  type SentBid,
  type WireCommitment,
} from "../support/bids.ts";
import type { Unary } from "../support/clients/api.ts";
import { NotAMessageError } from "../support/clients/grpc.ts";
import {
  acceptAfter,
  acceptAll,
  acceptWithDispatch,
  neverAnswer,
  type ReceivedBid,
  rejectAll,
} from "../support/clients/providerApp.ts";
import { SKIPPED_PREFIX } from "../support/health.ts";
import { stableText } from "../support/protocol.ts";
import { emptySlashAmount } from "../support/protocolRules.ts";
import type { ConformanceWorld } from "../support/world.ts";

// ------------------------------------------------------------------------------------------- helpers

const COMMITMENT_FIELDS = [
  "txHashes",
  "bidAmount",
  "blockNumber",
  "receivedBidDigest",
  "receivedBidSignature",
  "commitmentDigest",
  "commitmentSignature",
  "providerAddress",
  "decayStartTimestamp",
  "decayEndTimestamp",
  "dispatchTimestamp",
  "revertingTxHashes",
  "slashAmount",
];

const HASH = /^[0-9a-f]{64}$/;
const SIGNATURE = /^[0-9a-f]{128}(1b|1c)$/;
const ADDRESS = /^[0-9a-f]{40}$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;

const noHex = (a: string) => a.toLowerCase().replace(/^0x/, "");
const hexToBase64 = (hex: string) => Buffer.from(hex, "hex").toString("base64");
const base64ToHex = (b64: string) => Buffer.from(b64, "base64").toString("hex");

function show(o: BidOutcome): string {
  return o.describe(2000);
}

/** The signer of a 32-byte digest (hex without 0x) under a 65-byte signature with v = 27/28 (hex without 0x). */
async function signerOf(digest: string, signature: string): Promise<string> {
  return noHex(await recoverAddress({ hash: `0x${digest}`, signature: `0x${signature}` }));
}

function lastBid(s: BidScenario): SentBid {
  const b = s.bids.at(-1);
  if (!b) throw new BidSuiteError("the scenario sent no bid yet");
  return b;
}

/** The outcome of the bid the commitment steps look at. */
function current(s: BidScenario): { bid: SentBid; outcome: BidOutcome } {
  const bid = s.current ?? lastBid(s);
  if (!bid.settled)
    throw new BidSuiteError(`bid ${bid.index} has not ended yet (say "Then bid ${bid.index} ends with …" first)`);
  return { bid, outcome: bid.settled };
}

function commitments(s: BidScenario): WireCommitment[] {
  return current(s).outcome.lines.map((l) => (l as { result: WireCommitment }).result);
}

/** The 1-based index of the provider whose address a commitment names. */
function providerIndexOf(world: ConformanceWorld, address: string): number {
  const i = world.target.providerAddresses.findIndex((a) => noHex(a) === noHex(address));
  if (i < 0)
    throw new BidSuiteError(
      `providerAddress ${address} is none of the target's providers (${world.target.providerAddresses.join(", ")})`,
    );
  return i + 1;
}

/** Awaits a bid's end and checks it ended as a stream of exactly `n` commitments and nothing else. */
async function expectCommitments(s: BidScenario, bid: SentBid, n: number): Promise<void> {
  const o = await bid.outcome;
  s.current = bid;
  // Judged by its messages: a stream that ends with none may come without a content type (upstream's does).
  expect(o.ok, `bid ${bid.index}: expected ${o.transport === "http" ? "HTTP 200" : "status OK"}, got ${show(o)}`).toBe(
    true,
  );
  const bad = o.lines.filter((l) => typeof l !== "object" || l === null || Object.keys(l).join() !== "result");
  expect(bad, `bid ${bid.index}: every stream line must be {"result":…}; ${show(o)}`).toEqual([]);
  expect(o.lines.length, `bid ${bid.index}: number of commitments; ${show(o)}`).toBe(n);
}

function parseCount(word: string): number {
  return word === "no" ? 0 : Number(word);
}

async function expectedJson(s: BidScenario, text: string): Promise<unknown> {
  const t = await s.substitute(text.trim());
  try {
    return JSON.parse(t);
  } catch {
    throw new BidSuiteError(`the expected value is not JSON: ${t}`);
  }
}

/** The bid a provider's applications received for the current bid (matched by amount). */
function receivedByProvider(s: BidScenario, provider: number): ReceivedBid {
  const { bid } = current(s);
  const amount = String(bid.body?.amount);
  const apps = s.appsOf(provider);
  if (!apps.length) throw new BidSuiteError(`provider ${provider} runs no application in this scenario`);
  const found = apps.flatMap((a) => a.received).filter((r) => amountOf(r) === amount);
  if (found.length !== 1)
    throw new BidSuiteError(
      `provider ${provider}'s applications received ${found.length} bids of amount ${amount}, expected 1`,
    );
  return found[0]!;
}

/** A bid body from the valid one of bid-validation.feature, changed by a JSON object (null removes a field). */
async function changedBid(s: BidScenario, changeText: string): Promise<string> {
  const base: Record<string, unknown> = {
    txHashes: ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"],
    amount: "1000",
    blockNumber: "$BLOCK",
    decayStartTimestamp: "$DECAY_START",
    decayEndTimestamp: "$DECAY_END",
  };
  const change = (await expectedJson(s, changeText)) as Record<string, unknown>;
  for (const [k, v] of Object.entries(change)) {
    if (v === null) delete base[k];
    else base[k] = v;
  }
  return s.substitute(JSON.stringify(base));
}

function defaultBid(amount: string, block = "$BLOCK"): string {
  return JSON.stringify({
    txHashes: ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"],
    amount,
    blockNumber: block,
    decayStartTimestamp: "$DECAY_START",
    decayEndTimestamp: "$DECAY_END",
  });
}

/** Checks a gRPC status body. `\n` written in a step's text (outside an Examples table) stands for a newline. */
function expectStatusBody(body: unknown, code: number, message: string, where: string): void {
  const b = body as { message?: unknown };
  const normal =
    b && typeof b === "object" && typeof b.message === "string" ? { ...b, message: stableText(b.message) } : body;
  expect(normal, where).toEqual({ code, message: stableText(message.replaceAll("\\n", "\n")), details: [] });
}

// ------------------------------------------------------------------------------------------- Given

Given(
  /^the bidder has (\d+) (ETH|gwei|wei) deposited for a fresh block range$/,
  async function (this: ConformanceWorld, n: string, unit: string) {
    const wei = unit === "ETH" ? parseEther(String(n)) : unit === "gwei" ? parseGwei(String(n)) : BigInt(n);
    await bidsOf(this).depositForFreshBlocks(wei);
  },
);

Given(
  /^provider (\d+) runs a provider application that (accepts every bid|rejects every bid|never answers|accepts with dispatch time decay start \+ \d+ ms|accepts (?:\d+) ms after the decision timeout)$/,
  async function (this: ConformanceWorld, provider: string, what: string) {
    const offset = /\+ (\d+) ms$/.exec(what)?.[1];
    const late = /^accepts (\d+) ms after the decision timeout$/.exec(what)?.[1];
    const policy = late
      ? acceptAfter(this.target.decisionTimeoutMs + Number(late))
      : what === "accepts every bid"
        ? acceptAll()
        : what === "rejects every bid"
          ? rejectAll()
          : what === "never answers"
            ? neverAnswer()
            : acceptWithDispatch((b) => BigInt(b.decayStartTimestamp) + BigInt(offset!));
    await bidsOf(this).attach(Number(provider), policy);
  },
);

Given(
  /^provider (\d+) runs (\d+) provider applications that accept every bid$/,
  async function (this: ConformanceWorld, provider: string, n: string) {
    for (let i = 0; i < Number(n); i++) await bidsOf(this).attach(Number(provider), acceptAll());
  },
);

Given("every provider node has left the network", async function (this: ConformanceWorld) {
  const s = bidsOf(this);
  for (let i = 0; i < this.target.providerUrls.length; i++) await s.stopProvider(i);
});

// ------------------------------------------------------------------------------------------- When: bids

When("the bidder sends the bid:", async function (this: ConformanceWorld, doc: string) {
  const s = bidsOf(this);
  s.current = s.send(await s.substitute(doc));
  await s.current.outcome;
});

When(
  "the bidder sends the bid with content type {string}:",
  async function (this: ConformanceWorld, contentType: string, doc: string) {
    const http = this.httpOnly("a request content type");
    if (http) return http;
    const s = bidsOf(this);
    s.current = s.send(await s.substitute(doc), contentType);
    await s.current.outcome;
  },
);

When(/^the bidder sends a bid of (\d+) wei$/, async function (this: ConformanceWorld, amount: string) {
  const s = bidsOf(this);
  s.current = s.send(await s.substitute(defaultBid(String(amount))));
  await s.current.outcome;
});

// After a provider node restarted, until it is back in the bidder's network: each try is a bid of its own (its own
// transaction hash), so none of them is a repeat the target could treat apart.
When(
  /^the bidder sends bids of (\d+) wei for block \$BLOCK\+(\d+), a new one every 500 ms, until provider (\d+) commits to one \(at most (\d+) s\)$/,
  async function (this: ConformanceWorld, amount: string, plus: string, provider: string, seconds: string) {
    const s = bidsOf(this);
    const deadline = performance.now() + Number(seconds) * 1000;
    for (let attempt = 1; ; attempt++) {
      const body = JSON.parse(defaultBid(String(amount), `$BLOCK+${plus}`)) as Record<string, unknown>;
      body.txHashes = [keccak256(new TextEncoder().encode(`until provider ${provider} commits: ${attempt}`)).slice(2)];
      const bid = s.send(await s.substitute(JSON.stringify(body)));
      s.current = bid;
      const o = await bid.outcome;
      const from = o.lines.flatMap((l) => {
        const c = (l as { result?: WireCommitment }).result;
        return c ? [providerIndexOf(this, c.providerAddress)] : [];
      });
      if (from.includes(Number(provider))) return;
      if (performance.now() > deadline)
        throw new BidSuiteError(
          `provider ${provider} committed to none of ${attempt} bids in ${seconds} s; the last: ${show(o)}`,
        );
      await new Promise((r) => setTimeout(r, 500));
    }
  },
);

When(
  /^the bidder sends (\d+) bids of (\d+) to (\d+) wei, one after another$/,
  async function (this: ConformanceWorld, n: string, from: string, to: string) {
    const s = bidsOf(this);
    if (Number(to) - Number(from) + 1 !== Number(n)) throw new BidSuiteError(`${from} to ${to} is not ${n} amounts`);
    for (let a = Number(from); a <= Number(to); a++) await s.send(await s.substitute(defaultBid(String(a)))).outcome;
  },
);

When(/^the bidder starts a bid of (\d+) wei$/, async function (this: ConformanceWorld, amount: string) {
  const s = bidsOf(this);
  s.send(await s.substitute(defaultBid(String(amount))));
});

When(/^the bidder sends a valid bid changed by (.*)$/, async function (this: ConformanceWorld, change: string) {
  const s = bidsOf(this);
  s.current = s.send(await changedBid(s, change));
  await s.current.outcome;
});

When(/^the bidder is sent the body '(.*)'$/, async function (this: ConformanceWorld, body: string) {
  const http = this.httpOnly("a raw request body");
  if (http) return http;
  const s = bidsOf(this);
  s.current = s.send(body);
  await s.current.outcome;
});

When("the bidder is sent these bodies, one after another:", async function (this: ConformanceWorld, table: DataTable) {
  const s = bidsOf(this);
  for (const row of table.hashes()) {
    try {
      await s.send(row.body!).outcome;
    } catch (e) {
      // Over gRPC a body that is not a Bid message cannot be sent at all (the gateway's JSON refusals are HTTP's).
      if (!(e instanceof NotAMessageError)) throw e;
      this.log(`not sent over gRPC: ${row.body} (${e.message})`);
    }
  }
});

// ------------------------------------------------------------------------------------------- When: decisions

When(
  /^provider (\d+)'s application has received (\d+) bids?$/,
  async function (this: ConformanceWorld, provider: string, n: string) {
    const apps = bidsOf(this).appsOf(Number(provider));
    if (apps.length !== 1)
      throw new BidSuiteError(`provider ${provider} runs ${apps.length} applications; this step needs exactly one`);
    await apps[0]!.waitForBids(Number(n), RECEIVE_WAIT_MS);
  },
);

const decisionsOf = new WeakMap<BidScenario, Unary[]>();

async function postDecisions(world: ConformanceWorld, provider: number, body: string): Promise<"skipped" | undefined> {
  const s = bidsOf(world);
  let r: Unary;
  try {
    r = await world.provider(provider).sendProcessedBids(body);
  } catch (e) {
    // Over gRPC a body that is not a sequence of BidResponse messages cannot be sent (the gateway refuses it as JSON).
    if (e instanceof NotAMessageError)
      return world.httpOnly(`a decision body that is not a BidResponse (${e.message})`);
    throw e;
  }
  const list = decisionsOf.get(s) ?? [];
  list.push(r);
  decisionsOf.set(s, list);
}

async function decisionObjects(s: BidScenario, table: DataTable): Promise<string[]> {
  const out: string[] = [];
  for (const row of table.hashes()) {
    const d: Record<string, string> = { bidDigest: s.receivedBid(Number(row.bid)).bidDigest, status: row.status! };
    if (row.dispatchTimestamp) d.dispatchTimestamp = await s.substitute(row.dispatchTimestamp);
    out.push(JSON.stringify(d));
  }
  return out;
}

When(
  /^provider (\d+)'s application sends these decisions in one request, as (NDJSON|concatenated JSON):$/,
  async function (this: ConformanceWorld, provider: string, framing: string, table: DataTable) {
    const objects = await decisionObjects(bidsOf(this), table);
    return postDecisions(this, Number(provider), framing === "NDJSON" ? `${objects.join("\n")}\n` : objects.join(""));
  },
);

When(
  /^provider (\d+)'s application sends these decisions, one request each:$/,
  async function (this: ConformanceWorld, provider: string, table: DataTable) {
    for (const o of await decisionObjects(bidsOf(this), table)) {
      const skipped = await postDecisions(this, Number(provider), o);
      if (skipped) return skipped;
    }
  },
);

When(
  /^provider (\d+)'s application sends the decision body:$/,
  async function (this: ConformanceWorld, provider: string, doc: string) {
    return postDecisions(this, Number(provider), await bidsOf(this).substitute(doc));
  },
);

Then(
  /^(the|every) decision requests? (?:is|are) answered with HTTP 200 and the body \{\}$/,
  function (this: ConformanceWorld, which: string) {
    const list = decisionsOf.get(bidsOf(this)) ?? [];
    if (!list.length) throw new BidSuiteError("no decision was sent");
    for (const r of which === "the" ? [list.at(-1)!] : list) {
      expect(r.error, r.describe()).toBeUndefined();
      expect(r.value, r.describe()).toEqual({});
    }
  },
);

Then(
  /^the decision request is refused with HTTP (\d+), code (\d+) and the message "(.*)"$/s,
  function (this: ConformanceWorld, status: string, code: string, message: string) {
    const u = (decisionsOf.get(bidsOf(this)) ?? []).at(-1);
    if (!u) throw new BidSuiteError("no decision was sent");
    // Over gRPC the status is the call's: its code and message (the HTTP status is the gateway's mapping of it).
    if (!u.http) return expectStatusBody(u.error, Number(code), message, u.describe());
    const r = u.http;
    expect(r.status, u.describe()).toBe(Number(status));
    expect(r.headers.get("content-type") ?? "").toContain("application/json");
    expectStatusBody(r.json, Number(code), message, u.describe());
  },
);

// ------------------------------------------------------------------------------------------- Then: stream shape

Then(
  /^the bid stream ends with HTTP 200 and (no|\d+) commitments?$/,
  async function (this: ConformanceWorld, n: string) {
    const s = bidsOf(this);
    await expectCommitments(s, s.current ?? lastBid(s), parseCount(n));
  },
);

Then(
  /^bid (\d+) ends with HTTP 200 and (no|\d+) commitments?$/,
  async function (this: ConformanceWorld, i: string, n: string) {
    const s = bidsOf(this);
    await expectCommitments(s, s.bid(Number(i)), parseCount(n));
  },
);

Then(
  /^each bid ended with HTTP 200 and exactly 1 commitment, from provider (\d+)$/,
  async function (this: ConformanceWorld, provider: string) {
    const s = bidsOf(this);
    if (!s.bids.length) throw new BidSuiteError("the scenario sent no bid");
    for (const b of s.bids) {
      await expectCommitments(s, b, 1);
      const c = commitments(s)[0]!;
      expect(providerIndexOf(this, c.providerAddress), `bid ${b.index}: provider of the commitment`).toBe(
        Number(provider),
      );
    }
  },
);

Then(
  /^the bid is refused with HTTP (\d+), code (\d+) and the message "(.*)"$/s,
  async function (this: ConformanceWorld, status: string, code: string, message: string) {
    const s = bidsOf(this);
    const bid = s.current ?? lastBid(s);
    const o = await bid.outcome;
    if (o.transport === "http") {
      expect(o.status, `expected HTTP ${status}; ${show(o)}`).toBe(Number(status));
      expect(o.contentType ?? "", "content type").toContain("application/json");
    }
    expect(o.lines.length, `a refused stream is exactly one {"error":…} line (over gRPC, its status); ${show(o)}`).toBe(
      1,
    );
    const line = o.lines[0] as { error?: unknown };
    expect(Object.keys(line ?? {}), `the line must be the stream error envelope; ${show(o)}`).toEqual(["error"]);
    expectStatusBody(line.error, Number(code), message, `error of the stream; ${show(o)}`);
  },
);

Then(
  /^the request is refused in the unary format with HTTP (\d+), code (\d+) and the message "(.*)"$/s,
  async function (this: ConformanceWorld, status: string, code: string, message: string) {
    const http = this.httpOnly("the gateway's unary error format");
    if (http) return http;
    const s = bidsOf(this);
    const o = await (s.current ?? lastBid(s)).outcome;
    expect(o.status, `expected HTTP ${status}; ${show(o)}`).toBe(Number(status));
    expect(o.contentType ?? "", "content type").toContain("application/json");
    let body: unknown;
    try {
      body = JSON.parse(o.text);
    } catch {
      throw new BidSuiteError(`the body is not one JSON value; ${show(o)}`);
    }
    expectStatusBody(body, Number(code), message, `unary error body (no {"error":…} envelope); ${show(o)}`);
  },
);

Then(
  "every one of them was refused with HTTP {int} and code {int}",
  async function (this: ConformanceWorld, status: number, code: number) {
    const s = bidsOf(this);
    if (!s.bids.length) throw new BidSuiteError("no body was sent");
    for (const b of s.bids) {
      const o = await b.outcome;
      if (o.transport === "grpc") {
        expect(
          o.lines.map((l) => (l as { error?: { code?: number } }).error?.code),
          `body ${b.bodyText}: ${show(o)}`,
        ).toEqual([code]);
        continue;
      }
      expect(o.status, `body ${b.bodyText}: ${show(o)}`).toBe(status);
      const body = JSON.parse(o.text.trim()) as { code?: number; error?: { code?: number } };
      expect(body.error?.code ?? body.code, `body ${b.bodyText}: ${show(o)}`).toBe(code);
    }
  },
);

Then(/^the first commitment arrived within (\d+) ms$/, function (this: ConformanceWorld, ms: string) {
  const { outcome } = current(bidsOf(this));
  if (outcome.firstResultMs === undefined) throw new BidSuiteError("no commitment arrived");
  expect(outcome.firstResultMs, `first commitment after ${outcome.firstResultMs.toFixed(0)} ms`).toBeLessThanOrEqual(
    Number(ms),
  );
});

Then(/^the stream ended no later than the bid timeout plus (\d+) ms$/, function (this: ConformanceWorld, ms: string) {
  const { outcome } = current(bidsOf(this));
  const limit = this.target.bidTimeoutMs + Number(ms);
  expect(
    outcome.endMs!,
    `the stream ended after ${outcome.endMs!.toFixed(0)} ms; the target's bid timeout is ${this.target.bidTimeoutMs} ms (bidTimeoutMs)`,
  ).toBeLessThanOrEqual(limit);
});

// ------------------------------------------------------------------------------------------- Then: commitments

Then(
  /^the commitments? comes? from providers? (\d+(?:(?:, | and )\d+)*)$/,
  function (this: ConformanceWorld, list: string) {
    const expected = list
      .split(/, | and /)
      .map(Number)
      .sort();
    const got = commitments(bidsOf(this))
      .map((c) => providerIndexOf(this, c.providerAddress))
      .sort();
    expect(got, "providers of the commitments (one commitment per provider)").toEqual(expected);
  },
);

Then("every commitment is well-formed", function (this: ConformanceWorld) {
  const problems: string[] = [];
  for (const [i, c] of commitments(bidsOf(this)).entries()) {
    const p = (m: string) => problems.push(`commitment ${i + 1}: ${m}`);
    const keys = Object.keys(c).sort();
    // Protocol v1.2 adds `bidOptions` (field 14, the request's options or null; upstream-head-delta §1.2).
    const fields = this.rules.bidOptions ? [...COMMITMENT_FIELDS, "bidOptions"] : COMMITMENT_FIELDS;
    const missing = fields.filter((f) => !keys.includes(f));
    const extra = keys.filter((k) => !fields.includes(k));
    if (missing.length) p(`missing fields ${missing.join(", ")}`);
    if (extra.length) p(`unexpected fields ${extra.join(", ")}`);
    for (const f of [
      "bidAmount",
      "blockNumber",
      "decayStartTimestamp",
      "decayEndTimestamp",
      "dispatchTimestamp",
      "slashAmount",
    ] as const)
      if (typeof c[f] !== "string" || !DECIMAL.test(c[f]))
        p(`${f} must be a decimal string, got ${JSON.stringify(c[f])}`);
    for (const f of ["receivedBidDigest", "commitmentDigest"] as const)
      if (typeof c[f] !== "string" || !HASH.test(c[f]))
        p(`${f} must be 64 lower-case hex digits without 0x, got ${JSON.stringify(c[f])}`);
    for (const f of ["receivedBidSignature", "commitmentSignature"] as const)
      if (typeof c[f] !== "string" || !SIGNATURE.test(c[f]))
        p(`${f} must be 65 bytes of lower-case hex without 0x ending in v = 1b/1c, got ${JSON.stringify(c[f])}`);
    if (typeof c.providerAddress !== "string" || !ADDRESS.test(c.providerAddress))
      p(`providerAddress must be 40 lower-case hex digits without 0x, got ${JSON.stringify(c.providerAddress)}`);
    for (const f of ["txHashes", "revertingTxHashes"] as const) {
      // [""] for "none given" is a documented upstream defect, judged only by its own scenario.
      const none = f === "revertingTxHashes" && JSON.stringify(c[f]) === '[""]';
      if (!none && (!Array.isArray(c[f]) || !c[f].every((h) => typeof h === "string" && HASH.test(h))))
        p(`${f} must be an array of 64 lower-case hex digits without 0x, got ${JSON.stringify(c[f])}`);
    }
    if (Array.isArray(c.txHashes) && c.txHashes.length === 0) p("txHashes is empty");
  }
  if (problems.length) throw new BidSuiteError(problems.join("\n"));
});

Then("every commitment is signed by the provider it names", async function (this: ConformanceWorld) {
  const cs = commitments(bidsOf(this));
  if (!cs.length) throw new BidSuiteError("there is no commitment to check");
  for (const c of cs) {
    providerIndexOf(this, c.providerAddress);
    let signer: string;
    try {
      signer = await signerOf(c.commitmentDigest, c.commitmentSignature);
    } catch (e) {
      throw new BidSuiteError(
        `commitmentSignature of ${c.providerAddress} does not recover over commitmentDigest: ${(e as Error).message}`,
      );
    }
    expect(signer, `signer of commitmentDigest ${c.commitmentDigest}`).toBe(c.providerAddress);
  }
});

Then(
  "every commitment carries the bidder's signature of the bid the provider applications received",
  async function (this: ConformanceWorld) {
    const s = bidsOf(this);
    const cs = commitments(s);
    if (!cs.length) throw new BidSuiteError("there is no commitment to check");
    const bidder = noHex(this.target.bidderAddress);
    for (const c of cs) {
      let signer: string;
      try {
        signer = await signerOf(c.receivedBidDigest, c.receivedBidSignature);
      } catch (e) {
        throw new BidSuiteError(
          `receivedBidSignature does not recover over receivedBidDigest: ${(e as Error).message}`,
        );
      }
      expect(signer, `signer of receivedBidDigest ${c.receivedBidDigest} (the target's bidder is ${bidder})`).toBe(
        bidder,
      );
      expect(c.receivedBidDigest, "every commitment of one bid names the same bid digest").toBe(
        cs[0]!.receivedBidDigest,
      );
      expect(c.receivedBidSignature, "every commitment of one bid carries the same bid signature").toBe(
        cs[0]!.receivedBidSignature,
      );
      const p = providerIndexOf(this, c.providerAddress);
      const digests = s.appsOf(p).flatMap((a) => a.received.map((r) => base64ToHex(r.bidDigest)));
      expect(
        digests,
        `the bid digests provider ${p}'s application received (ReceiveBids bidDigest, base64 → hex)`,
      ).toContain(c.receivedBidDigest);
    }
  },
);

Then("every commitment echoes the bid's amount, block number and decay timestamps", function (this: ConformanceWorld) {
  const { bid } = current(bidsOf(this));
  const b = bid.body ?? {};
  const pick = (camel: string, snake: string) => String(b[camel] ?? b[snake]);
  for (const c of commitments(bidsOf(this))) {
    expect(c.bidAmount, "bidAmount").toBe(pick("amount", "amount"));
    expect(c.blockNumber, "blockNumber").toBe(pick("blockNumber", "block_number"));
    expect(c.decayStartTimestamp, "decayStartTimestamp").toBe(pick("decayStartTimestamp", "decay_start_timestamp"));
    expect(c.decayEndTimestamp, "decayEndTimestamp").toBe(pick("decayEndTimestamp", "decay_end_timestamp"));
  }
});

// Upstream fills an empty slash_amount with "0" in v1.1 and with the bid's amount in v1.2 (3b59d35d,
// upstream-head-delta §1.4).
Then(
  "the slash amount of every commitment is what a bid without one gets in the target's protocol",
  function (this: ConformanceWorld) {
    const cs = commitments(bidsOf(this));
    if (!cs.length) throw new BidSuiteError("there is no commitment to check");
    for (const c of cs)
      expect(
        c.slashAmount,
        `slashAmount of the commitment of ${c.providerAddress} (protocol ${this.target.protocol})`,
      ).toBe(emptySlashAmount(this.rules, c.bidAmount));
  },
);

Then(
  /^provider (\d+)'s application received the slash amount a bid without one gets in the target's protocol$/,
  async function (this: ConformanceWorld, provider: string) {
    const r = receivedByProvider(bidsOf(this), Number(provider));
    expect(r.slashAmount, `slashAmount on provider ${provider}'s ReceiveBids (protocol ${this.target.protocol})`).toBe(
      emptySlashAmount(this.rules, r.bidAmount),
    );
  },
);

Then(/^every commitment has (\w+) (.+)$/, async function (this: ConformanceWorld, field: string, value: string) {
  const s = bidsOf(this);
  const expected = await expectedJson(s, value);
  const cs = commitments(s);
  if (!cs.length) throw new BidSuiteError("there is no commitment to check");
  for (const c of cs)
    expect(
      (c as unknown as Record<string, unknown>)[field],
      `${field} of the commitment of ${c.providerAddress}`,
    ).toEqual(expected);
});

Then(
  /^the commitment of provider (\d+) has (\w+) (.+)$/,
  async function (this: ConformanceWorld, provider: string, field: string, value: string) {
    const s = bidsOf(this);
    const expected = await expectedJson(s, value);
    const mine = commitments(s).filter((c) => providerIndexOf(this, c.providerAddress) === Number(provider));
    expect(mine.length, `commitments from provider ${provider}`).toBe(1);
    expect(
      (mine[0] as unknown as Record<string, unknown>)[field],
      `${field} of provider ${provider}'s commitment`,
    ).toEqual(expected);
  },
);

Then(
  "every commitment carries the dispatch timestamp its provider application chose",
  function (this: ConformanceWorld) {
    const s = bidsOf(this);
    for (const c of commitments(s)) {
      const p = providerIndexOf(this, c.providerAddress);
      const digest = hexToBase64(c.receivedBidDigest);
      const chosen = s
        .appsOf(p)
        .map((a) => a.chosenDispatch.get(digest))
        .find((d) => d !== undefined);
      if (chosen === undefined) throw new BidSuiteError(`provider ${p}'s application did not accept the bid ${digest}`);
      expect(c.dispatchTimestamp, `dispatchTimestamp of provider ${p}'s commitment`).toBe(chosen.toString());
    }
  },
);

Then("the two commitments have different commitment digests", function (this: ConformanceWorld) {
  const cs = commitments(bidsOf(this));
  expect(cs.length).toBe(2);
  expect(cs[0]!.commitmentDigest).not.toBe(cs[1]!.commitmentDigest);
});

// ------------------------------------------------------------------------------------------- Then: provider applications

Then(
  /^provider (\d+)'s application received (no|\d+) bids?$/,
  async function (this: ConformanceWorld, provider: string, n: string) {
    const s = bidsOf(this);
    // Every bid of the scenario has ended, so every bid a provider node handed on has been read by now.
    await Promise.all(s.bids.map((b) => b.outcome));
    const apps = s.appsOf(Number(provider));
    if (!apps.length) throw new BidSuiteError(`provider ${provider} runs no application in this scenario`);
    const got = apps.flatMap((a) => a.received);
    expect(got.length, `bids provider ${provider}'s application received: ${JSON.stringify(got)}`).toBe(parseCount(n));
  },
);

Then(
  /^provider (\d+)'s application received the bid with (\w+) (.+)$/,
  async function (this: ConformanceWorld, provider: string, field: string, value: string) {
    const s = bidsOf(this);
    const expected = await expectedJson(s, value);
    const r = receivedByProvider(s, Number(provider));
    expect(
      (r as unknown as Record<string, unknown>)[field],
      `${field} on provider ${provider}'s ReceiveBids: ${JSON.stringify(r)}`,
    ).toEqual(expected);
  },
);

Then(
  /^provider (\d+)'s application received the raw transactions (.+) in the order of the bid's txHashes$/,
  async function (this: ConformanceWorld, provider: string, list: string) {
    const s = bidsOf(this);
    const r = receivedByProvider(s, Number(provider));
    const sent = await Promise.all(list.split(/,\s*/).map((p) => s.substitute(p)));
    const raws = r.rawTransactions ?? [];
    expect(raws.length, `rawTransactions on ReceiveBids: ${JSON.stringify(raws)}`).toBe(sent.length);
    expect(r.txHashes.length, "txHashes and rawTransactions have the same length").toBe(raws.length);
    for (const [i, raw] of raws.entries()) {
      expect(noHex(raw), `rawTransactions[${i}] is raw transaction #${i + 1} of the list (compared as bytes)`).toBe(
        noHex(sent[i]!),
      );
      expect(r.txHashes[i], `txHashes[${i}] is keccak256 of rawTransactions[${i}]`).toBe(
        noHex(keccak256(`0x${noHex(raw)}`)),
      );
    }
  },
);

Then(
  /^each bid was received by exactly one of provider (\d+)'s applications$/,
  function (this: ConformanceWorld, provider: string) {
    const s = bidsOf(this);
    const apps = s.appsOf(Number(provider));
    if (apps.length < 2)
      throw new BidSuiteError(`provider ${provider} runs ${apps.length} application(s); this step needs several`);
    for (const b of s.bids) {
      const c = (b.settled!.lines[0] as { result: WireCommitment }).result;
      const digest = hexToBase64(c.receivedBidDigest);
      const holders = apps.filter((a) => a.received.some((r) => r.bidDigest === digest)).map((a) => a.label);
      expect(
        holders.length,
        `bid ${b.index} (${digest}) was received by ${holders.length ? holders.join(" and ") : "none"}`,
      ).toBe(1);
    }
    const total = apps.reduce((n, a) => n + a.received.length, 0);
    expect(total, "bids received by the applications in all").toBe(s.bids.length);
  },
);

Then(
  /^the bid digest provider (\d+)'s application received is the base64 of the commitment's receivedBidDigest$/,
  function (this: ConformanceWorld, provider: string) {
    const s = bidsOf(this);
    const r = receivedByProvider(s, Number(provider));
    const cs = commitments(s);
    expect(cs.length).toBeGreaterThan(0);
    expect(r.bidDigest, "bidDigest on ReceiveBids is standard base64 of 32 bytes").toMatch(/^[A-Za-z0-9+/]{43}=$/);
    for (const c of cs) expect(r.bidDigest).toBe(hexToBase64(c.receivedBidDigest));
  },
);

// ------------------------------------------------------------------------------------------- stream transport

Then("the stream of the bid had the content type {string}", function (this: ConformanceWorld, type: string) {
  const http = this.httpOnly("content type");
  if (http) return http;
  const { outcome } = current(bidsOf(this));
  if (outcome.lines.length === 0)
    throw new BidSuiteError("the stream carried no message, so its content type says nothing");
  expect(outcome.contentType ?? "", `SendBid stream: ${show(outcome)}`).toStartWith(type);
});

Then(
  /^provider (\d+)'s ReceiveBids stream had the content type "([^"]+)"$/,
  function (this: ConformanceWorld, provider: string, type: string) {
    const http = this.httpOnly("content type");
    if (http) return http;
    const apps = bidsOf(this).appsOf(Number(provider));
    const stream = apps.find((a) => a.received.length > 0)?.receiveStream;
    if (!stream)
      throw new BidSuiteError(`no application of provider ${provider} received a bid on its ReceiveBids stream`);
    expect(stream.contentType ?? "", `ReceiveBids stream of provider ${provider}: ${stream.describe(300)}`).toStartWith(
      type,
    );
  },
);

// ------------------------------------------------------------------------------------------- timeouts

Given(
  /^the target's decision timeout is at least (\d+) ms shorter than its bid timeout$/,
  function (this: ConformanceWorld, ms: string) {
    const { bidTimeoutMs, decisionTimeoutMs } = this.target;
    if (bidTimeoutMs - decisionTimeoutMs >= Number(ms)) return;
    this.attach(
      `${SKIPPED_PREFIX}the target's decision timeout (${decisionTimeoutMs} ms) is not ${ms} ms shorter than its bid timeout (${bidTimeoutMs} ms)`,
      "text/plain",
    );
    return "skipped";
  },
);

When(
  /^provider (\d+)'s application has answered every bid it received$/,
  async function (this: ConformanceWorld, provider: string) {
    await Promise.all(
      bidsOf(this)
        .appsOf(Number(provider))
        .map((a) => a.idle()),
    );
  },
);

When(
  /^provider (\d+)'s application accepts every bid from now on$/,
  function (this: ConformanceWorld, provider: string) {
    for (const a of bidsOf(this).appsOf(Number(provider))) a.policy = acceptAll();
  },
);
