/**
 * Steps of settlement.feature and decay.feature: a bid of signed L1 transactions for the next L1 block, the block
 * mined with a chosen winner and builder behaviour, and the outcome checked three ways: on the settlement chain
 * (events and state, isolated to the settlement transaction's block), in the nodes' records (get_bid_info,
 * get_commitment_info) and against the literal amounts in the feature, which are also recomputed with the §2
 * maths (features/support/protocol.ts, written from the spec) and the fee percents read from the contracts.
 */
import { type DataTable, Given, Then, When } from "@cucumber/cucumber";
import { type Address, zeroAddress } from "viem";
import { bidderRegistryAbi, providerRegistryAbi } from "../support/abi.ts";
import { SKIPPED_PREFIX } from "../support/health.ts";
import { observationAttachment } from "../support/observations.ts";
import { preflight } from "../support/preflight.ts";
import { residualAfterDecay, rewardSplit, slashSplit } from "../support/protocol.ts";
import {
  DISPATCH_LEAD_MS,
  eventually,
  type L1Tx,
  type NodeName,
  parseWei,
  type ReportedCommitment,
  readReported,
  SettlementCheckError,
  type SettlementCommitment,
  type SettlementFacts,
  settlementOf,
  windowOfBlock,
} from "../support/settlement.ts";
import type { ConformanceWorld } from "../support/world.ts";

const BLOCK_REF = "(B(?:\\+\\d+)?)";
const facts = new WeakMap<SettlementCommitment, SettlementFacts>();

function fail(message: string): never {
  throw new SettlementCheckError(message);
}

function nodeName(text: string): NodeName {
  if (text === "the bidder") return "bidder";
  const m = /^provider (\d+)$/.exec(text);
  if (!m) fail(`unknown node "${text}"`);
  return `provider ${Number(m[1])}`;
}

// ------------------------------------------------------------------------------------------- Given

Given(
  /^the bidder has (\S+ (?:ETH|wei)) deposited for the next L1 blocks, B and B\+1$/,
  async function (this: ConformanceWorld, amount: string) {
    const s = settlementOf(this);
    const b = await s.begin();
    await s.deposit(parseWei(amount), [b, b + 1n]);
  },
);

Given(
  /^provider (\d+)'s application accepts every bid, dispatching at D$/,
  async function (this: ConformanceWorld, provider: string) {
    await settlementOf(this).attachAccepting(Number(provider));
  },
);

Given(
  /^provider (\d+)'s builder (omits|reverses|gaps|honestly includes) the bundles it committed to$/,
  async function (this: ConformanceWorld, p: string, how: string) {
    const mode = { omits: "omit", reverses: "reverse", gaps: "gap", "honestly includes": "honest" }[how]!;
    await settlementOf(this).setBuilder(Number(p), mode as "honest");
  },
);

Given(
  /^provider (\d+)'s builder mode is "(honest|omit|reverse|gap)"$/,
  async function (this: ConformanceWorld, p: string, mode: string) {
    await settlementOf(this).setBuilder(Number(p), mode as "honest");
  },
);

// ------------------------------------------------------------------------------------------- the bid

When(
  new RegExp(
    `^the bidder bids (\\S+ (?:ETH|wei))(?: with slash amount (\\S+ (?:ETH|wei)))? for L1 block ${BLOCK_REF} on ` +
      `(a transfer|two transfers|a failing contract creation)(, allowed to revert)?, decaying from D([+-]\\d+)? ms to D([+-]\\d+)? ms$`,
  ),
  async function (
    this: ConformanceWorld,
    amount: string,
    slash: string | undefined,
    blockRef: string,
    what: string,
    allowed: string | undefined,
    startOff: string | undefined,
    endOff: string | undefined,
  ) {
    const s = settlementOf(this);
    const block = s.blockOf(blockRef);
    const txs: L1Tx[] =
      what === "a transfer"
        ? [await s.transfer()]
        : what === "two transfers"
          ? [await s.transfer(), await s.transfer()]
          : [await s.failingCreation()];
    // D: the dispatch time the provider application answers, a little after now (the store transaction needs
    // dispatch > its block time − 500 ms). The decay window is placed around D, so the residual does not depend
    // on how long anything takes.
    const dispatch = BigInt(Date.now()) + DISPATCH_LEAD_MS;
    await s.sendBid(
      {
        blockRef,
        block,
        amount: parseWei(amount),
        slashAmount: slash ? parseWei(slash) : 0n,
        decayStart: dispatch + BigInt(startOff ?? "0"),
        decayEnd: dispatch + BigInt(endOff ?? "0"),
        txs,
        reverting: allowed ? txs.map((t) => t.hash) : [],
      },
      dispatch,
    );
  },
);

