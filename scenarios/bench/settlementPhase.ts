/**
 * Settlement throughput (bids.bench.ts phase): with the L1 in manual mining and accept-all providers, bids for the
 * next K L1 blocks, M per block, each for a raw L1 transaction (1 wei to itself) from dev accounts 10–15 of the
 * Anvil mnemonic with its own nonce sequence, so the block's winner includes it and the oracle rewards the
 * commitment. Once every commitment is stored on the settlement chain, mines K + 1 blocks (oracle lag 1) and
 * watches the bidder's store until each winner's commitment is settled (or slashed).
 */

import { type Address, formatEther, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccount } from "../../node/chain/accounts.ts";
import type { Devnet } from "../../node/devnet/startDevnet.ts";
import { BLOCKS_PER_WINDOW, windowOfBlock } from "../../node/protocol/windows.ts";
import { ms, pct, pool, secs, sendBid, waitUntil } from "./common.ts";

/** Dev accounts whose L1 transactions the settlement bids carry (not used by the devnet itself). */
export const TX_ACCOUNTS = [10, 11, 12, 13, 14, 15];
/** Bid amount of the first bid of each block; later bids of the block bid 1 wei less each (a fixed bundle order). */
const BID_AMOUNT = parseEther("0.001");
/** How long to wait for the settlement before reporting what settled so far. */
const SETTLE_TIMEOUT_MS = 120_000;
const STORE_TIMEOUT_MS = 60_000;

export interface SettlementOptions {
  blocks: number;
  bidsPerBlock: number;
  concurrency: number;
  /** Seconds per L1 block the "per minute of L1 time" figure assumes (the devnet's default). */
  blockTime: number;
  /** Oracle lag of the devnet: blocks mined after the last target block so that its winner is recorded. */
  oracleLag: number;
  print: (line: string) => void;
}

/**
 * Whether the devnet's bidder can bid for every one of `blocks` (the auto-deposit may still be sending it): on v1.1 a
 * deposit in each of their windows, on v1.2 a deposit with each provider (no windows).
 */
export async function waitForDeposits(devnet: Devnet, blocks: bigint[], timeoutMs = 15_000): Promise<boolean> {
  return waitUntil(async () => (await depositsFor(devnet, blocks)).every((d) => d > 0n), timeoutMs, 100);
}

/** v1.1: the deposit of each window of `blocks`; v1.2: the deposit with each provider. */
function depositsFor(devnet: Devnet, blocks: bigint[]): Promise<bigint[]> {
  const v12 = devnet.bidder.perProviderDeposits;
  if (v12) return Promise.all(devnet.providers.map((p) => v12.registry.getDeposit(p.address)));
  const registry = devnet.bidder.windowDeposits.registry;
  return Promise.all([...new Set(blocks.map(windowOfBlock))].map((w) => registry.getDeposit(w)));
}

/**
 * What the bidder may bid in all for one block with every provider: v1.1, the per-block allowance of the smallest
 * window deposit (deposit / blocks per window); v1.2, the smallest deposit with a provider (no per-block allowance).
 */
async function allowancePerBlock(devnet: Devnet, blocks: bigint[]): Promise<bigint> {
  const deposits = await depositsFor(devnet, blocks);
  const least = deposits.reduce((m, d) => (d < m ? d : m), deposits[0] ?? 0n);
  return devnet.bidder.perProviderDeposits ? least : least / BLOCKS_PER_WINDOW;
}

