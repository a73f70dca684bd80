/**
 * Steps of balance-v1.2.feature: provider 3's balance of the bidder in protocol v1.2, brought to a known amount
 * (withdraw everything, deposit again) and driven to its edge with bids of raw transactions for the next L1 blocks
 * (features/support/settlement.ts), whose blocks the scenario then mines with a chosen winner.
 */
import { expect } from "bun:test";
import { Given, Then, When } from "@cucumber/cucumber";
import { type Address, getAddress, zeroAddress } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { bidsOf } from "../support/bids.ts";
import { chainOf } from "../support/chain.ts";
import { amountOf, type ProviderPolicy, type ReceivedBid } from "../support/clients/providerApp.ts";
import { SKIPPED_PREFIX } from "../support/health.ts";
import { notificationsOf } from "../support/notifications.ts";
import { perScenario } from "../support/perScenario.ts";
import { DISPATCH_LEAD_MS, eventually, type SettlementCommitment, settlementOf } from "../support/settlement.ts";
import type { ConformanceWorld } from "../support/world.ts";

export class BalanceCheckError extends MevCommitError {}

function fail(message: string): never {
  throw new BalanceCheckError(message);
}

/** The longest withdrawal period the suite waits out to start a scenario from a known balance. */
const MAX_PERIOD_MS = 60_000n;
/** How long past a withdrawal period the suite waits for the settlement chain's clock. */
const PERIOD_SLACK_MS = 2_000;
/** How long the providers get to see a deposit or a withdrawal request on the settlement chain. */
const SEE_MS = 3_000;
/** The decay window around the dispatch time D, as the settlement scenarios place it. */
const DECAY_BEFORE_D_MS = 250n;
const DECAY_AFTER_D_MS = 750n;

const bare = (hex: string) => hex.toLowerCase().replace(/^0x/, "");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function providerOf(world: ConformanceWorld, n: number): Address {
  const a = world.target.providerAddresses[n - 1];
  if (!a) fail(`the target has ${world.target.providerAddresses.length} providers, not ${n}`);
  return getAddress(a);
}

async function withdrawalRequested(world: ConformanceWorld, provider: Address): Promise<boolean> {
  return (await chainOf(world.target).readV12("withdrawalRequestExists", [
    world.target.bidderAddress,
    provider,
  ])) as boolean;
}

/** The scenario's commitment from provider `p` to its bid of `amount` wei. */
function commitmentOf(world: ConformanceWorld, amount: bigint, p: number): SettlementCommitment {
  const s = settlementOf(world);
  const bid = s.bids.find((b) => b.amount === amount) ?? fail(`no bid of ${amount} wei was sent in this scenario`);
  const mine = s.commitments.filter((c) => c.bid === bid && c.providerIndex === p);
  if (mine.length !== 1)
    fail(
      `expected one commitment from provider ${p} to the bid of ${amount} wei, got ${mine.length}; the stream said: ${bid.outcome.text.trim().slice(0, 800)}`,
    );
  return mine[0]!;
}

/**
 * A scenario that stopped early leaves commitments of provider 3 whose blocks were not mined: the next scenario's
 * known balance would then depend on this one (a provider counts what its unsettled commitments reserved). Its
 * teardown waits for them to be stored and mines the rest of its blocks, so each is settled or given back.
 */
const balanceScenario = perScenario("balance scenario", (world) => ({
  async teardown() {
    const s = settlementOf(world);
    if (!s.bids.length) return;
    const last = s.bids.reduce((m, b) => (b.block > m ? b.block : m), 0n);
    const head = await s.chain.l1.getBlockNumber({ cacheTime: 0 });
    if (head > last) return;
    for (const c of s.commitments)
      await eventually(
        "stored",
        async () =>
          (await s.chain.unopened(c.idx)).committer === zeroAddress
            ? { done: false, seen: "not stored" }
            : { done: true, value: true },
        15_000,
      ).catch(() => undefined);
    await s.mine(Number(last - head) + 1, 1);
  },
}));

// ------------------------------------------------------------------------------------------- Given

