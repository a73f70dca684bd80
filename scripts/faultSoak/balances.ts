/**
 * The amounts the fault soak's checker wants every side to agree on: each provider's rewards (the chain's
 * FundsRewarded events, its reward balance, the nodes' recorded payments) and stake (FundsSlashed against the stake),
 * and the bidder's deposits (what the clients were acknowledged against the chain's deposit events; what the bidder
 * node says is left against the chain's balance).
 */

import { ONE_HUNDRED_PERCENT } from "../../node/protocol/decay.ts";
import type { ChainLedger } from "../../scenarios/sim/report/chainLedger.ts";
import type { BalanceView, ClientDeposit, NodeBid } from "./records.ts";

export interface BalanceInput {
  ledger: ChainLedger;
  providers: { name: string; address: string }[];
  bidder: string;
  nodeBids: NodeBid[];
  clientDeposits: ClientDeposit[];
  /** What the bidder node answers for each place (`window N`, `provider 0x…`): GetDeposit's amount. */
  nodeDeposits: Record<string, string>;
}

const bare = (h: string) => h.replace(/^0x/, "").toLowerCase();
const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);

export function balanceViews(i: BalanceInput): BalanceView[] {
  const l = i.ledger;
  const net = (x: bigint) => x - (x * l.protocolFeePercent) / ONE_HUNDRED_PERCENT;
  const views: BalanceView[] = [];
  for (const p of i.providers) {
    const a = p.address.toLowerCase();
    const recorded = i.nodeBids.flatMap((b) =>
      b.providers.filter((o) => o.provider === a && o.commitment).map((o) => o.commitment!.digest),
    );
    const paid = i.nodeBids.flatMap((b) =>
      b.providers
        .filter((o) => o.provider === a && o.lifecycle.settled)
        .map((o) => BigInt(o.lifecycle.settled!.payment)),
    );
    // The ledger's digests are bare hex (chainLedger.ts); the bid records' are 0x-prefixed.
    const known = new Set(recorded.map(bare));
    const rewards = l.rewards.filter((r) => r.provider === a);
    // A commitment made after the bidder stopped waiting is in no bid record, yet the chain may settle it: the nodes'
    // record is held against the chain for the commitments it holds, the chain's events against its balance for all.
    views.push({
      what: "rewards for the commitments the nodes recorded",
      subject: p.name,
      sides: [
        { name: "nodes' record", wei: String(sum(paid)) },
        {
          name: "chain FundsRewarded",
          wei: String(sum(rewards.filter((r) => known.has(bare(r.digest))).map((r) => r.amount))),
        },
      ],
    });
    views.push({
      what: "rewards, net of the protocol fee",
      subject: p.name,
      sides: [
        { name: "chain FundsRewarded", wei: String(sum(rewards.map((r) => net(r.amount)))) },
        { name: "chain balance change", wei: String(l.after.providers[a]!.rewards - l.before.providers[a]!.rewards) },
      ],
    });
    views.push({
      what: "slashed from the stake",
      subject: p.name,
      sides: [
        {
          name: "chain FundsSlashed",
          wei: String(sum(l.slashes.filter((s) => s.provider === a).map((s) => s.amount))),
        },
        { name: "chain stake change", wei: String(l.before.providers[a]!.stake - l.after.providers[a]!.stake) },
      ],
    });
  }
  const bidder = i.bidder.toLowerCase();
  const places = [...new Set(i.clientDeposits.map((d) => d.place))];
  for (const place of places) {
    const acked = sum(i.clientDeposits.filter((d) => d.place === place && d.ok).map((d) => BigInt(d.amount)));
    const [kind, key] = place.split(" ") as [string, string];
    const onChain =
      kind === "window"
        ? sum(l.deposits.filter((d) => d.bidder === bidder && d.window === BigInt(key)).map((d) => d.amount))
        : sum(l.providerDeposits.filter((d) => d.bidder === bidder && d.provider === key).map((d) => d.amount));
    views.push({
      what: "deposited",
      subject: place,
      sides: [
        { name: "clients (acknowledged)", wei: String(acked) },
        { name: "chain deposit events", wei: String(onChain) },
      ],
    });
    const left =
      kind === "window"
        ? l.remaining.find((r) => r.bidder === bidder && r.window === BigInt(key))?.amount
        : l.after.deposits?.[`${bidder}/${key}`]?.available;
    views.push({
      what: "deposit left",
      subject: place,
      sides: [
        { name: "bidder node GetDeposit", wei: i.nodeDeposits[place] ?? "0" },
        { name: "chain", wei: String(left ?? 0n) },
      ],
    });
  }
  return views;
}