Then(
  new RegExp(`^the bid(?: for L1 block ${BLOCK_REF})? gets one commitment, from provider (\\d+)$`),
  function (this: ConformanceWorld, ref: string | undefined, p: string) {
    const s = settlementOf(this);
    const bid = s.bids.find((b) => b.blockRef === (ref ?? "B")) ?? fail(`no bid was sent for L1 block ${ref ?? "B"}`);
    const o = bid.outcome;
    if (!o.ok) fail(`the bid stream was refused: ${o.describe(1000)}`);
    const mine = s.commitments.filter((c) => c.bid === bid);
    if (mine.length !== 1)
      fail(`expected 1 commitment for the bid, got ${mine.length}; the stream said: ${o.text.trim().slice(0, 1000)}`);
    const c = mine[0]!;
    const want = s.providerAddress(Number(p)).toLowerCase();
    if (c.provider !== want) fail(`the commitment comes from ${c.provider}, expected provider ${p} (${want})`);
    const line = c.line;
    const problems: string[] = [];
    if (String(line.dispatchTimestamp) !== bid.dispatch.toString())
      problems.push(
        `dispatchTimestamp ${JSON.stringify(line.dispatchTimestamp)}, the application chose ${bid.dispatch}`,
      );
    const hashes = bid.txs.map((t) => t.hash);
    if (JSON.stringify(line.txHashes) !== JSON.stringify(hashes))
      problems.push(`txHashes ${JSON.stringify(line.txHashes)}, expected ${JSON.stringify(hashes)}`);
    if (String(line.bidAmount) !== bid.amount.toString())
      problems.push(`bidAmount ${JSON.stringify(line.bidAmount)}, expected "${bid.amount}"`);
    if (String(line.blockNumber) !== bid.block.toString())
      problems.push(`blockNumber ${JSON.stringify(line.blockNumber)}, expected "${bid.block}"`);
    if (problems.length) fail(`the commitment does not carry what was agreed:\n  ${problems.join("\n  ")}`);
  },
);

// ------------------------------------------------------------------------------------------- on chain: stored, opened

Then(
  new RegExp(
    `^the commitment(?: for L1 block ${BLOCK_REF})? is soon stored on the settlement chain by provider (\\d+)$`,
  ),
  async function (this: ConformanceWorld, ref: string | undefined, p: string) {
    const s = settlementOf(this);
    const c = s.commitment(ref);
    const want = s.providerAddress(Number(p));
    const u = await eventually(`UnopenedCommitmentStored for commitment ${c.idx}`, async () => {
      const u = await s.chain.unopened(c.idx);
      return u.committer === zeroAddress
        ? { done: false, seen: "no unopened commitment at that index" }
        : { done: true, value: u };
    });
    const problems: string[] = [];
    if (u.committer.toLowerCase() !== want.toLowerCase())
      problems.push(`committer ${u.committer}, expected provider ${p} (${want})`);
    if (u.commitmentDigest.toLowerCase() !== c.digest)
      problems.push(`digest ${u.commitmentDigest}, expected ${c.digest}`);
    if (u.dispatchTimestamp !== c.bid.dispatch)
      problems.push(`dispatchTimestamp ${u.dispatchTimestamp}, the application chose ${c.bid.dispatch}`);
    if (problems.length) fail(`PreconfManager.getUnopenedCommitment(${c.idx}):\n  ${problems.join("\n  ")}`);
  },
);