/** Runs the phase and prints its lines; answers how many winner commitments settled as rewards. */
export async function settlementPhase(devnet: Devnet, o: SettlementOptions): Promise<number> {
  const { print } = o;
  const K = o.blocks;
  const M = o.bidsPerBlock;
  const head = await devnet.driver.blockNumber();
  const blocks = Array.from({ length: K }, (_, i) => head + 1n + BigInt(i));
  const first = blocks[0]!;
  const last = blocks.at(-1)!;

  // The providers check each bid against what the bidder's deposit allows (allowancePerBlock).
  const depositsReady = await waitForDeposits(devnet, blocks);
  const allowance = await allowancePerBlock(devnet, blocks);
  const perBlock = BID_AMOUNT * BigInt(M);
  print(
    `settlement setup:    ${K} L1 blocks (${first}…${last}) × ${M} bids, each for a raw L1 transaction from dev accounts ${TX_ACCOUNTS[0]}–${TX_ACCOUNTS.at(-1)}; ` +
      `${formatEther(perBlock)} ETH bid per block, allowance ${formatEther(allowance)} ETH per block` +
      (perBlock > allowance || !depositsReady ? "  (WARNING: the deposit does not cover the bids)" : ""),
  );

  // One 1-wei self-transfer per bid. Nonces ascend in bid order (block, then amount descending), which is the order
  // in which each winner's builder sends its bundles (highest bid first), so every transaction is executable.
  const accounts = TX_ACCOUNTS.map((i) => privateKeyToAccount(devAccount(i).privateKey));
  const nonces = await Promise.all(
    accounts.map((a) => devnet.l1Client.getTransactionCount({ address: a.address, blockTag: "pending" })),
  );
  const chainId = devnet.chains.l1.chainId;
  const bodies: string[] = [];
  let g = 0;
  for (const block of blocks) {
    for (let j = 0; j < M; j++, g++) {
      const a = g % accounts.length;
      const account = accounts[a]!;
      const raw = await account.signTransaction({
        chainId,
        nonce: nonces[a]!++,
        to: account.address,
        value: 1n,
        gas: 21_000n,
        maxFeePerGas: 100_000_000_000n,
        maxPriorityFeePerGas: 1n,
      });
      const now = Date.now();
      bodies.push(
        JSON.stringify({
          rawTransactions: [raw.slice(2)],
          amount: String(BID_AMOUNT - BigInt(j)),
          blockNumber: String(block),
          decayStartTimestamp: String(now),
          decayEndTimestamp: String(now + 12_000),
        }),
      );
    }
  }

  const bidderUrl = devnet.target().bidderUrl;
  const tBids = performance.now();
  const results = await pool(
    bodies.map((b) => () => sendBid(bidderUrl, b)),
    o.concurrency,
  );
  const bidSeconds = (performance.now() - tBids) / 1000;
  const commitments = results.reduce((n, r) => n + r.commitments, 0);
  const errors = results.filter((r) => r.failure || r.status !== 200 || r.errorLine);

  // Mine only once every commitment is on the settlement chain, so the timing below is the settlement path alone.
  const store = devnet.bidder.commitments;
  const ofTargets = () => blocks.flatMap((b) => store.forBlock(b));
  const tStore = performance.now();
  const allStored = await waitUntil(() => ofTargets().every((r) => r.status !== "pending"), STORE_TIMEOUT_MS);
  const storeWait = performance.now() - tStore;
  const failedStores = ofTargets().filter((r) => r.status === "failed").length;
  print(
    `settlement bids:     ${bodies.length} bids, ${commitments} commitments in ${bidSeconds.toFixed(2)} s (${errors.length} errors); ` +
      `${allStored ? "all" : "NOT all"} stored on the settlement chain ${secs(storeWait)} after the last bid` +
      (failedStores ? ` (${failedStores} store failures)` : ""),
  );
  const firstError = errors[0];
  if (firstError)
    print(`settlement error:    ${firstError.failure ?? firstError.errorLine ?? `HTTP ${firstError.status}`}`);

  // The block driver runs this just before it asks Anvil to mine the block (after the winner's builder sent its
  // bundles): the moment the block is mined, to within a few milliseconds.
  const minedAt = new Map<bigint, number>();
  const winners = new Map<bigint, Address>();
  devnet.driver.onBeforeMine(async (n, winner) => {
    minedAt.set(n, performance.now());
    winners.set(n, winner);
  });
  const settledBefore = devnet.settler.settledCount;
  const mineBlocks = K + o.oracleLag;
  const tMine = performance.now();
  await devnet.mine(mineBlocks);
  const mineMs = performance.now() - tMine;
  const t0 = minedAt.get(first) ?? tMine;

  // Each target block's winner commitments, and when the bidder's store shows them settled or slashed.
  const expected = new Map<string, bigint>();
  for (const b of blocks) {
    const w = winners.get(b)?.toLowerCase();
    for (const r of store.forBlock(b)) if (r.status !== "failed" && `0x${r.provider}` === w) expected.set(r.digest, b);
  }
  const doneAt = new Map<string, number>();
  /** When the bidder's store first showed the commitment opened (or already settled: opened at or before then). */
  const openedAt = new Map<string, number>();
  const outcome = { settled: 0, slashed: 0 };
  let settlerDoneAt: number | undefined;
  // A light read of the statuses (not CommitmentStore.forBlock, which decodes whole records) every 20 ms.
  const statusQ = devnet.bidder.store.db.query<{ digest: string; status: string }, [number, number]>(
    "SELECT digest, status FROM commitments WHERE block_number BETWEEN ? AND ? AND status IN ('opened', 'settled', 'slashed')",
  );
  const poll = () => {
    const now = performance.now();
    if (settlerDoneAt === undefined && devnet.settler.settledCount - settledBefore >= expected.size)
      settlerDoneAt = now;
    for (const r of statusQ.all(Number(first), Number(last))) {
      if (!expected.has(r.digest) || doneAt.has(r.digest)) continue;
      if (!openedAt.has(r.digest)) openedAt.set(r.digest, now);
      if (r.status === "opened") continue;
      doneAt.set(r.digest, now);
      outcome[r.status as "settled" | "slashed"]++;
    }
    return doneAt.size >= expected.size && settlerDoneAt !== undefined;
  };
  const finished = await waitUntil(poll, SETTLE_TIMEOUT_MS, 20);
  const lastDone = Math.max(...doneAt.values());
  const wallMs = doneAt.size ? lastDone - t0 : NaN;
  const sinceMined = (times: Map<string, number>) =>
    [...times].map(([d, t]) => t - minedAt.get(expected.get(d)!)!).sort((a, b) => a - b);
  const latencies = sinceMined(doneAt);
  const openLatencies = sinceMined(openedAt);
  const l1Minutes = ((K + o.oracleLag) * o.blockTime) / 60;

  print(
    `settlement mining:   ${mineBlocks} blocks (${K} + oracle lag ${o.oracleLag}) mined in ${secs(mineMs)} (the driver awaits the oracle recording each block's winner)`,
  );
  print(
    `settled:             ${doneAt.size} of ${expected.size} winner commitments (${outcome.settled} rewarded, ${outcome.slashed} slashed)` +
      (finished ? "" : `; gave up waiting after ${SETTLE_TIMEOUT_MS / 1000} s`) +
      (expected.size < K * M ? `; expected ${K * M}: some bids got no commitment from their block's winner` : ""),
  );
  print(
    `settle wall time:    ${secs(wallMs)} from the first mined block to the last settlement in the bidder's store ` +
      `(oracle's settler done at ${settlerDoneAt === undefined ? "n/a" : secs(settlerDoneAt - t0)})`,
  );
  print(
    `settle throughput:   ${((doneAt.size / wallMs) * 60_000).toFixed(1)} per minute of wall time; ` +
      `${(doneAt.size / l1Minutes).toFixed(1)} per minute of L1 time (${K + o.oracleLag} blocks × ${o.blockTime} s, the devnet's default block time)`,
  );
  print(
    `settle latency:      p50 ${ms(pct(latencies, 50))}, p99 ${ms(pct(latencies, 99))}, max ${ms(latencies.at(-1) ?? NaN)}  (block mined → settled in the bidder's store)`,
  );
  print(
    `  of which opening:  p50 ${ms(pct(openLatencies, 50))}, p99 ${ms(pct(openLatencies, 99))}, max ${ms(openLatencies.at(-1) ?? NaN)}  (block mined → opened in the bidder's store)`,
  );
  return outcome.settled;
}
