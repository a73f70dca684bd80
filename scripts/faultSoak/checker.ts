/**
 * The fault soak's checker: compares what the bid clients got, what the nodes recorded and what the settlement chain
 * says. Every acknowledged commitment must be accounted for (settled or slashed as the chain says, or stored and not
 * opened because another provider won its block, or pending because its block is past the checked horizon); none
 * may appear twice; amounts seen by several sides must agree. Pure: the soak gathers the records, this judges them.
 */
import type { AckedCommitment, BalanceView, ChainRecord, ClientBid, NodeBid } from "./records.ts";

/** What became of one acknowledged commitment. */
export type Fate =
  | "settled"
  | "slashed"
  /** Stored on the chain; another provider won its L1 block, so nobody opens it. */
  | "not-won"
  /** Its L1 block is past the checked horizon (the run ended before it could settle). */
  | "pending"
  | "lost";

export const FATES: readonly Fate[] = ["settled", "slashed", "not-won", "pending", "lost"];

export type FindingKind = "lost" | "duplicate" | "disagreement";

export interface Finding {
  kind: FindingKind;
  subject: string;
  detail: string;
}

export interface Accounted {
  digest: string;
  provider: string;
  blockNumber: string;
  fate: Fate;
  reason: string;
}

export interface CheckInput {
  clientBids: ClientBid[];
  nodeBids: NodeBid[];
  chain: ChainRecord;
  balances: BalanceView[];
  /** The last L1 block whose commitments had time to be stored, opened and settled. */
  horizon: bigint;
}

export interface CheckResult {
  acknowledged: number;
  fates: Record<Fate, number>;
  accounted: Accounted[];
  findings: Finding[];
  /**
   * Commitments the nodes recorded (or the chain stored) that no client saw: a stream that broke under a fault, or a
   * commitment that came after the bidder stopped waiting; `settled`: those the chain paid for all the same.
   */
  unacknowledged: { nodes: number; chain: number; settled: number };
}

const short = (h: string) => `${h.slice(0, 10)}…`;

/** Keys seen more than once, with how often. */
function repeats<T>(items: readonly T[], key: (t: T) => string): Map<string, number> {
  const n = new Map<string, number>();
  for (const i of items) n.set(key(i), (n.get(key(i)) ?? 0) + 1);
  return new Map([...n].filter(([, c]) => c > 1));
}

function duplicates(input: CheckInput, findings: Finding[]): void {
  const dup = (subject: string, detail: string) => findings.push({ kind: "duplicate", subject, detail });
  const acked = input.clientBids.flatMap((b) => b.commitments.map((c) => ({ bid: b, c })));
  for (const [digest, n] of repeats(acked, (a) => a.c.digest))
    dup(`commitment ${short(digest)}`, `acknowledged to the clients ${n} times`);
  for (const b of input.clientBids)
    for (const [provider, n] of repeats(b.commitments, (c) => c.provider))
      dup(`bid ${b.stream}/${b.seq}`, `committed ${n} times by provider ${short(provider)} (the client's stream)`);

  const nodeCommitments = input.nodeBids.flatMap((b) =>
    b.providers.filter((p) => p.commitment).map((p) => ({ bid: b, p })),
  );
  for (const [digest, n] of repeats(nodeCommitments, (x) => x.p.commitment!.digest))
    dup(`commitment ${short(digest)}`, `in the nodes' record ${n} times`);
  for (const b of input.nodeBids)
    for (const [provider, n] of repeats(
      b.providers.filter((p) => p.commitment),
      (p) => p.provider,
    ))
      dup(`bid ${short(b.digest)}`, `committed ${n} times by provider ${short(provider)} (the nodes' record)`);
  for (const [digest, n] of repeats(input.nodeBids, (b) => b.digest))
    dup(`bid ${short(digest)}`, `recorded ${n} times by the nodes`);

  const c = input.chain;
  for (const [digest, n] of repeats(c.stored, (s) => s.digest))
    dup(`commitment ${short(digest)}`, `stored on the chain ${n} times`);
  for (const [digest, n] of repeats(c.opened, (s) => s.digest))
    dup(`commitment ${short(digest)}`, `opened on the chain ${n} times`);
  for (const [key, n] of repeats(c.opened, (o) => `${o.provider}/${o.bidder}/${o.txnHash}/${o.blockNumber}`))
    dup(`bid ${key.split("/")[2]} for block ${key.split("/")[3]}`, `opened on the chain ${n} times by one provider`);
  for (const [digest, n] of repeats(c.rewarded, (s) => s.digest))
    dup(`commitment ${short(digest)}`, `rewarded on the chain ${n} times`);
}

