/**
 * The sustained run of bids.bench.ts (`--sustain S --rate R`): bids sent open loop at R/P per second (R
 * commitments/s with P accept-all providers) for S seconds while the L1 mines a block every `l1BlockTime` seconds,
 * each bid for the block after the next. Every 10 s it prints what the interval achieved and the devnet's health
 * (rss of the node process and of each Anvil, chain heads, pending transactions, settled commitments); at the end
 * it waits for the store transactions and the settlement of the last blocks, then checks what the issue asks: both
 * chains still producing blocks, every commitment stored, every winner's commitment settled, rss flat after warm-up.
 */
import os from "node:os";
import { createPublicClient, http } from "viem";
import { devAccount } from "../../node/chain/accounts.ts";
import type { Devnet } from "../../node/devnet/startDevnet.ts";
import { windowBlockRange, windowOfBlock } from "../../node/protocol/windows.ts";
import { type ChainData, explainedBytes, formatCosts, measureAnvilCosts, readChainDataSoon } from "./anvilMemory.ts";
import { driveOpen, summarise, summaryLines } from "./bidPhase.ts";
import { type BidResult, type BidTarget, bidBodies, ms, pct, waitUntil } from "./common.ts";
import type { CryptoFloor } from "./cryptoFloor.ts";
import { type Health, health, healthLine, mib, pendingCommitments } from "./health.ts";
import { waitForDeposits } from "./settlementPhase.ts";

export interface SustainedOptions {
  seconds: number;
  commitmentsPerSec: number;
  providers: number;
  l1BlockTime: number;
  floor: CryptoFloor;
  print: (line: string) => void;
  /** Where the bids go (default: the devnet's HTTP bidder URL, from this thread). */
  bidder?: BidTarget;
}

const REPORT_EVERY_S = 10;
/** Bids in flight beyond which the driver counts a bid as not sent (the devnet is not keeping up). */
const MAX_IN_FLIGHT = 256;

const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const change = (a: number | undefined, b: number | undefined) =>
  a && b ? `${b >= a ? "+" : ""}${((100 * (b - a)) / a).toFixed(0)} %` : "n/a";

/** How many settlement blocks each node's event follower is behind the head (a follower behind is a node acting late). */
function followersLine(devnet: Devnet, head: number | bigint): string {
  const behind = (p?: { handledThrough: bigint }) => (p ? Math.max(0, Number(BigInt(head) - p.handledThrough)) : "n/a");
  return `events behind: bidder ${behind(devnet.bidder.events)}, providers ${devnet.providers.map((p) => behind(p.events)).join("/")}, oracle ${behind(devnet.oracleEvents)} blocks`;
}