Then(
  new RegExp(
    `^the commitment(?: for L1 block ${BLOCK_REF})? was opened on chain for provider (\\d+) with the terms of the bid$`,
  ),
  async function (this: ConformanceWorld, ref: string | undefined, p: string) {
    const s = settlementOf(this);
    const c = s.commitment(ref);
    const want = s.providerAddress(Number(p)).toLowerCase();
    const o = await s.chain.opened(c.idx);
    const b = c.bid;
    const expected: [string, unknown, unknown][] = [
      ["committer", o.committer.toLowerCase(), want],
      ["bidder", o.bidder.toLowerCase(), s.target.bidderAddress.toLowerCase()],
      ["bidAmt", o.bidAmt, b.amount],
      ["slashAmt", o.slashAmt, b.slashAmount],
      ["blockNumber", o.blockNumber, b.block],
      ["decayStartTimeStamp", o.decayStartTimeStamp, b.decayStart],
      ["decayEndTimeStamp", o.decayEndTimeStamp, b.decayEnd],
      ["dispatchTimestamp", o.dispatchTimestamp, b.dispatch],
      ["commitmentDigest", o.commitmentDigest.toLowerCase(), c.digest],
      ["txnHash", o.txnHash, b.txs.map((t) => t.hash).join(",")],
      ["revertingTxHashes", o.revertingTxHashes, b.reverting.join(",")],
    ];
    const problems = expected
      .filter(([, a, e]) => a !== e)
      .map(([k, a, e]) => `${k} = ${String(a)}, expected ${String(e)}`);
    if (problems.length) fail(`PreconfManager.getCommitment(${c.idx}):\n  ${problems.join("\n  ")}`);
    // Who opened it: the winner, or the bidder as its fallback (api-behaviour §3.3; which one comes first is timing).
    const logs = (await s.chain.logsSince(s.settlementFrom)).filter(
      (l) => l.eventName === "OpenedCommitmentStored" && String(l.args.commitmentIndex).toLowerCase() === c.idx,
    );
    if (logs.length !== 1) fail(`expected one OpenedCommitmentStored for ${c.idx}, found ${logs.length}`);
    const tx = await s.chain.settlement.getTransaction({ hash: logs[0]!.transactionHash });
    const bidder = s.target.bidderAddress.toLowerCase();
    if (tx.from.toLowerCase() !== want && tx.from.toLowerCase() !== bidder)
      fail(`the commitment was opened by ${tx.from}, neither provider ${p} (${want}) nor the bidder (${bidder})`);
    this.log(
      `opened by ${tx.from.toLowerCase() === want ? `provider ${p}` : "the bidder (its fallback)"} in ${tx.hash}`,
    );
  },
);

Then(
  new RegExp(`^the commitment(?: for L1 block ${BLOCK_REF})? was never opened on chain$`),
  async function (this: ConformanceWorld, ref: string | undefined) {
    const s = settlementOf(this);
    const c = s.commitment(ref);
    const [u, o, processed] = await Promise.all([
      s.chain.unopened(c.idx),
      s.chain.opened(c.idx),
      s.chain.processed(c.idx, s.settlementFrom),
    ]);
    if (u.committer === zeroAddress) fail(`commitment ${c.idx} is not even stored on chain`);
    if (u.isOpened) fail(`commitment ${c.idx} is marked opened in getUnopenedCommitment`);
    if (o.committer !== zeroAddress)
      fail(`commitment ${c.idx} was opened on chain (committer ${o.committer}, block ${o.blockNumber})`);
    if (processed.length)
      fail(`commitment ${c.idx} was processed by the oracle (${processed.length} CommitmentProcessed)`);
  },
);

