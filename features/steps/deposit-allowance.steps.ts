/**
 * Steps of features/deposit-allowance.feature, in raw HTTP: the scenario plays both provider applications
 * (ReceiveBids streams on provider nodes 1 and 2, rejecting each bid through SendProcessedBids) and the bidder's
 * user (SendBid), and checks which bids reach the provider applications.
 */

import { expect } from "bun:test";
import { Given, Then, When } from "@cucumber/cucumber";
import { finished } from "../support/bids.ts";
import { chainOf, freshWindowsAhead } from "../support/chain.ts";
import type { MessageStream, ProviderApi } from "../support/clients/api.ts";
import { ATTACH_GRACE_MS, decisionDelivered } from "../support/clients/providerApp.ts";
import { observationAttachment } from "../support/observations.ts";
import type { ConformanceWorld } from "../support/world.ts";

/** How long the allowance scenario keeps retrying a bid that the provider nodes may refuse until they saw the deposit. */
const REACH_DEADLINE_MS = 10_000;

interface ReceivedBid {
  txHashes: string[];
  bidAmount: string;
  blockNumber: string;
  bidDigest: string;
}

type StreamLine<T> = { result: T } | { error: { code: number; message: string } };

/** One provider node's ReceiveBids stream, read one line at a time without ever losing a line in flight. */
class Receiver {
  private index = 0;

  constructor(
    readonly provider: number,
    readonly api: ProviderApi,
    private readonly stream: MessageStream,
  ) {}

  /** The next line (undefined at the end); the same line until it is taken. */
  next(): Promise<StreamLine<ReceivedBid> | undefined> {
    return this.stream.lineAt(this.index) as Promise<StreamLine<ReceivedBid> | undefined>;
  }

  take(): void {
    this.index++;
  }

  close(): void {
    this.stream.close();
  }
}

interface BidRun {
  amount: bigint;
  block: bigint;
  txHash: string;
  /** The stream was answered as a success (HTTP 200 / gRPC status OK). */
  ok: boolean;
  lines: StreamLine<unknown>[];
  /** Providers whose application received this bid while it was in flight. */
  receivedBy: number[];
}

interface AllowanceScenario {
  receivers: Receiver[];
  blocks: Map<string, bigint>;
  amounts: Map<string, bigint>;
  last?: BidRun;
}

const scenarios = new WeakMap<object, AllowanceScenario>();

function scenario(world: ConformanceWorld): AllowanceScenario {
  let s = scenarios.get(world);
  if (!s) scenarios.set(world, (s = { receivers: [], blocks: new Map(), amounts: new Map() }));
  return s;
}

function named<T>(map: Map<string, T>, name: string, what: string): T {
  const v = map.get(name);
  if (v === undefined) throw new Error(`${what} ${name} is not bound in this scenario`);
  return v;
}

