/**
 * Steps of features/concurrency.feature: bids in flight at once from one bidder, provider applications that answer
 * whole rounds of bids, and the per-bid checks (features/support/concurrency.ts).
 */
import { Given, Then, When } from "@cucumber/cucumber";
import { concatHex, keccak256, zeroAddress } from "viem";
import type { WireCommitment } from "../support/bids.ts";
import {
  type Acceptance,
  balanceBounds,
  bare,
  type ConcurrencyScenario,
  ConcurrencySuiteError,
  checkCommitments,
  checkReceived,
  concurrencyOf,
  Findings,
  type Framing,
  providerIndex,
} from "../support/concurrency.ts";
import { notificationsOf } from "../support/notifications.ts";
import { observationAttachment } from "../support/observations.ts";
import { providerAddress } from "../support/queries.ts";
import { eventually, settlementChainOf } from "../support/settlement.ts";
import { holdsSlashByte, SLASH_BYTE_DIGEST } from "../support/slashByteDigest.ts";
import type { ConformanceWorld } from "../support/world.ts";

/** Commitments per bid, once a Then step has read them. */
const checked = new WeakMap<ConcurrencyScenario, Map<number, WireCommitment[]>>();

function providersIn(list: string): number[] {
  return list.split(/, | and /).map(Number);
}

/** `first` / `second` in-flight level of the target (bidsInFlight[0] / [1]). */
function level(world: ConformanceWorld, which: string): number {
  const levels = world.target.bidsInFlight;
  const i = which === "first" ? 0 : 1;
  const n = levels[i] ?? levels.at(-1)!;
  world.attach(`${n} bids in flight (bidsInFlight ${JSON.stringify(levels)}), ${world.target.concurrentBids} bids`);
  return n;
}

async function commitmentsChecked(world: ConformanceWorld, f: Findings): Promise<Map<number, WireCommitment[]>> {
  const c = concurrencyOf(world);
  const done = checked.get(c);
  if (done) return done;
  const got = await checkCommitments(world, c, f, (b) => c.acceptingProviders(b.body.txHashes));
  checked.set(c, got);
  return got;
}

/**
 * Where the target reports its nodes' receivers (`sim-nodes`), waits until provider `provider` holds `left` of them,
 * so that no bid of the scenario can go to the stream that just closed; elsewhere the closed connection is the
 * only signal the node gets.
 */
async function receiverLeft(world: ConformanceWorld, provider: number, left: number, timeoutMs = 3_000): Promise<void> {
  if (!world.has("sim-nodes")) return;
  const address = bare(world.target.providerAddresses[provider - 1]!);
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const node = ((await world.control.status()).nodes ?? []).find((n) => bare(n.address ?? "") === address);
    if (node?.receivers === left) return;
    if (performance.now() > deadline)
      throw new ConcurrencySuiteError(
        `provider ${provider}'s node reports ${node?.receivers} receivers ${timeoutMs} ms after one of its ${left + 1} applications closed, expected ${left}`,
      );
    await new Promise((r) => setTimeout(r, 10));
  }
}

// ------------------------------------------------------------------------------------------- Given

Given(
  /^provider (\d+) runs (a|\d+) provider applications? that answers? each round of bids together, accepting (every bid|every second bid|no bid), (one request per decision|one request for the round)$/,
  async function (this: ConformanceWorld, provider: string, count: string, acceptance: string, framing: string) {
    const c = concurrencyOf(this);
    const n = count === "a" ? 1 : Number(count);
    for (let i = 0; i < n; i++) await c.attach(Number(provider), acceptance as Acceptance, framing as Framing, i > 0);
  },
);

Given(
  /^provider (\d+)'s first application closes its ReceiveBids and a new one, deciding with the others, attaches$/,
  async function (this: ConformanceWorld, provider: string) {
    const c = concurrencyOf(this);
    const first = c.apps.find((a) => a.provider === Number(provider));
    if (!first) throw new ConcurrencySuiteError(`provider ${provider} runs no application in this scenario`);
    await first.app.stop();
    await receiverLeft(this, Number(provider), c.apps.filter((a) => a.provider === Number(provider)).length - 1);
    await c.attach(Number(provider), first.policy.acceptance, first.policy.framing, true);
  },
);

// ------------------------------------------------------------------------------------------- When