Then(
  new RegExp(`^no funds moved for the commitment(?: for L1 block ${BLOCK_REF})?$`),
  async function (this: ConformanceWorld, ref: string | undefined) {
    const s = settlementOf(this);
    const c = s.commitment(ref);
    const logs = await s.chain.logsSince(s.settlementFrom);
    const mine = logs.filter(
      (l) =>
        (["FundsRewarded", "FundsRetrieved"].includes(l.eventName) &&
          String(l.args.commitmentDigest).toLowerCase() === c.digest) ||
        (l.eventName === "CommitmentProcessed" && String(l.args.commitmentIndex).toLowerCase() === c.idx),
    );
    if (mine.length) fail(`funds moved for commitment ${c.digest}: ${mine.map((l) => l.eventName).join(", ")}`);
    const payment = await s.chain.bidPayment(c.digest);
    if (payment[2] !== 0 || payment[1] !== 0n)
      fail(
        `BidderRegistry.bidPayment(${c.digest}) = {bidAmt ${payment[1]}, state ${payment[2]}}: the bid was locked, expected it never to be`,
      );
  },
);

// ------------------------------------------------------------------------------------------- L1 blocks

async function expectHeadBefore(world: ConformanceWorld, block: bigint): Promise<void> {
  const head = await settlementOf(world).chain.l1.getBlockNumber({ cacheTime: 0 });
  if (head !== block - 1n)
    fail(`the L1 head is ${head}, expected ${block - 1n}: something mined L1 blocks during the scenario`);
}

function watchAll(world: ConformanceWorld): void {
  const s = settlementOf(world);
  for (const c of s.commitments) s.watch(c, ["bidder", `provider ${c.providerIndex}`]);
}

When(
  /^L1 block B is mined with provider (\d+) as the winner, then (\d+) more blocks?$/,
  async function (this: ConformanceWorld, p: string, more: string) {
    const s = settlementOf(this);
    await expectHeadBefore(this, s.blockOf("B"));
    watchAll(this);
    await s.mine(1 + Number(more), Number(p));
  },
);

When(
  /^L1 block B is mined with provider (\d+) as the winner and B\+1 with provider (\d+), then (\d+) more blocks?$/,
  async function (this: ConformanceWorld, p: string, q: string, more: string) {
    const s = settlementOf(this);
    await expectHeadBefore(this, s.blockOf("B"));
    watchAll(this);
    await s.mine(1, Number(p));
    await s.mine(1 + Number(more), Number(q));
  },
);

When(/^(\d+) more L1 blocks? (?:is|are) mined$/, async function (this: ConformanceWorld, n: string) {
  await settlementOf(this).mine(Number(n));
});

Then(
  new RegExp(`^BlockTracker records provider (\\d+) as the winner of L1 block ${BLOCK_REF}$`),
  async function (this: ConformanceWorld, p: string, ref: string) {
    const s = settlementOf(this);
    const block = s.blockOf(ref);
    const winner = await s.chain.winnerOf(block);
    const want = s.providerAddress(Number(p));
    if (winner.toLowerCase() !== want.toLowerCase())
      fail(`BlockTracker.getBlockWinner(${block}) = ${winner}, expected provider ${p} (${want})`);
  },
);

Then(
  /^L1 block B holds the committed transactions (in order and contiguous|in reverse order|with another transaction between them|nowhere)$/,
  async function (this: ConformanceWorld, layout: string) {
    const s = settlementOf(this);
    const c = s.commitment();
    const block = await s.chain.l1.getBlock({ blockNumber: c.bid.block });
    const order = block.transactions.map((h) => h.slice(2).toLowerCase());
    const pos = c.bid.txs.map((t) => order.indexOf(t.hash));
    const describe = `positions ${JSON.stringify(pos)} of the committed transactions in block ${c.bid.block} (${order.length} transactions)`;
    const ok =
      layout === "nowhere"
        ? pos.every((p) => p < 0)
        : pos.every((p) => p >= 0) &&
          (layout === "in order and contiguous"
            ? pos.every((p, i) => p === pos[0]! + i)
            : layout === "in reverse order"
              ? pos.every((p, i) => p === pos[0]! - i) && pos.length > 1
              : pos.length === 2 && pos[1] === pos[0]! + 2);
    if (!ok)
      fail(
        `expected the committed transactions ${layout}; ${describe}: the devnet's builder did not do what the scenario set up`,
      );
  },
);

