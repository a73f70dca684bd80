import { expect } from "bun:test";
import { Then, When } from "@cucumber/cucumber";
import { bidsOf, finished } from "../support/bids.ts";
import { amountOf } from "../support/clients/providerApp.ts";
import {
  delay,
  dispatchProblems,
  FaultsSuiteError,
  heal,
  loss,
  OutcomesUnavailable,
  partition,
  rate,
  recordedOutcome,
} from "../support/faults.ts";
import { SKIPPED_PREFIX } from "../support/health.ts";
import { notificationsOf } from "../support/notifications.ts";
import { settlementOf } from "../support/settlement.ts";
import type { ConformanceWorld } from "../support/world.ts";

When(
  /^the network between (the bidder|provider \d+) and (the bidder|provider \d+|the settlement chain|its API clients) is (cut|healed)$/,
  async function (this: ConformanceWorld, a: string, b: string, what: string) {
    return what === "cut" ? partition(this, a, b) : heal(this, a, b);
  },
);

When(
  /^(the bidder|provider \d+)'s host drops (\d+) % of the packets it sends or receives$/,
  async function (this: ConformanceWorld, node: string, percent: string) {
    return loss(this, node, Number(percent));
  },
);

When(
  /^(the bidder|provider \d+)'s host sends at most (\d+) kbit\/s$/,
  async function (this: ConformanceWorld, node: string, kbit: string) {
    return rate(this, node, Number(kbit));
  },
);

When(
  /^(the bidder|provider \d+)'s host delays what it sends by (\d+) ms, give or take (\d+) ms$/,
  async function (this: ConformanceWorld, node: string, ms: string, jitter: string) {
    return delay(this, node, Number(ms), Number(jitter));
  },
);

Then(
  /^the control API names provider (\d+)'s outcome of the bid "(\w+)"$/,
  async function (this: ConformanceWorld, provider: string, named: string) {
    const s = bidsOf(this);
    const bid = s.current ?? s.bids.at(-1);
    if (!bid) throw new FaultsSuiteError("the scenario sent no bid");
    const lines = (await bid.outcome).lines as { result?: { commitmentDigest: string } }[];
    const c = lines.find((l) => l.result)?.result;
    if (!c) throw new FaultsSuiteError("the bid got no commitment to find it by in the control API");
    const address = this.target.providerAddresses[Number(provider) - 1];
    if (!address) throw new FaultsSuiteError(`the target has no provider ${provider}`);
    let outcome: string;
    try {
      outcome = await recordedOutcome(this, c.commitmentDigest, address);
    } catch (e) {
      if (!(e instanceof OutcomesUnavailable)) throw e;
      this.attach(`${SKIPPED_PREFIX}the target's control API names no outcome of its bidder's bids: ${e.message}`);
      return "skipped";
    }
    expect(outcome).toBe(named);
  },
);

const noHex = (a: unknown) => String(a).toLowerCase().replace(/^0x/, "");