Given(
  /^the next L1 blocks are B, B\+1, B\+2, … and the bidder holds exactly ([0-9]+) wei toward provider ([0-9]+)$/,
  async function (this: ConformanceWorld, wei: string, n: string) {
    const p = Number(n);
    if (this.target.providerAddresses.length < p) {
      this.attach(
        `${SKIPPED_PREFIX}the target has ${this.target.providerAddresses.length} providers; the balance scenarios use provider ${p}`,
        "text/plain",
      );
      return "skipped";
    }
    const chain = chainOf(this.target);
    const period = (await chain.readV12("bidderWithdrawalPeriodMs")) as bigint;
    if (period > MAX_PERIOD_MS) {
      this.attach(
        `${SKIPPED_PREFIX}the target's bidder withdrawal period is ${period} ms: the suite waits at most ${MAX_PERIOD_MS} ms to start from a known balance`,
        "text/plain",
      );
      return "skipped";
    }
    await settlementOf(this).begin();
    balanceScenario(this);
    const provider = providerOf(this, p);
    const perProvider = this.bidder.perProvider;
    // Withdraw everything (a request drops the provider's balance, the withdraw empties the deposit), even an
    // empty deposit: a provider that kept a wrong balance from an earlier scenario starts afresh.
    if (!(await withdrawalRequested(this, provider))) {
      if ((await chain.providerDeposit(provider)) === 0n) {
        const r = await perProvider.deposit("1", provider);
        if (r.error) fail(`deposit of 1 wei toward provider ${p}: ${r.describe()}`);
      }
      const r = await perProvider.requestWithdrawals([provider]);
      if (r.error) fail(`withdrawal request toward provider ${p}: ${r.describe()}`);
      await sleep(Number(period) + PERIOD_SLACK_MS);
    }
    let w = await perProvider.withdraw([provider]);
    if (w.error) {
      // A request of an earlier scenario whose period has not passed yet.
      await sleep(Number(period) + PERIOD_SLACK_MS);
      w = await perProvider.withdraw([provider]);
    }
    if (w.error) fail(`withdraw from provider ${p}: ${w.describe()}`);
    expect(
      await chain.providerDeposit(provider),
      `BidderRegistry.getDeposit(bidder, provider ${p}) after the withdraw`,
    ).toBe(0n);
    const d = await perProvider.deposit(wei, provider);
    if (d.error) fail(`deposit of ${wei} wei toward provider ${p}: ${d.describe()}`);
    expect(await chain.providerDeposit(provider), `BidderRegistry.getDeposit(bidder, provider ${p})`).toBe(BigInt(wei));
    await sleep(SEE_MS);
    return undefined;
  },
);

Given(
  /^provider ([0-9]+)'s application rejects bids of ([0-9]+) wei and accepts the rest, dispatching at D$/,
  async function (this: ConformanceWorld, p: string, rejected: string) {
    // The bid steps below place the decay window around D, so D is the decay start plus its lead.
    const policy: ProviderPolicy = {
      name: `reject-${rejected}-wei`,
      decide: (bid: ReceivedBid) =>
        amountOf(bid) === rejected
          ? { accept: false }
          : { accept: true, dispatchTimestamp: BigInt(bid.decayStartTimestamp) + DECAY_BEFORE_D_MS },
    };
    await bidsOf(this).attach(Number(p), policy, `provider ${p}'s balance application`);
  },
);

// ------------------------------------------------------------------------------------------- When

When(
  /^the providers have had 3 s to see the (?:deposits|withdrawal request)$/,
  async function (this: ConformanceWorld) {
    await sleep(SEE_MS);
  },
);

When(
  /^the bidder bids ([0-9]+) wei for L1 block (B(?:\+[0-9]+)?)$/,
  async function (this: ConformanceWorld, amount: string, blockRef: string) {
    const s = settlementOf(this);
    const dispatch = BigInt(Date.now()) + DISPATCH_LEAD_MS;
    await s.sendBid(
      {
        blockRef,
        block: s.blockOf(blockRef),
        amount: BigInt(amount),
        slashAmount: 0n,
        decayStart: dispatch - DECAY_BEFORE_D_MS,
        decayEnd: dispatch + DECAY_AFTER_D_MS,
        txs: [await s.transfer()],
        reverting: [],
      },
      dispatch,
    );
  },
);

When(
  /^L1 block (B\+[0-9]+) is mined with provider ([0-9]+) as the winner, then ([0-9]+) more blocks?$/,
  async function (this: ConformanceWorld, ref: string, p: string, more: string) {
    const s = settlementOf(this);
    const block = s.blockOf(ref);
    const head = await s.chain.l1.getBlockNumber({ cacheTime: 0 });
    if (head + 1n !== block) fail(`the next L1 block is ${head + 1n}, not ${ref} (${block})`);
    await s.mine(1 + Number(more), Number(p));
  },
);

// ------------------------------------------------------------------------------------------- Then

Then(
  /^the bid of ([0-9]+) wei gets (a|no) commitment from provider ([0-9]+)$/,
  function (this: ConformanceWorld, amount: string, which: string, p: string) {
    const s = settlementOf(this);
    const bid =
      s.bids.find((b) => b.amount === BigInt(amount)) ?? fail(`no bid of ${amount} wei was sent in this scenario`);
    if (!bid.outcome.ok) fail(`the bid stream of ${amount} wei was refused: ${bid.outcome.describe(1000)}`);
    const from = s.commitments.filter((c) => c.bid === bid && c.providerIndex === Number(p));
    const want = which === "a" ? 1 : 0;
    if (from.length !== want)
      fail(
        `expected ${want} commitment from provider ${p} to the bid of ${amount} wei, got ${from.length}; the stream said: ${bid.outcome.text.trim().slice(0, 1000)}`,
      );
  },
);