Then(
  /^the committed transactions? (succeeded|failed) in L1 block B$/,
  async function (this: ConformanceWorld, how: string) {
    const s = settlementOf(this);
    const c = s.commitment();
    for (const t of c.bid.txs) {
      const r = await s.chain.l1
        .getTransactionReceipt({ hash: `0x${t.hash}` })
        .catch((e: Error) => fail(`no L1 receipt for ${t.hash}: ${e.message.split("\n")[0]}`));
      if (r.blockNumber !== c.bid.block)
        fail(`transaction ${t.hash} is in L1 block ${r.blockNumber}, expected ${c.bid.block}`);
      const want = how === "succeeded" ? "success" : "reverted";
      if (r.status !== want) fail(`transaction ${t.hash} has status ${r.status}, expected ${want}`);
    }
  },
);

// ------------------------------------------------------------------------------------------- settlement

Then(
  new RegExp(`^the commitment(?: for L1 block ${BLOCK_REF})? is soon (rewarded|slashed) on chain$`),
  async function (this: ConformanceWorld, ref: string | undefined, how: string) {
    const s = settlementOf(this);
    const c = s.commitment(ref);
    const log = await s.settled(c);
    const isSlash = log.args.isSlash as boolean;
    if (isSlash !== (how === "slashed"))
      fail(
        `the oracle ${isSlash ? "slashed" : "rewarded"} commitment ${c.idx}, expected it ${how} (settlement tx ${log.transactionHash})`,
      );
    const o = await s.chain.opened(c.idx);
    if (!o.isSettled) fail(`CommitmentProcessed was emitted for ${c.idx} but getCommitment says isSettled = false`);
    // The amounts are read at the settlement's block and the one before: a chain without past states cannot tell.
    const noPastStates = preflight()?.unmet["past-states"];
    if (noPastStates) {
      this.attach(`${SKIPPED_PREFIX}${noPastStates}`, "text/plain");
      return "skipped";
    }
    facts.set(
      c,
      await s.chain.settlementFacts(
        {
          idx: c.idx,
          digest: c.digest,
          provider: c.provider,
          bidder: s.target.bidderAddress as Address,
          window: windowOfBlock(c.bid.block),
        },
        log,
      ),
    );
  },
);

const fmt = (v: bigint | undefined) => (v === undefined ? "nothing" : v.toString());

