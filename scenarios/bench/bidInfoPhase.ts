/**
 * GetBidInfo latency over a large store (bids.bench.ts phase): inserts N synthetic commitment records straight into
 * the bidder node's CommitmentStore (one SQLite transaction), then times GET /v1/bidder/get_bid_info over HTTP for
 * the first, a middle and the last page at the default limit, one page of 1000, and an exact block filter.
 */
import { devAccount, ROLES } from "../../node/chain/accounts.ts";
import type { Devnet } from "../../node/devnet/startDevnet.ts";
import type { CommitmentStatus } from "../../node/protocol/types.ts";
import { BID_INFO_DEFAULT_LIMIT, MAX_PAGE_LIMIT } from "../../node/query/pageRequest.ts";
import type { CommitmentRecord } from "../../node/tracker/record.ts";
import { ms, pct, prng } from "./common.ts";

/** Blocks the synthetic commitments spread over (fewer when there are fewer than this many records). */
const BLOCKS = 1000;
/** First block of the synthetic history: far above anything the devnet mines, so no tracker or oracle touches it. */
const FIRST_BLOCK = 1_000_001;
/** Distinct providers committing to the synthetic bids. */
const PROVIDERS = 5;

export interface BidInfoOptions {
  records: number;
  requests: number;
  warmup: number;
  print: (line: string) => void;
}

/**
 * N synthetic records: ~N/1000 per block, bids with 1–3 providers' commitments each (sharing the bid's fields),
 * amounts from 1e12 to ~1e18 wei, half by raw transaction, statuses as an old history has them (the block winner's
 * commitments settled or slashed, the others stored, a few failed).
 */
export function syntheticRecords(n: number, bidder: string, seed = 1): CommitmentRecord[] {
  const rand = prng(seed);
  const hex = (chars: number) => {
    let s = "";
    while (s.length < chars)
      s += Math.floor(rand() * 0x1_0000_0000)
        .toString(16)
        .padStart(8, "0");
    return s.slice(0, chars);
  };
  const providers = Array.from({ length: PROVIDERS }, (_, i) =>
    devAccount(ROLES.firstProvider + i)
      .address.toLowerCase()
      .slice(2),
  );
  const blocks = Math.max(1, Math.min(BLOCKS, n));
  const out: CommitmentRecord[] = [];
  let serial = 0;
  for (let b = 0; b < blocks && out.length < n; b++) {
    const block = BigInt(FIRST_BLOCK + b);
    const perBlock = Math.floor(n / blocks) + (b < n % blocks ? 1 : 0);
    const winner = b % PROVIDERS;
    const end = out.length + perBlock;
    while (out.length < end) {
      const bidDigest = hex(64);
      const bidSignature = hex(130);
      const byRaw = rand() < 0.5;
      const txs = 1 + Math.floor(rand() * 2);
      const rawTransactions = byRaw ? Array.from({ length: txs }, () => `02f873827a69${hex(220)}`) : [];
      const txnHash = Array.from({ length: txs }, () => hex(64)).join(",");
      const amount = 1_000_000_000_000n + BigInt(Math.floor(rand() * 1e6)) * 1_000_000_000_000n;
      const decayStart = 1_700_000_000_000n + BigInt(b) * 12_000n;
      const bidderPkX = BigInt(`0x${hex(64)}`);
      const bidderPkY = BigInt(`0x${hex(64)}`);
      const first = Math.floor(rand() * PROVIDERS);
      const count = Math.min(1 + Math.floor(rand() * 3), end - out.length);
      for (let k = 0; k < count; k++) {
        const p = (first + k) % PROVIDERS;
        const failed = rand() < 0.01;
        const status: CommitmentStatus = failed
          ? "failed"
          : p === winner
            ? rand() < 0.9
              ? "settled"
              : "slashed"
            : "stored";
        out.push({
          digest: `${(serial++).toString(16).padStart(8, "0")}${hex(56)}`,
          commitmentIndex: hex(64),
          commitmentSignature: hex(130),
          bidDigest,
          bidSignature,
          bidder,
          provider: providers[p]!,
          txnHash,
          revertingTxHashes: "",
          rawTransactions,
          bidAmount: amount,
          blockNumber: block,
          decayStart,
          decayEnd: decayStart + 12_000n,
          dispatchTimestamp: decayStart + BigInt(Math.floor(rand() * 12_000)),
          slashAmount: 0n,
          bidderPkX,
          bidderPkY,
          sharedX: BigInt(`0x${hex(64)}`),
          sharedY: BigInt(`0x${hex(64)}`),
          status,
          details: failed
            ? "failed to store commitment: execution reverted"
            : status === "stored"
              ? ""
              : "opened by provider",
          payment: status === "settled" ? (amount / 2n).toString() : "",
          refund:
            status === "slashed" ? amount.toString() : status === "settled" ? (amount - amount / 2n).toString() : "",
        });
      }
    }
  }
  return out;
}