Then(
  "nothing of the scenario was committed twice: each bid's stream, the bidder's records and each provider's records hold one commitment per bid and provider, and each commitment digest once",
  async function (this: ConformanceWorld) {
    const twice: string[] = [];
    const digests = new Map<string, string>();
    // A provider's records name no digest: a bid is its amount and decay window there (the window starts when the
    // bid was made, so an earlier run's bid of the same amount for the same block is another one).
    const streamed: { block: string; bid: string; amount: string; provider: string; decay: string }[] = [];
    for (const b of bidsOf(this).bids) {
      const seen = new Set<string>();
      for (const l of (await b.outcome).lines) {
        const c = (l as { result?: Record<string, string> }).result;
        if (!c) continue;
        const provider = noHex(c.providerAddress);
        const d = noHex(c.commitmentDigest);
        if (seen.has(provider)) twice.push(`bid ${b.index}'s stream: two commitments of ${provider}`);
        if (digests.has(d))
          twice.push(`commitment digest ${d} in the streams of bids ${digests.get(d)} and ${b.index}`);
        seen.add(provider);
        digests.set(d, String(b.index));
        streamed.push({
          block: String(c.blockNumber),
          bid: noHex(c.receivedBidDigest),
          amount: String(c.bidAmount),
          provider,
          decay: `${c.decayStartTimestamp}-${c.decayEndTimestamp}`,
        });
      }
    }
    if (!streamed.length) throw new FaultsSuiteError("the scenario's bids got no commitment");
    for (const block of new Set(streamed.map((s) => s.block))) {
      const r = await this.bidder.getBidInfo({ blockNumber: BigInt(block), limit: 1000 });
      if (r.error) throw new FaultsSuiteError(r.describe());
      const bids = (
        (
          r.value as {
            blockBidInfo?: { bids?: { bidDigest: string; commitments?: { providerAddress: string }[] }[] }[];
          }
        ).blockBidInfo ?? []
      ).flatMap((g) => g.bids ?? []);
      for (const bid of new Set(streamed.filter((s) => s.block === block).map((s) => s.bid))) {
        const records = bids.filter((x) => noHex(x.bidDigest) === bid);
        if (records.length > 1) twice.push(`the bidder lists bid ${bid} ${records.length} times`);
        const providers = records.flatMap((x) => x.commitments ?? []).map((c) => noHex(c.providerAddress));
        for (const p of new Set(providers))
          if (providers.filter((x) => x === p).length > 1)
            twice.push(`the bidder lists ${providers.filter((x) => x === p).length} commitments of ${p} to bid ${bid}`);
      }
      for (const [i, address] of this.target.providerAddresses.entries()) {
        const mine = streamed.filter((s) => s.block === block && s.provider === noHex(address));
        if (!mine.length) continue;
        const p = await this.provider(i + 1).getCommitmentInfo({ blockNumber: BigInt(block), limit: 1000 });
        if (p.error) throw new FaultsSuiteError(p.describe());
        type Info = {
          commitments?: {
            commitments?: { amount: string; decayStartTimestamp: string; decayEndTimestamp: string }[];
          }[];
        };
        const listed = ((p.value as Info).commitments ?? [])
          .flatMap((g) => g.commitments ?? [])
          .map((c) => `${c.amount}/${c.decayStartTimestamp}-${c.decayEndTimestamp}`);
        for (const s of mine) {
          const n = listed.filter((a) => a === `${s.amount}/${s.decay}`).length;
          if (n !== 1)
            twice.push(`provider ${i + 1} lists ${n} commitments to the bid of ${s.amount} wei (block ${block})`);
        }
      }
    }
    if (twice.length) throw new FaultsSuiteError(`committed twice (or lost):\n  ${twice.join("\n  ")}`);
  },
);

Then(
  /^provider (\d+)'s commitment carries the dispatch time its application chose when it decided, and the bidder's record of the bid keeps that time$/,
  async function (this: ConformanceWorld, provider: string) {
    const s = bidsOf(this);
    const address = noHex(this.target.providerAddresses[Number(provider) - 1]);
    const chosen = new Map<string, bigint>();
    for (const app of s.appsOf(Number(provider))) for (const [k, v] of app.chosenDispatch) chosen.set(k, v);
    const streamed: { bid: string; provider: string; dispatch: string; block: string }[] = [];
    for (const b of s.bids)
      for (const l of (await b.outcome).lines) {
        const c = (l as { result?: Record<string, string> }).result;
        if (c && noHex(c.providerAddress) === address)
          streamed.push({
            bid: noHex(c.receivedBidDigest),
            provider: address,
            dispatch: String(c.dispatchTimestamp),
            block: String(c.blockNumber),
          });
      }
    if (!streamed.length) throw new FaultsSuiteError(`the scenario's bids got no commitment from provider ${provider}`);
    const recorded: { bid: string; provider: string; dispatch: string }[] = [];
    for (const block of new Set(streamed.map((x) => x.block))) {
      const r = await this.bidder.getBidInfo({ blockNumber: BigInt(block), limit: 1000 });
      if (r.error) throw new FaultsSuiteError(r.describe());
      type Info = {
        blockBidInfo?: {
          bids?: { bidDigest: string; commitments?: { providerAddress: string; dispatchTimestamp: string }[] }[];
        }[];
      };
      for (const bid of ((r.value as Info).blockBidInfo ?? []).flatMap((g) => g.bids ?? []))
        for (const c of bid.commitments ?? [])
          recorded.push({ bid: bid.bidDigest, provider: c.providerAddress, dispatch: String(c.dispatchTimestamp) });
    }
    const problems = dispatchProblems(streamed, chosen, recorded);
    if (problems.length) throw new FaultsSuiteError(problems.join("\n"));
  },
);