Then(
  /^the settlement moved exactly these amounts, in wei:$/,
  async function (this: ConformanceWorld, table: DataTable) {
    const s = settlementOf(this);
    const c = s.commitment();
    const f =
      facts.get(c) ??
      fail('the settlement was not observed yet (say "the commitment is soon rewarded/slashed on chain" first)');
    const b = c.bid;
    const { br, pr } = await s.chain.feePercents();
    const residual = residualAfterDecay(b.decayStart, b.decayEnd, b.dispatch);
    const opened = await s.chain.opened(c.idx);
    const locked = opened.bidAmt;
    const problems: string[] = [];
    if (locked !== b.amount)
      problems.push(
        `the bid locked at open is ${locked} wei, the bid was ${b.amount} (the per-block allowance capped it?)`,
      );

    // What each row means: [what the chain shows, what crypto-contracts §2 gives].
    let rows: Record<string, [bigint | undefined, bigint]>;
    if (f.kind === "reward") {
      const r = rewardSplit(locked, residual, br);
      rows = {
        "decayed bid (FundsRewarded)": [f.rewarded, r.decayed],
        "provider reward (providerAmount)": [f.providerAmountDelta, r.provider],
        "protocol fee": [f.protocolFee, r.fee],
        "bidder refund (pushed to its account)": [f.bidderReceived, r.bidderRefund],
      };
      if (f.stakeTaken !== 0n) problems.push(`a reward took ${f.stakeTaken} wei from the provider's stake`);
      if (f.retrieved !== undefined) problems.push(`a reward emitted FundsRetrieved(${f.retrieved})`);
      if (f.slashed !== undefined) problems.push(`a reward emitted FundsSlashed(${f.slashed})`);
    } else {
      const stakeBefore = await s.chain.settlement.readContract({
        address: s.chain.c.providerRegistry!,
        abi: providerRegistryAbi,
        functionName: "getProviderStake",
        args: [c.provider],
        blockNumber: f.block - 1n,
      });
      const sl = slashSplit(locked, residual, b.slashAmount, pr, stakeBefore);
      rows = {
        "bidder portion (decayed bid + slash amount)": [
          f.retrieved === undefined ? undefined : f.bidderReceived - f.retrieved,
          sl.bidderPortion,
        ],
        penalty: [f.penalty, sl.penalty],
        "taken from the provider's stake": [f.stakeTaken, sl.totalSlash],
        "bid unlocked to the bidder (FundsRetrieved)": [f.retrieved, locked],
        "bidder's account received": [f.bidderReceived, sl.bidderPortion + locked],
      };
      if (f.slashed !== f.stakeTaken)
        problems.push(`FundsSlashed says ${fmt(f.slashed)} wei, the stake dropped by ${f.stakeTaken}`);
      if (f.providerAmountDelta !== 0n) problems.push(`a slash credited the provider ${f.providerAmountDelta} wei`);
      if (f.rewarded !== undefined) problems.push(`a slash emitted FundsRewarded(${f.rewarded})`);
    }
    if (f.bidderSlashedAmountDelta !== 0n)
      problems.push(`bidderSlashedAmount grew by ${f.bidderSlashedAmountDelta} (a push to the bidder failed)`);
    if (f.transferFailures.length) problems.push(`the settlement emitted ${f.transferFailures.join(", ")}`);

    for (const [what, wei] of table.raw()) {
      const row = rows[what!];
      if (!row) fail(`unknown row "${what}" for a ${f.kind}; rows are: ${Object.keys(rows).join(" | ")}`);
      if (!/^\d+$/.test(wei!.trim())) fail(`row "${what}": "${wei}" is not a wei amount`);
      const literal = BigInt(wei!.trim());
      const [onChain, computed] = row;
      if (literal !== computed)
        problems.push(
          `${what}: the feature says ${literal}, but crypto-contracts §2 (features/support/protocol.ts with the contracts' fee percents, ` +
            `BidderRegistry ${br}, ProviderRegistry ${pr}) gives ${computed}: the feature, decay.ts or the target's fee settings are wrong`,
        );
      if (onChain !== literal) problems.push(`${what}: the chain shows ${fmt(onChain)}, expected ${literal}`);
    }
    if (problems.length)
      fail(
        `settlement of commitment ${c.idx} (${f.kind}, settlement block ${f.block}, tx ${f.txHash}, residual ${residual}):\n  ${problems.join("\n  ")}`,
      );
  },
);

// ------------------------------------------------------------------------------------------- the nodes' records