/** What provider p's GetCommitmentInfo for the block lists differently from what the bids' streams carried. */
async function unlistedCommitments(
  world: ConformanceWorld,
  p: number,
  block: bigint,
  bids: ConcurrencyScenario["bids"],
  got: Map<number, WireCommitment[]>,
): Promise<[number, string][]> {
  const r = await world.provider(p).getCommitmentInfo({ blockNumber: block, limit: 1000, page: 0 });
  if (r.error) throw new ConcurrencySuiteError(`provider ${p}'s GetCommitmentInfo for block ${block}: ${r.describe()}`);
  const listed = ((r.value as { commitments?: { commitments?: ListedCommitment[] }[] }).commitments ?? []).flatMap(
    (g) => g.commitments ?? [],
  );
  const address = bare(world.target.providerAddresses[p - 1]!);
  const out: [number, string][] = [];
  for (const b of bids) {
    const mine = (got.get(b.index) ?? []).filter((x) => bare(x.providerAddress) === address);
    const records = listed.filter((l) => (l.txnHashes ?? []).map(bare).join() === b.body.txHashes.join());
    if (records.length !== mine.length) {
      out.push([
        b.index,
        `bid ${b.index}: provider ${p} lists ${records.length} commitments, the bid's stream carried ${mine.length} of provider ${p}'s`,
      ]);
      continue;
    }
    const l = records[0];
    if (l && mine[0] && (l.dispatchTimestamp !== mine[0].dispatchTimestamp || l.amount !== b.body.amount))
      out.push([
        b.index,
        `bid ${b.index}: provider ${p} lists it with amount ${l.amount}, dispatch ${l.dispatchTimestamp}; the commitment has ${mine[0].bidAmount}, ${mine[0].dispatchTimestamp}`,
      ]);
  }
  return out;
}

When(
  /^the bidder sends the target's concurrent bids of (\d+) wei for (\$BLOCK(?:\+\d+)?|L1 block B), the (first|second) in-flight level at a time$/,
  async function (this: ConformanceWorld, amount: string, block: string, which: string) {
    const n = level(this, which);
    // A level sends at least one full round: 128 in flight means 128 bids at once, whatever concurrentBids says.
    await concurrencyOf(this).sendRounds(Math.max(this.target.concurrentBids, n), n, BigInt(amount), block);
  },
);

When(
  /^the bidder sends as many bids as the first in-flight level, each of a quarter of \$ALLOWANCE, for (\$BLOCK(?:\+\d+)?), all at once$/,
  async function (this: ConformanceWorld, block: string) {
    const c = concurrencyOf(this);
    const n = level(this, "first");
    const allowance = c.bidScenario.allowance();
    if (allowance % 4n !== 0n) throw new ConcurrencySuiteError(`$ALLOWANCE ${allowance} is not a multiple of 4`);
    await c.sendRounds(n, n, allowance / 4n, block);
  },
);

// ------------------------------------------------------------------------------------------- Then

Then(
  "every bid got one commitment from each provider whose application accepted it, each answering its own bid",
  async function (this: ConformanceWorld) {
    const c = concurrencyOf(this);
    if (!c.bids.length) throw new ConcurrencySuiteError("the scenario sent no concurrent bids");
    const f = new Findings();
    await commitmentsChecked(this, f);
    f.throwIfAny(
      `${f.badBids.size} of ${c.bids.length} bids sent ${c.inFlight} at a time did not get exactly their own commitments (one from each accepting provider, each answering its bid: digest, amount, block, hashes, decay, dispatch time, signatures):`,
    );
  },
);

Then(
  /^the applications of providers? (\d+(?:(?:, | and )\d+)*) received each bid exactly once$/,
  function (this: ConformanceWorld, list: string) {
    const c = concurrencyOf(this);
    const f = new Findings();
    checkReceived(c, f, providersIn(list));
    f.throwIfAny(`${f.badBids.size} of ${c.bids.length} bids did not reach each provider's applications exactly once:`);
  },
);

Then(
  /^each of provider (\d+)'s applications received some of the bids$/,
  function (this: ConformanceWorld, provider: string) {
    const c = concurrencyOf(this);
    const apps = c.apps.filter((a) => a.provider === Number(provider) && !a.app.receiveStream?.ended);
    const counts = apps.map((a) => `${a.app.label}: ${a.app.received.length}`);
    this.attach(counts.join("\n"), "text/plain");
    const idle = apps.filter((a) => a.app.received.length === 0);
    if (idle.length)
      throw new ConcurrencySuiteError(
        `provider ${provider} gave none of ${c.bids.length} bids to ${idle.map((a) => a.app.label).join(", ")} (${counts.join("; ")})`,
      );
  },
);

