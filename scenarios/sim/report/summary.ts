/**
 * The summary of a run (summary.json): every figure the report shows, computed from what the agents saw, what the
 * nodes' APIs answer after the run, and checked against the settlement chain (`checks`). Pure: no I/O.
 *
 * Everything outside `timing` is a function of the scenario and its seed on the reference devnet: two runs with
 * the same seed give the same summary once `timing` is left out (the determinism test asserts it).
 */
import { ONE_HUNDRED_PERCENT, residualAfterDecay, rewardSplit, slashSplit } from "../../../node/protocol/decay.ts";
import type { ProtocolRules } from "../../../node/protocol/rules.ts";
import { windowOfBlock } from "../../../node/protocol/windows.ts";
import type { BidRecord } from "../run/runLog.ts";
import type { BidInfoBid, MinedBlock } from "../run/simulation.ts";
import type { Scenario } from "../scenario/schema.ts";
import type { ChainLedger } from "./chainLedger.ts";

export interface SummaryInput {
  scenario: Scenario;
  file: string;
  environment: string;
  /** The rules of the run's protocol: which money flows the ledger checks follow. */
  rules: ProtocolRules;
  interrupted: boolean;
  error?: string;
  stepsDone: number;
  firstBlock: bigint;
  mined: MinedBlock[];
  providers: { name: string; address: string }[];
  bidders: {
    name: string;
    address: string;
    deposits: { window: bigint; amount: bigint }[];
    withdrawals: { window: bigint; amount: bigint }[];
    /** v1.2: the deposits the bidder made with providers through the API. */
    providerDeposits: { provider: string; amount: bigint }[];
    /** get_bid_info after the run (every block). */
    bidInfo: BidInfoBid[];
  }[];
  bids: BidRecord[];
  decisions: { provider: number; block: bigint; accepted: boolean; reason?: string }[];
  ledger: ChainLedger;
  validators?: { keys: number; optedIn: number };
  bots: { bidder: number; announcedSlots: number; slotsBidFor: number }[];
  warnings: string[];
  timing: { startedAt: string; durationMs: number; logFile?: string };
}

export interface Check {
  name: string;
  subject: string;
  /** The figure as the report computes it from the nodes' APIs, and as the chain shows it. */
  report: string;
  chain: string;
  ok: boolean;
}

export interface CommitmentOutcome {
  bidder: string;
  provider: string;
  block: string;
  bidAmount: string;
  /** Where in the decay window the provider dispatched (0 = decay start), to 4 decimals. */
  dispatchAt: number;
  status: string;
  payment: string;
  /** What the provider's stake lost, by the settlement maths (slashed commitments). */
  slashed: string;
}

const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);

/**
 * A v1.2 slash (ProviderRegistry.slash): the bidder gets the slash amount and the penalty fee is a percent of it,
 * both from the provider's stake (the bidder's portion first when the stake is short). The bid itself goes back to
 * the bidder's account from its escrow, not from the stake.
 */
function slashTotalV12(slashAmount: bigint, penaltyPercent: bigint, stake?: bigint): bigint {
  const penalty = (slashAmount * penaltyPercent) / ONE_HUNDRED_PERCENT;
  if (stake !== undefined && stake < slashAmount + penalty) return stake;
  return slashAmount + penalty;
}
const s = (x: bigint) => x.toString();
const lower = (a: string) => a.toLowerCase();

function percentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  return (
    Math.round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]! * 10) / 10
  );
}

function histogram(values: number[], buckets = 12): { fromMs: number; toMs: number; count: number }[] {
  if (!values.length) return [];
  const max = Math.max(...values);
  const width = Math.max(1, Math.ceil(max / buckets / 5) * 5);
  return Array.from({ length: Math.ceil((max + 1) / width) }, (_, i) => ({
    fromMs: i * width,
    toMs: (i + 1) * width,
    count: values.filter((v) => v >= i * width && v < (i + 1) * width).length,
  }));
}