function compareReported(
  r: ReportedCommitment,
  want: { status: string; details?: string; detailsPrefix?: string; payment?: string; refund?: string },
  c: SettlementCommitment,
): string[] {
  const out: string[] = [];
  if (r.status !== want.status) out.push(`status "${r.status}", expected "${want.status}"`);
  if (want.details !== undefined && r.details !== want.details)
    out.push(`details "${r.details}", expected "${want.details}"`);
  if (want.detailsPrefix !== undefined && !String(r.details).startsWith(want.detailsPrefix))
    out.push(`details "${r.details}", expected to start with "${want.detailsPrefix}"`);
  if (want.payment !== undefined && r.payment !== want.payment)
    out.push(`payment "${r.payment}", expected "${want.payment}"`);
  if (want.refund !== undefined && r.refund !== want.refund)
    out.push(`refund "${r.refund}", expected "${want.refund}"`);
  if (String(r.dispatchTimestamp) !== c.bid.dispatch.toString())
    out.push(`dispatchTimestamp "${r.dispatchTimestamp}", the application chose ${c.bid.dispatch}`);
  if (strip(r.providerAddress) !== c.provider.slice(2))
    out.push(`providerAddress "${r.providerAddress}", expected ${c.provider.slice(2)}`);
  return out;
}

const strip = (h: unknown) => String(h).replace(/^0x/, "").toLowerCase();

async function expectReported(
  world: ConformanceWorld,
  node: NodeName,
  ref: string | undefined,
  want: { status: string; details?: string; detailsPrefix?: string; payment?: string; refund?: string },
): Promise<void> {
  const s = settlementOf(world);
  const c = s.commitment(ref);
  await eventually(`${node} reporting commitment ${c.digest} as ${JSON.stringify(want)}`, async () => {
    const r = await readReported(world, node, c);
    if ("missing" in r) return { done: false, seen: r.missing, hopeless: r.hopeless };
    const problems = compareReported(r.found, want, c);
    return problems.length
      ? { done: false, seen: `${problems.join("; ")} — record ${JSON.stringify(r.found)}` }
      : { done: true, value: r.found };
  });
}

Then(
  new RegExp(
    `^(the bidder|provider \\d+) (?:soon )?reports the commitment(?: for L1 block ${BLOCK_REF})? with status "(\\w+)", details "([^"]*)", payment "(\\d*)" and refund "(\\d*)"$`,
  ),
  async function (
    this: ConformanceWorld,
    node: string,
    ref: string | undefined,
    status: string,
    details: string,
    payment: string,
    refund: string,
  ) {
    await expectReported(this, nodeName(node), ref, { status, details, payment, refund });
  },
);

/** The docs/divergences.md entry of upstream's unordered record updates, reported as a race where it applies. */
const STATUS_UPDATES = "Status updates";
/** The details of a record left "opened" by that race. */
const OPENERS = ["opened by provider", "opened by bidder"];

Then(
  /^(the bidder|provider \d+) soon reports the commitment with status "(\w+)", details "([^"]*)", payment "(\d*)" and refund "(\d*)", or leaves it "opened" with them \(a race, reported\)$/,
  async function (
    this: ConformanceWorld,
    node: string,
    status: string,
    details: string,
    payment: string,
    refund: string,
  ) {
    const n = nodeName(node);
    const want = { status, details, payment, refund };
    let observed = false;
    let detail = `${n} reported "${status}"`;
    try {
      await expectReported(this, n, undefined, want);
    } catch (e) {
      // Everything but the status as expected, and the status left at "opened": the race, not a failure. The record
      // the race leaves is an earlier one written back with the payment, so its details name whichever opener that
      // earlier record named: upstream's handler of the OpenedCommitmentStored event, when it runs before its own
      // open transaction's result, writes "opened by" the other party whoever opened it.
      const c = settlementOf(this).commitment();
      const r = await readReported(this, n, c);
      if ("missing" in r) throw e;
      const left = compareReported(r.found, { ...want, status: "opened", details: undefined }, c);
      if (left.length || !OPENERS.includes(r.found.details)) throw e;
      observed = true;
      detail = `${n} left the record "opened" after the settlement: ${JSON.stringify(r.found)}`;
    }
    this.attach(observationAttachment({ what: STATUS_UPDATES, observed, detail }), "text/plain");
  },
);