Then(/^the closed application received none of the bids$/, function (this: ConformanceWorld) {
  const c = concurrencyOf(this);
  const closed = c.apps.filter((a) => a.app.receiveStream?.ended);
  const hashes = new Set(c.bids.map((b) => b.body.txHashes[0]));
  for (const a of closed) {
    const got = a.app.received.filter((r) => hashes.has(bare(r.txHashes?.[0] ?? "")));
    if (got.length)
      throw new ConcurrencySuiteError(`${a.app.label} closed its ReceiveBids and still received ${got.length} bids`);
  }
});

Then(
  /^providers (\d+(?:(?:, | and )\d+)*) each committed to exactly (\d+) of the bids, \$ALLOWANCE in all, and every commitment answers its own bid$/,
  async function (this: ConformanceWorld, list: string, k: string) {
    const c = concurrencyOf(this);
    const f = new Findings();
    const got = await checkCommitments(this, c, f);
    const allowance = c.bidScenario.allowance();
    for (const p of providersIn(list)) {
      const mine = [...got.values()]
        .flat()
        .filter((x) => bare(x.providerAddress) === bare(this.target.providerAddresses[p - 1]!));
      const sum = mine.reduce((s, x) => s + BigInt(x.bidAmount), 0n);
      if (mine.length !== Number(k))
        f.add(
          undefined,
          `provider ${p} committed to ${mine.length} of ${c.bids.length} bids in flight at once (${sum} wei), expected exactly ${k} (the block's allowance ${allowance} wei)`,
        );
    }
    f.throwIfAny("the per-block allowance under concurrency:");
  },
);

// ------------------------------------------------------------------------------------------- queries

interface ListedBid {
  txnHashes: string[];
  bidAmount: string;
  blockNumber: string;
  bidDigest: string;
  commitments: { providerAddress: string; dispatchTimestamp: string }[];
}

interface ListedCommitment {
  txnHashes: string[];
  amount: string;
  blockNumber: string;
  providerAddress: string;
  dispatchTimestamp: string;
}

Then(
  "GetBidInfo for the block lists every bid once, with exactly the commitments its stream carried",
  async function (this: ConformanceWorld) {
    const c = concurrencyOf(this);
    const f = new Findings();
    // The commitments themselves are judged by their own step; here only what the query lists against them.
    const got = await commitmentsChecked(this, new Findings());
    const block = BigInt(c.bids[0]!.body.blockNumber);
    const r = await this.bidder.getBidInfo({ blockNumber: block, limit: 1000, page: 0 });
    if (r.error) throw new ConcurrencySuiteError(`GetBidInfo for block ${block}: ${r.describe()}`);
    const listed = ((r.value as { blockBidInfo?: { bids?: ListedBid[] }[] }).blockBidInfo ?? []).flatMap(
      (g) => g.bids ?? [],
    );
    for (const b of c.bids) {
      const cs = got.get(b.index) ?? [];
      const records = listed.filter((l) => (l.txnHashes ?? []).map(bare).join() === b.body.txHashes.join());
      if (cs.length === 0 && records.length === 0) continue;
      if (records.length !== 1) {
        f.add(b.index, `bid ${b.index}: listed ${records.length} times (its stream carried ${cs.length} commitments)`);
        continue;
      }
      const l = records[0]!;
      const wrong: string[] = [];
      if (cs[0] && bare(l.bidDigest) !== bare(cs[0].receivedBidDigest))
        wrong.push(`bidDigest ${l.bidDigest}, its commitments name ${cs[0].receivedBidDigest}`);
      if (l.bidAmount !== b.body.amount) wrong.push(`bidAmount ${l.bidAmount}`);
      const listedFrom = (l.commitments ?? []).map((x) => `${bare(x.providerAddress)}@${x.dispatchTimestamp}`).sort();
      const streamed = cs.map((x) => `${bare(x.providerAddress)}@${x.dispatchTimestamp}`).sort();
      if (listedFrom.join() !== streamed.join())
        wrong.push(
          `commitments [${listedFrom.join(", ")}], its stream carried [${streamed.join(", ")}] (provider@dispatch time)`,
        );
      if (wrong.length) f.add(b.index, `bid ${b.index}: ${wrong.join("; ")}`);
    }
    f.throwIfAny(
      `${f.badBids.size} of ${c.bids.length} bids of the same block and amount were not listed apart by GetBidInfo:`,
    );
  },
);