Then(
  /^subscriber "([^"]+)" receives (peer_connected|peer_disconnected) for provider (\d+) within (\d+) s, or sees its stream end$/,
  async function (this: ConformanceWorld, name: string, topic: string, provider: string, seconds: string) {
    const s = notificationsOf(this).subscriber(name);
    const address = noHex(this.target.providerAddresses[Number(provider) - 1]);
    const until = performance.now() + Number(seconds) * 1000;
    for (;;) {
      const got = s.notifications.some(
        (n) => n.topic === topic && noHex((n.value as { ethAddress?: string }).ethAddress) === address,
      );
      if (got) return;
      if (s.ended) {
        this.attach(`subscriber "${name}"'s stream ended: ${s.endReason}`, "text/plain");
        return;
      }
      const left = until - performance.now();
      if (left <= 0)
        throw new FaultsSuiteError(
          `silence: subscriber "${name}"'s stream neither carried ${topic} for provider ${provider} nor ended within ${seconds} s\n${s.describe()}`,
        );
      await s.stream.changed(left);
    }
  },
);

When(
  /^provider (\d+)'s record of the commitment is watched from now on$/,
  function (this: ConformanceWorld, p: string) {
    const s = settlementOf(this);
    s.watch(s.commitment(undefined), [`provider ${Number(p)}`]);
  },
);

Then(
  /^provider (\d+) never reported the commitment "(\w+)" on the way$/,
  async function (this: ConformanceWorld, p: string, status: string) {
    const s = settlementOf(this);
    const c = s.commitment(undefined);
    const w = s.watches.find((x) => x.node === `provider ${Number(p)}` && x.c === c);
    if (!w) throw new FaultsSuiteError(`provider ${p}'s record of the commitment was not watched`);
    await w.stop();
    this.attach(`provider ${p} reported: ${w.seen.join(" → ") || "(nothing)"}`, "text/plain");
    if (!w.seen.length) throw new FaultsSuiteError(`no record of provider ${p} observed: ${w.problems.join("; ")}`);
    if (w.seen.includes(status))
      throw new FaultsSuiteError(`provider ${p} reported the commitment ${w.seen.join(" → ")}: "${status}" on the way`);
  },
);

When(/^the network stays cut for (\d+) s$/, async (seconds: string) => {
  await Bun.sleep(Number(seconds) * 1000);
});

// A provider checks a bid against the bidder's deposit before its application sees it, reading the deposit from the
// chain when no deposit event has told it yet (api-behaviour §4.6). A provider cut off before it knows the deposit
// cannot answer at all; this step makes sure it knows: a bid of `amount` wei for block B that its application
// rejects (no commitment, nothing for the settlement steps to count) has reached the application.
When(
  /^provider (\d+) has checked a bid of (\d+) wei for L1 block B against the bidder's deposit, which its application rejects$/,
  async function (this: ConformanceWorld, p: string, amount: string) {
    const s = settlementOf(this);
    const now = BigInt(Date.now());
    const body = {
      rawTransactions: [(await s.transfer()).raw],
      amount: String(amount),
      blockNumber: String(s.blockOf("B")),
      decayStartTimestamp: String(now),
      decayEndTimestamp: String(now + 1000n),
    };
    const stream = await finished(this.bidder.sendBid(JSON.stringify(body)), this.target.bidTimeoutMs);
    const seen = bidsOf(this)
      .appsOf(Number(p))
      .some((a) => a.received.some((r) => amountOf(r) === String(amount)));
    if (!seen)
      throw new FaultsSuiteError(
        `provider ${p}'s application never saw the bid of ${amount} wei for block B: ${stream.describe(600)}`,
      );
  },
);