Then(
  new RegExp(
    `^(the bidder|provider \\d+) (?:soon )?reports the commitment(?: for L1 block ${BLOCK_REF})? with status "(\\w+)" and details starting with "([^"]*)"$`,
  ),
  async function (this: ConformanceWorld, node: string, ref: string | undefined, status: string, prefix: string) {
    await expectReported(this, nodeName(node), ref, { status, detailsPrefix: prefix });
  },
);

Then(
  new RegExp(
    `^the statuses (the bidder|provider \\d+)(?: and (the bidder|provider \\d+))? reported for the commitment(?: for L1 block ${BLOCK_REF})? never went backwards( but to "opened" after the settlement \\(a race, reported\\))?$`,
  ),
  async function (
    this: ConformanceWorld,
    a: string,
    b: string | undefined,
    ref: string | undefined,
    race: string | undefined,
  ) {
    const s = settlementOf(this);
    const c = s.commitment(ref);
    const problems: string[] = [];
    for (const n of [a, b].filter((x): x is string => !!x).map(nodeName)) {
      const w =
        s.watches.find((x) => x.node === n && x.c === c) ??
        fail(`${n}'s statuses were not watched (the mining step starts the watch)`);
      await w.stop();
      if (w.seen.length === 0) problems.push(`${n}: no status observed; ${w.problems.join("; ") || "no answer"}`);
      this.attach(`${n} reported: ${w.seen.join(" → ") || "(nothing)"}`, "text/plain");
      const all = w.regressions();
      // With the race reported, only a final record moved back to "opened" is the race; any other move back fails.
      const raced: string[] = race
        ? all.filter((x) => x === '"settled" then "opened"' || x === '"slashed" then "opened"')
        : [];
      const back = all.filter((x) => !raced.includes(x));
      if (back.length) problems.push(`${n} reported ${w.seen.join(" → ")}: ${back.join(", ")} went backwards`);
      if (race)
        this.attach(
          observationAttachment({
            what: STATUS_UPDATES,
            observed: raced.length > 0,
            detail: `${n} reported ${w.seen.join(" → ") || "(nothing)"}`,
          }),
          "text/plain",
        );
    }
    if (problems.length) fail(problems.join("\n"));
  },
);

Then(
  /^provider (\d+)'s reward answer includes what the commitment paid it, and withdrawing it pays it out$/,
  async function (this: ConformanceWorld, p: string) {
    const s = settlementOf(this);
    const c = s.commitment();
    const f = facts.get(c) ?? fail("the settlement was not observed yet");
    if (f.kind !== "reward" || f.providerAmountDelta <= 0n)
      fail(`the commitment was not rewarded (${f.kind}, providerAmount grew by ${f.providerAmountDelta})`);
    const provider = s.providerAddress(Number(p));
    const owed = await s.chain.settlement.readContract({
      address: s.chain.c.bidderRegistry!,
      abi: bidderRegistryAbi,
      functionName: "providerAmount",
      args: [provider],
    });
    if (owed < f.providerAmountDelta)
      fail(
        `BidderRegistry.providerAmount(${provider}) = ${owed}, less than the ${f.providerAmountDelta} wei this settlement credited`,
      );
    const api = this.provider(Number(p));
    const got = await api.getProviderReward();
    if (got.error || JSON.stringify(got.value) !== JSON.stringify({ amount: owed.toString() }))
      fail(`get_provider_reward: expected {"amount":"${owed}"} (BidderRegistry.providerAmount), got ${got.describe()}`);
    const w = await api.withdrawProviderReward();
    if (w.error || JSON.stringify(w.value) !== JSON.stringify({ amount: owed.toString() }))
      fail(`withdraw_provider_reward: expected {"amount":"${owed}"}, got ${w.describe()}`);
    const left = await s.chain.settlement.readContract({
      address: s.chain.c.bidderRegistry!,
      abi: bidderRegistryAbi,
      functionName: "providerAmount",
      args: [provider],
    });
    if (left !== 0n)
      fail(`BidderRegistry.providerAmount(${provider}) is ${left} after withdraw_provider_reward answered ${owed}`);
  },
);