Then(
  /^provider ([0-9]+)'s application received the bid of ([0-9]+) wei and the bid got no commitment from provider \1$/,
  function (this: ConformanceWorld, p: string, amount: string) {
    const apps = bidsOf(this).appsOf(Number(p));
    const got = apps.some((a) => a.received.some((b) => amountOf(b) === amount));
    if (!got) fail(`provider ${p}'s application did not receive the bid of ${amount} wei (refused before it)`);
    const s = settlementOf(this);
    const bid = s.bids.find((b) => b.amount === BigInt(amount)) ?? fail(`no bid of ${amount} wei was sent`);
    const from = s.commitments.filter((c) => c.bid === bid && c.providerIndex === Number(p));
    if (from.length) fail(`provider ${p} committed to the bid of ${amount} wei its application rejected`);
  },
);

Then(
  /^the commitments? of ([0-9]+)(?: and ([0-9]+))? wei (?:is|are) soon stored on the settlement chain by provider ([0-9]+)$/,
  async function (this: ConformanceWorld, a: string, b: string | undefined, p: string) {
    const s = settlementOf(this);
    const want = providerOf(this, Number(p)).toLowerCase();
    for (const amount of b ? [a, b] : [a]) {
      const c = commitmentOf(this, BigInt(amount), Number(p));
      const u = await eventually(`UnopenedCommitmentStored for the commitment of ${amount} wei`, async () => {
        const u = await s.chain.unopened(c.idx);
        return u.committer === zeroAddress
          ? { done: false, seen: "no unopened commitment at that index" }
          : { done: true, value: u };
      });
      if (u.committer.toLowerCase() !== want)
        fail(`the commitment of ${amount} wei was stored by ${u.committer}, expected provider ${p} (${want})`);
    }
  },
);

Then(
  /^subscriber "([^"]+)" soon receives other_provider_won_block for the commitments of ([0-9]+) and ([0-9]+) wei$/,
  async function (this: ConformanceWorld, name: string, a: string, b: string) {
    const sub = notificationsOf(this).subscriber(name);
    for (const amount of [a, b]) {
      const c = commitmentOf(this, BigInt(amount), 3);
      const digest = bare(c.digest);
      await eventually(
        `other_provider_won_block for the commitment of ${amount} wei on subscriber "${name}"`,
        async () => {
          const n = sub.notifications.find(
            (x) =>
              x.topic === "other_provider_won_block" &&
              (x.value as { commitmentDigest?: string }).commitmentDigest === digest,
          );
          if (n) return { done: true, value: n };
          return { done: false, seen: sub.describe(), hopeless: sub.ended };
        },
      );
    }
  },
);

Then(
  /^BidderRegistry soon holds ([0-9]+) wei of the bidder toward provider ([0-9]+)$/,
  async function (this: ConformanceWorld, wei: string, p: string) {
    const chain = chainOf(this.target);
    const provider = providerOf(this, Number(p));
    await eventually(`BidderRegistry.getDeposit(bidder, provider ${p}) = ${wei}`, async () => {
      const d = await chain.providerDeposit(provider);
      return d === BigInt(wei) ? { done: true, value: d } : { done: false, seen: `${d} wei` };
    });
  },
);

/**
 * Upstream lists every provider of the bidder's BidderDeposited events whose getDeposit is above zero (a pending
 * withdrawal request does not lower it). The target's providers are checked both ways (listed exactly when they hold
 * a deposit); any other listed provider must hold what is listed.
 */
Then(
  "the answer lists exactly the providers BidderRegistry holds a deposit of the bidder toward, each with it",
  async function (this: ConformanceWorld) {
    const a = this.lastAnswer;
    if (a.error) fail(`the call failed: ${a.describe()}`);
    const listed = ((a.value as { deposits?: { provider?: string; amount?: string }[] }).deposits ?? []).map((d) => ({
      provider: String(d.provider),
      amount: String(d.amount),
    }));
    const chain = chainOf(this.target);
    const problems: string[] = [];
    for (const d of listed) {
      const held = await chain.providerDeposit(getAddress(d.provider));
      if (held === 0n)
        problems.push(`${d.provider} is listed with ${d.amount} wei, and the bidder holds nothing toward it`);
      else if (d.amount !== held.toString())
        problems.push(`${d.provider} is listed with ${d.amount} wei, BidderRegistry holds ${held}`);
    }
    for (let n = 1; n <= this.target.providerAddresses.length; n++) {
      const provider = providerOf(this, n);
      const held = await chain.providerDeposit(provider);
      const entries = listed.filter((d) => d.provider === provider);
      if (held > 0n && entries.length !== 1)
        problems.push(`provider ${n} (${provider}) holds ${held} wei and is listed ${entries.length} times`);
    }
    if (problems.length) fail(`get_all_deposits:\n  ${problems.join("\n  ")}\n${a.describe()}`);
  },
);