/** Runs the sustained load; answers whether every check held. */
export async function sustainedRun(devnet: Devnet, o: SustainedOptions): Promise<boolean> {
  const { print } = o;
  const bidsPerSec = o.commitmentsPerSec / o.providers;
  const target: BidTarget = o.bidder ?? devnet.target().bidderUrl!;
  const head0 = await devnet.driver.blockNumber();
  await waitForDeposits(devnet, [head0 + 1n, windowBlockRange(windowOfBlock(head0 + 1n) + 1n).start]);
  let head = head0;
  const winners = new Map<number, string>();
  devnet.driver.onBeforeMine(async (n, winner) => {
    head = n;
    winners.set(Number(n), winner.toLowerCase().slice(2));
  });
  const body = bidBodies({ seed: 0xabcdefn, block: () => head + 2n, amount: (i) => 1_000_000_000 + (i % 1000) });

  // The settlement Anvil keeps every block, transaction and storage slot in memory: its rss is judged net of the
  // chain data it gains, at the costs of a bare Anvil measured now (as the soak does; docs/performance.md).
  print(`anvil costs:         measuring a bare settlement-like Anvil (about a minute)…`);
  const costs = await measureAnvilCosts(devnet.config.settlementKeepBlocks || undefined);
  print(`anvil costs:         ${formatCosts(costs)}`);
  const stateFile = devnet.dir.chainState("settlement");
  // Without periodic dumps the state file is not there to count: blocks from the head and transactions from the dev
  // accounts' nonces (every sender of the devnet), storage slots not counted (the check is then stricter).
  const settlementRpc = createPublicClient({ transport: http(devnet.chains.settlement.rpcUrl) });
  const chainData = async (): Promise<ChainData | undefined> => {
    if (devnet.config.settlementStateIntervalS) return readChainDataSoon(stateFile);
    try {
      const blocks = Number(await settlementRpc.getBlockNumber({ cacheTime: 0 }));
      const nonces = await Promise.all(
        Array.from({ length: 30 }, (_, i) => settlementRpc.getTransactionCount({ address: devAccount(i).address })),
      );
      return { blocks, txs: nonces.reduce((a, b) => a + b, 0), slots: 0 };
    } catch {
      return undefined;
    }
  };

  const start = { ...(await health(devnet)), data: await chainData() };
  print(
    `sustained: ${o.commitmentsPerSec} commitments/s (${bidsPerSec.toFixed(0)} bids/s × ${o.providers} providers) for ${o.seconds} s, an L1 block every ${o.l1BlockTime} s, ` +
      `each bid for the block after the next; settlement chain: a block every ${devnet.config.settlementBlockTimeMs} ms, ${devnet.config.settlementHistory} past states kept, ` +
      (devnet.config.settlementStateIntervalS
        ? `its state dumped every ${devnet.config.settlementStateIntervalS} s`
        : "its state not dumped while it runs"),
  );
  print(
    `crypto floor:        ${o.floor.commitmentsPerSec.toFixed(0)} commitments/s on ${o.floor.cores} cores; asked for ${((100 * o.commitmentsPerSec) / o.floor.commitmentsPerSec).toFixed(0)} % of it`,
  );
  print(`start:               ${healthLine(start)}; load average ${loadavg()}`);
  devnet.driver.startInterval(o.l1BlockTime);

  const samples: (Health & { data?: ChainData })[] = [];
  let reported = 0;
  let lastAt = 0;
  const tick = async (done: BidResult[], elapsed: number) => {
    if (elapsed < lastAt + REPORT_EVERY_S) return;
    const slice = done.slice(reported);
    reported = done.length;
    const span = elapsed - lastAt;
    lastAt = elapsed;
    const h = await health(devnet);
    samples.push({ ...h, data: await chainData() });
    const commitments = slice.reduce((n, r) => n + r.commitments, 0);
    const first = slice
      .filter((r) => r.firstMs !== undefined)
      .map((r) => r.firstMs!)
      .sort((a, b) => a - b);
    const errors = slice.filter(
      (r) => r.failure || r.status !== 200 || r.errorLine || r.commitments < o.providers,
    ).length;
    print(
      `${elapsed.toFixed(0).padStart(5)} s  ${(commitments / span).toFixed(0).padStart(5)} commitments/s, first p50 ${ms(pct(first, 50))} p99 ${ms(pct(first, 99))}, ` +
        `${errors} short; settled ${devnet.settler.settledCount}; ${healthLine(h)}; ${followersLine(devnet, h.settlement.head)}; load ${loadavg().split(" ")[0]}`,
    );
  };
  const run = await driveOpen(target, body, bidsPerSec, o.seconds, MAX_IN_FLIGHT, tick);
  devnet.driver.stopInterval();
  await devnet.driver.drain();
  const s = summarise(run, o.providers);
  print(
    `\nsustained result:    ${run.skipped} bids not sent (more than ${MAX_IN_FLIGHT} in flight); load average ${loadavg()}`,
  );
  for (const l of summaryLines(s, o.providers)) print(l);
  print(`ratio to the floor:  ${(s.commitmentsPerSec / o.floor.commitmentsPerSec).toFixed(3)}`);

  // Every store transaction mined, the last blocks' winners recorded and settled.
  const tDrain = performance.now();
  await Promise.all(devnet.providers.map((p) => p.storer?.drain()));
  const stored = await waitUntil(() => pendingCommitments(devnet) === 0, 120_000, 500);
  await devnet.mine(devnet.config.oracleLag + 2);
  const lastBlock = await devnet.driver.blockNumber();
  // Winner commitments of the blocks mined during the run that the oracle has not settled (or slashed) yet.
  const unsettledQ = devnet.bidder.store.db.query<{ block_number: number; provider: string }, [number]>(
    "SELECT block_number, provider FROM commitments WHERE block_number <= ? AND status NOT IN ('settled', 'slashed')",
  );
  const unsettled = () =>
    unsettledQ
      .all(Number(lastBlock) - devnet.config.oracleLag)
      .filter((r) => winners.get(r.block_number) === r.provider).length;
  const settled = await waitUntil(() => unsettled() === 0, 120_000, 500);
  const end = { ...(await health(devnet)), data: await chainData() };
  const counts = devnet.bidder.store.db
    .query<{ status: string; n: number }, []>("SELECT status, COUNT(*) AS n FROM commitments GROUP BY status")
    .all();
  print(
    `drained:             ${((performance.now() - tDrain) / 1000).toFixed(1)} s; bidder's commitments by status: ${counts.map((c) => `${c.status} ${c.n}`).join(", ")}`,
  );
  print(`end:                 ${healthLine(end)}`);

  const warm = samples[Math.min(samples.length - 1, Math.max(0, Math.floor(samples.length / 5)))] ?? start;
  // The node process's rss rises and falls with its JavaScript heap between collections (±40 MiB at 100
  // commitments/s), so two single samples compare points of that sawtooth. What stays is judged instead: the lowest
  // rss of the second fifth of the run (after warm-up) against the lowest of the last fifth and the end.
  const lowest = (xs: Health[]) => xs.reduce((a, b) => (b.rss < a.rss ? b : a));
  const n = samples.length;
  const warmLow = n
    ? lowest(samples.slice(Math.floor(n / 5), Math.max(Math.floor(n / 5) + 1, Math.floor((2 * n) / 5))))
    : start;
  const endLow = lowest([...samples.slice(Math.floor((4 * n) / 5)), end]);
  const flat = (a?: number, b?: number) => !a || !b || Math.abs(b - a) / a <= 0.1;
  // Settlement Anvil: growth beyond what its chain data costs; L1 Anvil: against its highest rss before the end.
  const explained = warm.data && end.data ? explainedBytes(costs, warm.data, end.data) : 0;
  const settlementBeyond =
    warm.settlement.rss && end.settlement.rss
      ? (end.settlement.rss - warm.settlement.rss - explained) / warm.settlement.rss
      : 0;
  const l1Peak = Math.max(...samples.map((x) => x.l1.rss ?? 0));
  const gained =
    warm.data && end.data
      ? `${end.data.blocks - warm.data.blocks} blocks, ${end.data.txs - warm.data.txs} transactions, ` +
        (devnet.config.settlementStateIntervalS
          ? `${end.data.slots - warm.data.slots} slots`
          : "slots not counted (no state file)")
      : "not read";
  const checks: [string, boolean][] = [
    [
      `both chains produced blocks (L1 ${start.l1.head} → ${end.l1.head}, settlement ${start.settlement.head} → ${end.settlement.head})`,
      end.l1.head > start.l1.head && end.settlement.head > start.settlement.head,
    ],
    [
      `every commitment stored (pending: ${pendingCommitments(devnet)}, failed: ${counts.find((c) => c.status === "failed")?.n ?? 0})`,
      stored && !counts.some((c) => c.status === "failed"),
    ],
    [`every winner's commitment settled (waiting: ${unsettled()})`, settled],
    [
      `no transaction left pending (L1 ${end.l1.pending}, settlement ${end.settlement.pending})`,
      end.settlement.pending === 0 && end.l1.pending === 0,
    ],
    [
      `node process rss flat after warm-up (lowest of the second fifth ${mib(warmLow.rss)} with a JS heap of ${mib(warmLow.heapUsed)} → ` +
        `lowest of the last fifth ${mib(endLow.rss)} with ${mib(endLow.heapUsed)}, ${change(warmLow.rss, endLow.rss)})`,
      flat(warmLow.rss, endLow.rss),
    ],
    [
      `settlement Anvil rss flat beyond its chain data (${mib(warm.settlement.rss)} → ${mib(end.settlement.rss)} ${change(warm.settlement.rss, end.settlement.rss)}; ` +
        `chain gained ${gained}, ${mib(explained)} at the bare Anvil's costs; beyond that ${(100 * settlementBeyond).toFixed(1)} %)`,
      settlementBeyond <= 0.1,
    ],
    [
      `L1 Anvil rss not above its highest before the end by more than 10 % (${mib(warm.l1.rss)} → ${mib(end.l1.rss)}, highest ${mib(l1Peak)})`,
      !end.l1.rss || !l1Peak || end.l1.rss <= l1Peak * 1.1,
    ],
  ];
  for (const [what, ok] of checks) print(`${ok ? "ok  " : "FAIL"} ${what}`);
  return checks.every(([, ok]) => ok);
}