export function summarise(input: SummaryInput) {
  const sc = input.scenario;
  const { ledger } = input;
  const { rules } = input;
  const perProvider = rules.deposits === "provider";
  const providerIndex = new Map(input.providers.map((p, i) => [lower(p.address), i]));
  const providerName = (a: string) => input.providers[providerIndex.get(lower(a)) ?? -1]?.name ?? a;
  const runBlocks = input.mined.filter((m) => !m.drain);
  const winnerOf = new Map(input.mined.map((m) => [m.block, m.winner]));

  // Every winner commitment and how it ended, joined from the bidders' get_bid_info and the bids they sent.
  const outcomes: CommitmentOutcome[] = [];
  const penaltyStake = new Map<string, bigint>(Object.entries(ledger.before.providers).map(([a, v]) => [a, v.stake]));
  for (const [bi, b] of input.bidders.entries()) {
    for (const info of [...b.bidInfo].sort(
      (x, y) =>
        Number(BigInt(x.blockNumber) - BigInt(y.blockNumber)) || (BigInt(y.bidAmount) > BigInt(x.bidAmount) ? 1 : -1),
    )) {
      const block = BigInt(info.blockNumber);
      const winner = winnerOf.get(block);
      for (const c of info.commitments) {
        const provider = `0x${c.providerAddress.replace(/^0x/, "")}`.toLowerCase();
        if (provider !== winner) continue;
        const start = BigInt(info.decayStartTimestamp);
        const end = BigInt(info.decayEndTimestamp);
        const dispatch = BigInt(c.dispatchTimestamp);
        const residual = residualAfterDecay(start, end, dispatch);
        let slashed = 0n;
        if (c.status === "slashed") {
          // v1.2: an empty slash amount means the bid's amount (the rules' emptySlashAmount).
          const slashAmount =
            !info.slashAmount && rules.emptySlashAmount === "bidAmount"
              ? BigInt(info.bidAmount)
              : BigInt(info.slashAmount || "0");
          slashed =
            rules.slashPays === "slashAmount"
              ? slashTotalV12(slashAmount, ledger.penaltyFeePercent, penaltyStake.get(provider))
              : slashSplit(
                  BigInt(info.bidAmount),
                  residual,
                  slashAmount,
                  ledger.penaltyFeePercent,
                  penaltyStake.get(provider),
                ).totalSlash;
          penaltyStake.set(provider, (penaltyStake.get(provider) ?? 0n) - slashed);
        }
        outcomes.push({
          bidder: input.bidders[bi]!.name,
          provider: providerName(provider),
          block: info.blockNumber,
          bidAmount: info.bidAmount,
          dispatchAt: end > start ? Math.round((Number(dispatch - start) / Number(end - start)) * 10_000) / 10_000 : 0,
          status: c.status,
          payment: c.payment || "0",
          slashed: s(slashed),
        });
      }
    }
  }
  const perBlock = runBlocks.map((m) => {
    const bids = input.bids.filter((b) => b.block === m.block);
    const os = outcomes.filter((o) => o.block === s(m.block));
    return {
      step: m.step + 1,
      block: s(m.block),
      winner: m.winner ? providerName(m.winner) : "none",
      bids: bids.length,
      commitments: bids.reduce((n, b) => n + b.commitments.length, 0),
      bidErrors: bids.filter((b) => b.error).length,
      settled: os.filter((o) => o.status === "settled").length,
      slashed: os.filter((o) => o.status === "slashed").length,
      paid: s(sum(os.map((o) => BigInt(o.payment)))),
      slashedAmount: s(sum(os.map((o) => BigInt(o.slashed)))),
    };
  });

  const checks: Check[] = [];
  const check = (name: string, subject: string, report: bigint, chain: bigint) =>
    checks.push({ name, subject, report: s(report), chain: s(chain), ok: report === chain });
  const fee = (x: bigint) => (x * ledger.protocolFeePercent) / ONE_HUNDRED_PERCENT;

  const providers = input.providers.map((p, i) => {
    const a = lower(p.address);
    const spec = sc.providers[i]!;
    const mine = outcomes.filter((o) => o.provider === p.name);
    const settled = mine.filter((o) => o.status === "settled");
    const slashedOs = mine.filter((o) => o.status === "slashed");
    const gross = sum(settled.map((o) => BigInt(o.payment)));
    const net = sum(settled.map((o) => BigInt(o.payment) - fee(BigInt(o.payment))));
    const slashes = sum(slashedOs.map((o) => BigInt(o.slashed)));
    const expectedGross = sum(
      input.bidders.flatMap((b) =>
        b.bidInfo.flatMap((info) =>
          info.commitments
            .filter(
              (c) =>
                `0x${c.providerAddress.replace(/^0x/, "")}`.toLowerCase() === a &&
                c.status === "settled" &&
                winnerOf.get(BigInt(info.blockNumber)) === a,
            )
            .map(
              (c) =>
                rewardSplit(
                  BigInt(info.bidAmount),
                  residualAfterDecay(
                    BigInt(info.decayStartTimestamp),
                    BigInt(info.decayEndTimestamp),
                    BigInt(c.dispatchTimestamp),
                  ),
                  0n,
                ).decayed,
            ),
        ),
      ),
    );
    const before = ledger.before.providers[a]!;
    const after = ledger.after.providers[a]!;
    check("rewards = registry balance change", p.name, net, after.rewards - before.rewards);
    check("slashes = stake change", p.name, slashes, before.stake - after.stake);
    check(
      "slashes = FundsSlashed events",
      p.name,
      slashes,
      sum(ledger.slashes.filter((x) => x.provider === a).map((x) => x.amount)),
    );
    check("payments = decay of the bids", p.name, gross, expectedGross);
    const decided = input.decisions.filter((d) => d.provider === i);
    return {
      name: p.name,
      address: a,
      policy: spec.policy.type,
      dispatchAt: spec.dispatchAt,
      builder: spec.builder.every > 1 ? `${spec.builder.mode}, one bundle in ${spec.builder.every}` : spec.builder.mode,
      accepted: decided.filter((d) => d.accepted).length,
      rejected: decided.filter((d) => !d.accepted).length,
      commitments: input.bids.reduce((n, b) => n + b.commitments.filter((c) => c.provider === a).length, 0),
      blocksWon: runBlocks.filter((m) => m.winner === a).length,
      settled: settled.length,
      slashed: slashedOs.length,
      failed: mine.filter((o) => o.status === "failed").length,
      rewardsGross: s(gross),
      rewards: s(net),
      slashes: s(slashes),
      // Cumulative rewards (net) and slashes after each block of the run, for the plot.
      overTime: runBlocks.map((m) => {
        const upTo = mine.filter((o) => BigInt(o.block) <= m.block);
        return {
          block: s(m.block),
          rewards: s(
            sum(upTo.filter((o) => o.status === "settled").map((o) => BigInt(o.payment) - fee(BigInt(o.payment)))),
          ),
          slashes: s(sum(upTo.map((o) => BigInt(o.slashed)))),
        };
      }),
    };
  });

  /**
   * v1.2's money flows: a deposit with each provider; on open the winner's bid is escrowed from the deposit with it;
   * a reward pays the decayed bid (less the fee) to the provider and sends the rest straight to the bidder's account;
   * a slash sends the whole bid back to the account. So the deposits go down by exactly the opened bids, and nothing
   * is left in escrow once every opened commitment settled.
   */
  const v12BidderChecks = (
    b: SummaryInput["bidders"][number],
    a: string,
    opened: CommitmentOutcome[],
    mine: CommitmentOutcome[],
  ) => {
    const pairs = Object.entries(ledger.after.deposits ?? {}).filter(([k]) => k.startsWith(`${a}/`));
    const at = (snap: typeof ledger.before, k: string) => snap.deposits?.[k] ?? { available: 0n, escrowed: 0n };
    const deposited = sum(ledger.providerDeposits.filter((d) => d.bidder === a).map((d) => d.amount));
    const withdrawn = sum(ledger.providerWithdrawals.filter((d) => d.bidder === a).map((d) => d.amount));
    check("deposits = BidderDeposited events", b.name, sum(b.providerDeposits.map((d) => d.amount)), deposited);
    check(
      "bids escrowed = deposits − withdrawals − change of the deposits",
      b.name,
      sum(opened.map((o) => BigInt(o.bidAmount))),
      deposited -
        withdrawn -
        sum(pairs.map(([k]) => at(ledger.after, k).available + at(ledger.after, k).escrowed)) +
        sum(pairs.map(([k]) => at(ledger.before, k).available + at(ledger.before, k).escrowed)),
    );
    check(
      "escrow left after settlement = 0",
      b.name,
      0n,
      sum(pairs.map(([k]) => at(ledger.after, k).escrowed - at(ledger.before, k).escrowed)),
    );
    check(
      "slashed bids returned = FundsUnlocked events",
      b.name,
      sum(mine.filter((o) => o.status === "slashed").map((o) => BigInt(o.bidAmount))),
      sum(ledger.unlocked.filter((u) => u.bidder === a).map((u) => u.amount)),
    );
  };

  const windowsUsed = new Set<bigint>();
  const bidders = input.bidders.map((b, i) => {
    const a = lower(b.address);
    const spec = sc.bidders[i]!;
    const bids = input.bids.filter((x) => x.bidder === i);
    const mine = outcomes.filter((o) => o.bidder === b.name);
    const settled = mine.filter((o) => o.status === "settled");
    const paid = sum(settled.map((o) => BigInt(o.payment)));
    const settledBids = sum(settled.map((o) => BigInt(o.bidAmount)));
    const opened = mine.filter((o) => o.status === "settled" || o.status === "slashed");
    const chainDeposits = ledger.deposits.filter((d) => d.bidder === a);
    const chainWithdrawals = ledger.withdrawals.filter((d) => d.bidder === a);
    const remaining = ledger.remaining.filter((d) => d.bidder === a);
    for (const d of chainDeposits) windowsUsed.add(d.window);
    check(
      "spend = FundsRewarded events",
      b.name,
      paid,
      sum(ledger.rewards.filter((r) => r.bidder === a).map((r) => r.amount)),
    );
    if (perProvider) v12BidderChecks(b, a, opened, mine);
    else {
      if (spec.deposit.type === "per-window") {
        check(
          "deposits = registry deposits",
          b.name,
          sum(b.deposits.map((d) => d.amount)),
          sum(chainDeposits.map((d) => d.amount)),
        );
        check(
          "refunds = registry withdrawals",
          b.name,
          sum(b.withdrawals.map((d) => d.amount)),
          sum(chainWithdrawals.map((d) => d.amount)),
        );
      } else {
        const wrong = chainDeposits.filter((d) => d.amount !== spec.deposit.amount);
        checks.push({
          name: "auto-deposits = amount per window",
          subject: b.name,
          report: `${spec.deposit.amount} × ${chainDeposits.length}`,
          chain: wrong.length
            ? wrong.map((d) => `${d.amount} in window ${d.window}`).join(", ")
            : `${spec.deposit.amount} × ${chainDeposits.length}`,
          ok: wrong.length === 0,
        });
      }
      const inWindows =
        sum(chainDeposits.map((d) => d.amount)) -
        sum(chainWithdrawals.map((d) => d.amount)) -
        sum(remaining.map((d) => d.amount));
      check(
        "bids locked = deposits − refunds − balance",
        b.name,
        sum(opened.map((o) => BigInt(o.bidAmount))),
        inWindows,
      );
    }
    const first = bids.filter((x) => x.firstCommitmentMs !== undefined);
    return {
      name: b.name,
      address: a,
      strategy: spec.strategy.type,
      deposit: `${spec.deposit.type} ${spec.deposit.amount}`,
      transactions: spec.transactions,
      bids: bids.length,
      bidsWithCommitments: first.length,
      bidErrors: bids.filter((x) => x.error).length,
      bidAmount: s(sum(bids.map((x) => x.amount))),
      settled: settled.length,
      slashed: mine.filter((o) => o.status === "slashed").length,
      settledBidAmount: s(settledBids),
      spend: s(paid),
      decaySaved: s(settledBids - paid),
      deposited: s(
        perProvider
          ? sum(ledger.providerDeposits.filter((d) => d.bidder === a).map((d) => d.amount))
          : sum(chainDeposits.map((d) => d.amount)),
      ),
      refunded: s(sum(chainWithdrawals.map((d) => d.amount))),
      leftInWindows: s(sum(remaining.map((d) => d.amount))),
      budgetReached: spec.budget !== undefined && sum(bids.map((x) => x.amount)) + spec.amount.max > spec.budget,
    };
  });

  const windows = [...windowsUsed]
    .sort((x, y) => Number(x - y))
    .map((w) => ({
      window: s(w),
      blocks: perBlock.filter((p) => windowOfBlock(BigInt(p.block)) === w).length,
      deposits: s(sum(ledger.deposits.filter((d) => d.window === w).map((d) => d.amount))),
      refunds: s(
        sum(
          ledger.withdrawals
            .filter((d) => d.window === w && input.bidders.some((b) => lower(b.address) === d.bidder))
            .map((d) => d.amount),
        ),
      ),
      left: s(sum(ledger.remaining.filter((d) => d.window === w).map((d) => d.amount))),
    }));

  const firstMs = input.bids
    .flatMap((b) => (b.firstCommitmentMs === undefined ? [] : [b.firstCommitmentMs]))
    .sort((x, y) => x - y);
  const total = (k: "settled" | "slashed" | "bids" | "commitments" | "bidErrors") =>
    perBlock.reduce((n, p) => n + p[k], 0);
  return {
    scenario: { name: sc.name, description: sc.description, file: input.file, seed: sc.seed },
    environment: input.environment,
    protocol: input.rules.version,
    interrupted: input.interrupted,
    error: input.error ?? null,
    blocks: {
      planned: sc.l1.blocks,
      run: input.stepsDone,
      first: s(input.firstBlock),
      last: runBlocks.length ? s(runBlocks.at(-1)!.block) : null,
      drained: input.mined.length - runBlocks.length,
    },
    totals: {
      bids: total("bids"),
      commitments: total("commitments"),
      bidErrors: total("bidErrors"),
      rejected: input.decisions.filter((d) => !d.accepted).length,
      settled: total("settled"),
      slashed: total("slashed"),
      paid: s(sum(perBlock.map((p) => BigInt(p.paid)))),
      slashedAmount: s(sum(perBlock.map((p) => BigInt(p.slashedAmount)))),
    },
    perBlock,
    providers,
    bidders,
    windows,
    /** v1.2: each bidder's deposit with each provider, before and after the run (available + escrowed). */
    providerDeposits: Object.entries(ledger.after.deposits ?? {}).map(([k, v]) => {
      const [bidder, provider] = k.split("/") as [string, string];
      const was = ledger.before.deposits?.[k];
      return {
        bidder: input.bidders.find((b) => lower(b.address) === bidder)?.name ?? bidder,
        provider: providerName(provider),
        before: s(was ? was.available + was.escrowed : 0n),
        after: s(v.available + v.escrowed),
      };
    }),
    commitments: outcomes,
    validators: input.validators ?? null,
    bots: input.bots.map((b) => ({
      bidder: input.bidders[b.bidder]!.name,
      announcedSlots: b.announcedSlots,
      slotsBidFor: b.slotsBidFor,
    })),
    checks,
    checksPassed: checks.every((c) => c.ok),
    warnings: input.warnings,
    // Wall-clock figures: they differ from run to run and are left out of the determinism comparison.
    timing: {
      startedAt: input.timing.startedAt,
      durationMs: input.timing.durationMs,
      firstCommitmentMs: {
        count: firstMs.length,
        p50: percentile(firstMs, 50),
        p90: percentile(firstMs, 90),
        p99: percentile(firstMs, 99),
        max: firstMs.at(-1) ?? null,
      },
      firstCommitmentHistogram: histogram(firstMs),
    },
  };
}

export type Summary = ReturnType<typeof summarise>;

/** The summary without its wall-clock part: what two runs with the same seed must agree on. */
export function deterministicPart(summary: Summary): Omit<Summary, "timing"> {
  const { timing: _, ...rest } = summary;
  return rest;
}