interface CaseResult {
  label: string;
  query: string;
  times: number[];
  bytes: number;
  commitments: number;
  errors: number;
}

/** Runs the phase and prints its lines. */
export async function bidInfoPhase(devnet: Devnet, o: BidInfoOptions): Promise<void> {
  const { print } = o;
  const store = devnet.bidder.commitments;
  const before = store.count();
  const tGen = performance.now();
  const records = syntheticRecords(o.records, devnet.bidder.address.toLowerCase().slice(2));
  const genMs = performance.now() - tGen;
  const tInsert = performance.now();
  devnet.bidder.store.db.transaction(() => {
    for (const r of records) store.insert(r);
  })();
  const insertMs = performance.now() - tInsert;
  const total = store.count();
  const blocks = new Set(records.map((r) => r.blockNumber)).size;
  print(
    `bid info store:      ${total - before} synthetic commitments (${blocks} blocks, ${PROVIDERS} providers) inserted into the bidder's store ` +
      `in one transaction in ${ms(insertMs)} (${((records.length / insertMs) * 1000).toFixed(0)}/s; generated in ${ms(genMs)}); ` +
      `the store holds ${total} commitments`,
  );

  const defaultPages = Math.ceil(total / BID_INFO_DEFAULT_LIMIT);
  const midBlock = FIRST_BLOCK + Math.floor(blocks / 2);
  const cases: [string, string][] = [
    ["first page", ""],
    ["middle page", `page=${Math.floor(defaultPages / 2)}`],
    ["last page", `page=${defaultPages - 1}`],
    [`limit=${MAX_PAGE_LIMIT}`, `limit=${MAX_PAGE_LIMIT}`],
    ["block filter", `block_number=${midBlock}`],
  ];
  const url = `${devnet.target().bidderUrl}/v1/bidder/get_bid_info`;
  const results: CaseResult[] = [];
  for (const [label, query] of cases) {
    const r: CaseResult = { label, query, times: [], bytes: 0, commitments: 0, errors: 0 };
    for (let i = 0; i < o.warmup + o.requests; i++) {
      const t0 = performance.now();
      let text = "";
      let ok = false;
      try {
        const res = await fetch(query ? `${url}?${query}` : url);
        text = await res.text();
        ok = res.status === 200;
      } catch {
        ok = false;
      }
      const t = performance.now() - t0;
      if (i < o.warmup) continue;
      if (!ok) r.errors++;
      r.times.push(t);
      if (i === o.warmup && ok) {
        r.bytes = text.length;
        const body = JSON.parse(text) as { blockBidInfo: { bids: { commitments: unknown[] }[] }[] };
        r.commitments = body.blockBidInfo.reduce((n, g) => n + g.bids.reduce((m, b) => m + b.commitments.length, 0), 0);
      }
    }
    r.times.sort((a, b) => a - b);
    results.push(r);
  }
  const width = Math.max(...results.map((r) => r.label.length));
  for (const r of results)
    print(
      `get_bid_info ${r.label.padEnd(width)}  p50 ${ms(pct(r.times, 50))}, p99 ${ms(pct(r.times, 99))}, max ${ms(r.times.at(-1) ?? NaN)}  ` +
        `(${r.times.length} requests ?${r.query || "(defaults)"}: ${r.commitments} commitments, ${(r.bytes / 1024).toFixed(0)} KiB` +
        `${r.errors ? `; ${r.errors} errors` : ""})`,
    );
}