/** What the chain says of one acknowledged commitment, and any disagreement with the nodes' record. */
function account(
  bid: ClientBid,
  c: AckedCommitment,
  input: CheckInput,
  index: ChainIndex,
  nodeOf: Map<string, { bid: NodeBid; outcome: NodeBid["providers"][number] }>,
  findings: Finding[],
): Accounted {
  const subject = `commitment ${short(c.digest)} (bid ${bid.stream}/${bid.seq}, block ${bid.blockNumber})`;
  const disagree = (detail: string) => findings.push({ kind: "disagreement", subject, detail });
  const node = nodeOf.get(c.digest);
  if (!node) disagree("acknowledged to the client, missing from the nodes' record");
  else {
    if (node.outcome.provider !== c.provider)
      disagree(`the client got it from ${short(c.provider)}, the nodes recorded ${short(node.outcome.provider)}`);
    if (node.bid.blockNumber !== bid.blockNumber)
      disagree(`the client bid for block ${bid.blockNumber}, the nodes recorded ${node.bid.blockNumber}`);
  }
  const block = BigInt(bid.blockNumber);
  const opened = index.opened.get(c.digest);
  const rewarded = index.rewarded.get(c.digest);
  const life = node?.outcome.lifecycle;
  const result = (fate: Fate, reason: string): Accounted => ({
    digest: c.digest,
    provider: c.provider,
    blockNumber: bid.blockNumber,
    fate,
    reason,
  });
  if (opened) {
    if (opened.provider !== c.provider || opened.txnHash !== bid.txHash || opened.blockNumber !== bid.blockNumber)
      disagree(
        `opened on the chain by ${short(opened.provider)} for ${short(opened.txnHash)} in block ${opened.blockNumber}, ` +
          `the client's was ${short(c.provider)}, ${short(bid.txHash)}, block ${bid.blockNumber}`,
      );
    if (rewarded) {
      if (life && life.settled?.payment !== rewarded.amount)
        disagree(
          `the chain paid ${rewarded.amount} wei, the nodes' record says ${life.settled?.payment ?? "not settled"}`,
        );
      return result("settled", `rewarded ${rewarded.amount} wei`);
    }
    if (index.slashed.has(c.digest)) {
      if (life && !life.slashed) disagree("slashed on the chain, the nodes' record says not slashed");
      return result("slashed", "slashed on the chain");
    }
    if (block > input.horizon) return result("pending", "opened; its block is past the checked horizon");
    findings.push({ kind: "lost", subject, detail: "opened on the chain and never settled or slashed" });
    return result("lost", "opened, never settled");
  }
  const winner = input.chain.winners[bid.blockNumber];
  if (index.stored.has(c.digest)) {
    if (winner && winner !== c.provider) return result("not-won", `stored; block won by ${short(winner)}`);
    if (block > input.horizon || !winner) return result("pending", "stored; its block is past the checked horizon");
    findings.push({ kind: "lost", subject, detail: "stored, and its provider won the block, but never opened" });
    return result("lost", "won its block, never opened");
  }
  if (block > input.horizon) return result("pending", "not stored yet; its block is past the checked horizon");
  findings.push({ kind: "lost", subject, detail: "acknowledged to the client, never stored on the chain" });
  return result("lost", "never stored");
}

interface ChainIndex {
  stored: Set<string>;
  opened: Map<string, ChainRecord["opened"][number]>;
  rewarded: Map<string, ChainRecord["rewarded"][number]>;
  slashed: Set<string>;
}

export function check(input: CheckInput): CheckResult {
  const findings: Finding[] = [];
  duplicates(input, findings);
  const c = input.chain;
  const index: ChainIndex = {
    stored: new Set(c.stored.map((s) => s.digest)),
    opened: new Map(c.opened.map((o) => [o.digest, o])),
    rewarded: new Map(c.rewarded.map((r) => [r.digest, r])),
    slashed: new Set(c.slashed.map((s) => s.digest)),
  };
  const nodeOf = new Map<string, { bid: NodeBid; outcome: NodeBid["providers"][number] }>();
  for (const bid of input.nodeBids)
    for (const outcome of bid.providers)
      if (outcome.commitment) nodeOf.set(outcome.commitment.digest, { bid, outcome });

  const accounted: Accounted[] = [];
  const seen = new Set<string>();
  for (const bid of input.clientBids)
    for (const commitment of bid.commitments) {
      if (seen.has(commitment.digest)) continue; // counted once; the duplicate is a finding already
      seen.add(commitment.digest);
      accounted.push(account(bid, commitment, input, index, nodeOf, findings));
    }

  for (const b of input.balances) {
    const values = new Set(b.sides.map((s) => BigInt(s.wei)));
    if (values.size > 1)
      findings.push({
        kind: "disagreement",
        subject: `${b.what}, ${b.subject}`,
        detail: b.sides.map((s) => `${s.name} ${s.wei}`).join(", "),
      });
  }

  const fates = Object.fromEntries(FATES.map((f) => [f, 0])) as Record<Fate, number>;
  for (const a of accounted) fates[a.fate]++;
  return {
    acknowledged: accounted.length,
    fates,
    accounted,
    findings,
    unacknowledged: {
      nodes: [...nodeOf.keys()].filter((d) => !seen.has(d)).length,
      chain: [...index.stored].filter((d) => !seen.has(d)).length,
      settled: [...index.rewarded.keys()].filter((d) => !seen.has(d)).length,
    },
  };
}