Then(
  /^GetCommitmentInfo of providers? (\d+(?:(?:, | and )\d+)*) for the block lists each of its commitments once$/,
  async function (this: ConformanceWorld, list: string) {
    const c = concurrencyOf(this);
    const f = new Findings();
    // The commitments themselves are judged by their own step; here only what the query lists against them.
    const got = await commitmentsChecked(this, new Findings());
    const block = BigInt(c.bids[0]!.body.blockNumber);
    // A provider may list a commitment only once its store transaction is sent (upstream does): the listing is read
    // again until it agrees or the target's bid timeout has passed, whatever the machine's load.
    for (const p of providersIn(list)) {
      const deadline = performance.now() + this.target.bidTimeoutMs;
      for (;;) {
        const missing = await unlistedCommitments(this, p, block, c.bids, got);
        if (missing.length === 0 || performance.now() > deadline) {
          for (const [index, text] of missing) f.add(index, text);
          break;
        }
        await Bun.sleep(250);
      }
    }
    f.throwIfAny(`${f.badBids.size} of ${c.bids.length} bids' commitments were not listed apart by GetCommitmentInfo:`);
  },
);

// ------------------------------------------------------------------------------------------- notifications

const canonical = (v: unknown) =>
  JSON.stringify(
    v && typeof v === "object" ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );

/** Provider p's commitments of the scenario's bids, as the bids' streams carried them. */
function commitmentsFrom(world: ConformanceWorld, p: number): WireCommitment[] {
  const c = concurrencyOf(world);
  const address = bare(world.target.providerAddresses[p - 1] ?? "");
  return c.bids.flatMap((b) =>
    ((b.sent.settled?.lines ?? []) as { result?: WireCommitment }[]).flatMap((l) =>
      l?.result && bare(l.result.providerAddress) === address ? [l.result] : [],
    ),
  );
}

Then(
  /^provider (\d+)'s commitments to the bids are soon all stored on the settlement chain$/,
  async function (this: ConformanceWorld, provider: string) {
    const mine = commitmentsFrom(this, Number(provider));
    if (!mine.length) throw new ConcurrencySuiteError(`provider ${provider} committed to none of the bids`);
    const chain = settlementChainOf(this.target);
    const left = new Set(
      mine.map((x) => keccak256(concatHex([`0x${bare(x.commitmentDigest)}`, `0x${bare(x.commitmentSignature)}`]))),
    );
    await eventually(
      `provider ${provider}'s ${mine.length} commitments stored on the settlement chain`,
      async () => {
        for (const idx of [...left]) {
          const u = await chain.unopened(idx);
          if (u.committer !== zeroAddress) left.delete(idx);
        }
        return left.size === 0
          ? { done: true, value: undefined }
          : { done: false, seen: `${left.size} of ${mine.length} not stored yet` };
      },
      50_000,
      250,
    );
  },
);

Then(
  /^subscriber "([^"]+)" soon receives other_provider_won_block exactly once for each of provider (\d+)'s commitments, with the bidder and the bid's amount$/,
  async function (this: ConformanceWorld, name: string, provider: string) {
    const mine = commitmentsFrom(this, Number(provider));
    if (!mine.length) throw new ConcurrencySuiteError(`provider ${provider} committed to none of the bids`);
    const s = notificationsOf(this).subscriber(name);
    const digests = new Map(mine.map((x) => [bare(x.commitmentDigest), x]));
    // Upstream's v1.2.5 node drops a commitment whose digest holds a 0x2f byte (docs/conformance.md §10): reported.
    const judged = [...digests.keys()].filter((d) => !holdsSlashByte(d));
    const count = () => {
      const n = new Map<string, number>();
      for (const x of s.notifications)
        if (x.topic === "other_provider_won_block") {
          const d = bare(String((x.value as { commitmentDigest?: unknown }).commitmentDigest ?? ""));
          n.set(d, (n.get(d) ?? 0) + 1);
        }
      return n;
    };
    await eventually(
      `other_provider_won_block on subscriber "${name}" for each of provider ${provider}'s ${judged.length} commitments`,
      async () => {
        const n = count();
        const missing = judged.filter((d) => !n.has(d)).length;
        return missing === 0
          ? { done: true, value: undefined }
          : { done: false, seen: `${missing} of ${judged.length} not announced`, hopeless: s.ended };
      },
      50_000,
      200,
    );
    const n = count();
    const f = new Findings();
    for (const [d, x] of digests) {
      const times = n.get(d) ?? 0;
      if (holdsSlashByte(d)) {
        this.attach(
          observationAttachment({
            what: SLASH_BYTE_DIGEST,
            observed: times === 0,
            detail: `commitment ${d} holds a 0x2f byte; announced ${times} times`,
          }),
          "text/plain",
        );
        if (times <= 1) continue;
      }
      if (times !== 1) f.add(undefined, `commitment ${d}: announced ${times} times`);
      const values = s.notifications.filter(
        (y) =>
          y.topic === "other_provider_won_block" &&
          bare(String((y.value as { commitmentDigest?: unknown }).commitmentDigest ?? "")) === d,
      );
      for (const y of values) {
        const want = { commitmentDigest: d, bidder: bare(this.target.bidderAddress), bidAmount: x.bidAmount };
        if (canonical(y.value) !== canonical(want))
          f.add(
            undefined,
            `commitment ${d}: announced as ${JSON.stringify(y.value)}, expected ${JSON.stringify(want)}`,
          );
      }
    }
    f.throwIfAny(`other_provider_won_block under load, ${mine.length} commitments of provider ${provider}:`);
  },
);