function randomTxHash(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Rejects a received bid through SendProcessedBids (200 `{}`, or upstream's 500 "EOF" after applying it). */
async function reject(r: Receiver, bid: ReceivedBid): Promise<void> {
  const res = await r.api.sendProcessedBids(JSON.stringify({ bidDigest: bid.bidDigest, status: "STATUS_REJECTED" }));
  if (res.error && !decisionDelivered(res.http?.status ?? 500, res.http?.json ?? res.error))
    throw new Error(`provider ${r.provider}: send_processed_bids (reject): ${res.describe()}`);
}

function describeLine(line: StreamLine<ReceivedBid> | undefined): string {
  return line === undefined ? "the end of the stream" : JSON.stringify(line);
}

/**
 * Sends one bid and follows it to the end of its stream. Every bid a provider application receives meanwhile must
 * be this one; it is rejected at once. (A provider node that forwards a bid waits for the decision, so the bid
 * stream cannot end before the forwarded bid has shown on that node's ReceiveBids stream.)
 */
async function runBid(world: ConformanceWorld, amount: bigint, block: bigint): Promise<BidRun> {
  const s = scenario(world);
  const txHash = randomTxHash();
  const now = BigInt(Date.now());
  const body = {
    txHashes: [txHash],
    amount: amount.toString(),
    blockNumber: block.toString(),
    decayStartTimestamp: now.toString(),
    decayEndTimestamp: (now + 60_000n).toString(),
  };
  const bid = finished(world.bidder.sendBid(JSON.stringify(body)), world.target.bidTimeoutMs).then((st) => ({
    ok: st.ok,
    lines: st.lines as StreamLine<unknown>[],
  }));
  const run: BidRun = { amount, block, txHash, ok: false, lines: [], receivedBy: [] };
  type Event =
    | { kind: "bid"; ok: boolean; lines: StreamLine<unknown>[] }
    | { kind: "line"; r: Receiver; line: StreamLine<ReceivedBid> | undefined };
  for (;;) {
    const ev: Event = await Promise.race<Event>([
      bid.then((b) => ({ kind: "bid" as const, ...b })),
      ...s.receivers.map((r) => r.next().then((line) => ({ kind: "line" as const, r, line }))),
    ]);
    if (ev.kind === "bid") {
      run.ok = ev.ok;
      run.lines = ev.lines;
      return run;
    }
    ev.r.take();
    const line = ev.line;
    if (line === undefined || "error" in line)
      throw new Error(`provider ${ev.r.provider}: ReceiveBids gave ${describeLine(line)} while a bid was in flight`);
    if (line.result.txHashes?.[0] !== txHash)
      throw new Error(
        `provider ${ev.r.provider} received a bid other than the one in flight (${txHash}): ${describeLine(line)}`,
      );
    expect(
      { bidAmount: line.result.bidAmount, blockNumber: line.result.blockNumber },
      `provider ${ev.r.provider}: the received bid`,
    ).toEqual({
      bidAmount: amount.toString(),
      blockNumber: block.toString(),
    });
    run.receivedBy.push(ev.r.provider);
    await reject(ev.r, line.result);
  }
}

function expectNoCommitment(run: BidRun): void {
  expect(
    { ok: run.ok, lines: run.lines },
    `bid of ${run.amount} wei for block ${run.block}: the bid stream (every provider application rejected or never saw it)`,
  ).toEqual({ ok: true, lines: [] });
}

Given("provider 1 and provider 2 are receiving bids", async function (this: ConformanceWorld) {
  const s = scenario(this);
  this.onTeardown("the receivers", async () => {
    for (const r of s.receivers) r.close();
  });
  for (const provider of [1, 2]) {
    const api = this.provider(provider);
    const stream = api.receiveBids();
    s.receivers.push(new Receiver(provider, api, stream));
    // A node that sends ReceiveBids' headers at once is attached then; one that holds them back, after a grace period.
    if ((await stream.head(ATTACH_GRACE_MS)) && !stream.ok) {
      await stream.done;
      throw new Error(`provider ${provider}: receive_bids answered ${stream.describe(400)}`);
    }
  }
});

Given("block {word} is the first block of a fresh window", async function (this: ConformanceWorld, name: string) {
  const window = await freshWindowsAhead(chainOf(this.target), 1);
  const first = (window - 1n) * 10n + 1n;
  scenario(this).blocks.set(name, first);
  this.attach(`block ${name} = ${first} (window ${window})`);
});

Given("block {word} is the block after {word}", function (this: ConformanceWorld, name: string, before: string) {
  const s = scenario(this);
  const block = named(s.blocks, before, "block") + 1n;
  s.blocks.set(name, block);
  this.attach(`block ${name} = ${block}`);
});

/** Deposits into the window of `block`; returns the bidder's total there (checked against BidderRegistry). */
async function depositInto(world: ConformanceWorld, amount: bigint, block: bigint): Promise<bigint> {
  const r = await world.bidder.deposit(amount, { blockNumber: block });
  if (r.error) throw new Error(`deposit of ${amount} wei into the window of block ${block}: ${r.describe()}`);
  const body = r.value as { amount: string; windowNumber: string };
  const window = (block - 1n) / 10n + 1n;
  expect(body.windowNumber, `deposit answer: ${r.describe()}`).toBe(window.toString());
  const total = BigInt(body.amount);
  expect(total, `the deposit answer's total vs BidderRegistry.getDeposit(bidder, ${window})`).toBe(
    await chainOf(world.target).getDeposit(window),
  );
  return total;
}

Given(
  "the bidder has deposited {ethAmount} into the window of block {word}, its total there noted as {word}",
  async function (this: ConformanceWorld, amount: bigint, blockName: string, totalName: string) {
    const s = scenario(this);
    const block = named(s.blocks, blockName, "block");
    const total = await depositInto(this, amount, block);
    s.amounts.set(totalName, total);
    this.attach(`${totalName} = ${total} wei (window ${(block - 1n) / 10n + 1n})`);
  },
);

Then(
  /^a bid of ([A-Z])\/10 for block ([A-Z]) reaches provider 1 and provider 2, which reject it$/,
  async function (this: ConformanceWorld, totalName: string, blockName: string) {
    const s = scenario(this);
    const amount = named(s.amounts, totalName, "amount") / 10n;
    const block = named(s.blocks, blockName, "block");
    // A provider node may refuse until it has seen the deposit; each attempt is a new bid.
    const reached = new Set<number>();
    const deadline = Date.now() + REACH_DEADLINE_MS;
    let attempts = 0;
    while (reached.size < 2) {
      if (Date.now() > deadline)
        throw new Error(
          `after ${attempts} bids of ${amount} wei for block ${block} in ${REACH_DEADLINE_MS} ms, only providers [${[...reached]}] received one`,
        );
      const run = await runBid(this, amount, block);
      attempts++;
      expectNoCommitment(run);
      for (const p of run.receivedBy) reached.add(p);
    }
  },
);

When(
  /^the bidder bids ([A-Z])\/10 \+ (\d+) wei for block ([A-Z])$/,
  async function (this: ConformanceWorld, totalName: string, extra: string, blockName: string) {
    const s = scenario(this);
    s.last = await runBid(
      this,
      named(s.amounts, totalName, "amount") / 10n + BigInt(extra),
      named(s.blocks, blockName, "block"),
    );
  },
);

Then("the stream of that bid ends with HTTP 200 and no commitment line", function (this: ConformanceWorld) {
  const run = scenario(this).last;
  if (!run) throw new Error("no bid was sent in this scenario");
  expectNoCommitment(run);
});

Then(
  /^no provider received that bid, as the next bid each provider receives is a following bid of ([A-Z])\/10 for block ([A-Z])$/,
  async function (this: ConformanceWorld, totalName: string, blockName: string) {
    const s = scenario(this);
    const refused = s.last;
    if (!refused) throw new Error("no bid was sent in this scenario");
    expect(
      refused.receivedBy,
      `providers whose application received the bid of ${refused.amount} wei while it was in flight`,
    ).toEqual([]);
    // A bid the node forwarded would sit on its stream before the marker: runBid fails on any other bid.
    const marker = await runBid(this, named(s.amounts, totalName, "amount") / 10n, named(s.blocks, blockName, "block"));
    expectNoCommitment(marker);
    expect([...marker.receivedBy].sort(), "providers whose application received the following bid").toEqual([1, 2]);
  },
);

Then(
  /^(\d+) times, a bid of a tenth of a fresh window's deposit \+ 1 wei for its first block, sent right after the deposit, ends with HTTP 200 and no commitment, any provider that received it reported$/,
  async function (this: ConformanceWorld, times: string) {
    for (let i = 1; i <= Number(times); i++) {
      const window = await freshWindowsAhead(chainOf(this.target), 1);
      const block = (window - 1n) * 10n + 1n;
      const total = await depositInto(this, 10n ** 18n, block);
      const run = await runBid(this, total / 10n + 1n, block);
      expectNoCommitment(run);
      for (const provider of [1, 2]) {
        const observed = run.receivedBy.includes(provider);
        const detail = `try ${i}, block ${block}: provider ${provider}'s application ${observed ? "received" : "did not receive"} the bid of ${total / 10n + 1n} wei (a tenth of ${total} + 1)`;
        this.attach(
          observationAttachment({ what: "Provider's first allowance check of a block", observed, detail }),
          "text/plain",
        );
      }
    }
  },
);