// ------------------------------------------------------------------------------------------- v1.2 balance

const balances = new WeakMap<ConcurrencyScenario, Map<number, { low: bigint; high: bigint }>>();

When(
  /^the most provider (\d+) lets the bidder bid is found with single bids its application rejects$/,
  async function (this: ConformanceWorld, provider: string) {
    const c = concurrencyOf(this);
    const p = Number(provider);
    const r = await this.bidder.perProvider.getDeposit(providerAddress(this, p));
    if (r.error) throw new ConcurrencySuiteError(`get_deposit toward provider ${p}: ${r.describe()}`);
    const start = BigInt(String((r.value as { amount?: string })?.amount ?? "0"));
    const b = await balanceBounds(c, p, start, "$BLOCK");
    this.attach(
      `provider ${p} lets the bidder bid between ${b.low} and ${b.high} wei (${b.probes} probe bids; ${start} wei on chain)`,
    );
    let m = balances.get(c);
    if (!m) balances.set(c, (m = new Map()));
    m.set(p, b);
  },
);

Given(
  /^provider (\d+)'s application answers the next rounds accepting every bid$/,
  function (this: ConformanceWorld, provider: string) {
    const apps = concurrencyOf(this).apps.filter((a) => a.provider === Number(provider));
    if (!apps.length) throw new ConcurrencySuiteError(`provider ${provider} runs no application in this scenario`);
    for (const a of apps) a.policy.acceptance = "every bid";
  },
);

function balanceOf(world: ConformanceWorld, p: number): { low: bigint; high: bigint } {
  const b = balances.get(concurrencyOf(world))?.get(p);
  if (!b) throw new ConcurrencySuiteError(`provider ${p}'s balance was not found in this scenario`);
  return b;
}

When(
  /^the bidder sends as many bids as the first in-flight level, each of two ninths of what provider (\d+) lets it bid, for \$BLOCK, all at once$/,
  async function (this: ConformanceWorld, provider: string) {
    const c = concurrencyOf(this);
    const n = level(this, "first");
    // Whatever the balance within [low, high), it holds exactly 4 bids of 2·low/9: high − low < low/10 < a/2.
    const a = (2n * balanceOf(this, Number(provider)).low) / 9n;
    await c.sendRounds(n, n, a, "$BLOCK");
  },
);

Then(
  /^provider (\d+) committed to exactly 4 of the bids, never more than it lets the bidder bid, and every commitment answers its own bid$/,
  async function (this: ConformanceWorld, provider: string) {
    const c = concurrencyOf(this);
    const p = Number(provider);
    const f = new Findings();
    const got = await checkCommitments(this, c, f);
    const b = balanceOf(this, p);
    const mine = [...got.values()].flat().filter((x) => providerIndex(this, x.providerAddress) === p);
    const sum = mine.reduce((s, x) => s + BigInt(x.bidAmount), 0n);
    if (mine.length !== 4)
      f.add(
        undefined,
        `provider ${p} committed to ${mine.length} of ${c.bids.length} bids in flight at once (${sum} wei), expected exactly 4: it let the bidder bid between ${b.low} and ${b.high} wei`,
      );
    f.throwIfAny("the per-provider balance under concurrency:");
  },
);
