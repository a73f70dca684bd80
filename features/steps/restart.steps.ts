/**
 * Steps of crash-safety.feature and of the settlement scenarios that restart nodes: a node killed with SIGKILL
 * through the control API (`sim-kill`) and what it lists once it is back.
 */
import { Then, When } from "@cucumber/cucumber";
import { BidSuiteError, bidsOf } from "../support/bids.ts";
import { chainOf } from "../support/chain.ts";
import { answersAgain, killAfterAck, killAndRestart } from "../support/nodes.ts";
import type { ConformanceWorld } from "../support/world.ts";

const noHex = (a: string) => String(a).toLowerCase().replace(/^0x/, "");

When(
  /^(the bidder|provider \d+)'s node is killed with SIGKILL and restarted through the control API$/,
  async function (this: ConformanceWorld, node: string) {
    await killAndRestart(this, node);
  },
);

// A node that keeps its event cursor replays nothing after a restart: the control API sets the cursor back, so the
// restarted node handles the events it had handled already (a node without a durable cursor, or one whose chain's
// history changed under it, does this on its own).
When(
  /^(the bidder|provider \d+)'s node is killed with SIGKILL and restarted through the control API, handling the settlement chain's last (\d+) blocks' events again$/,
  async function (this: ConformanceWorld, node: string, blocks: string) {
    const head = await chainOf(this.target).settlementBlockNumber();
    const from = head > BigInt(blocks) ? head - BigInt(blocks) + 1n : 1n;
    await killAndRestart(this, node, 60_000, from);
  },
);

/** The control API's answer to a kill armed for a node's next acknowledgement, per scenario and node. */
const armedKills = new WeakMap<ConformanceWorld, Map<string, { killed: Promise<unknown> }>>();

When(
  /^(the bidder|provider \d+)'s node is set through the control API to be killed with SIGKILL right after it (?:streams its next commitment|next answers a bid with a commitment)$/,
  async function (this: ConformanceWorld, node: string) {
    const kills = armedKills.get(this) ?? new Map();
    armedKills.set(this, kills);
    kills.set(node, await killAfterAck(this, node));
  },
);

Then("the bidder's client received a commitment before the stream broke", function (this: ConformanceWorld) {
  if (!streamed(this).length)
    throw new BidSuiteError(
      `the client received no commitment: ${bidsOf(this)
        .bids.map((b) => b.stream.describe(600))
        .join("; ")}`,
    );
});

When(
  /^(the bidder|provider \d+)'s node is soon restarted on its data$/,
  async function (this: ConformanceWorld, node: string) {
    const armed = armedKills.get(this)?.get(node);
    if (!armed) throw new BidSuiteError(`no kill of ${node}'s node was armed in this scenario`);
    await armed.killed;
    await answersAgain(this, node);
  },
);

/** (bid digest, provider) of every commitment the scenario's bids streamed. */
function streamed(world: ConformanceWorld): { block: string; digest: string; provider: string; amount: string }[] {
  return bidsOf(world).bids.flatMap((b) =>
    (b.settled?.lines ?? []).flatMap((l) => {
      const c = (l as { result?: Record<string, string> }).result;
      return c
        ? [
            {
              block: String(c.blockNumber),
              digest: noHex(c.receivedBidDigest!),
              provider: noHex(c.providerAddress!),
              amount: String(c.bidAmount),
            },
          ]
        : [];
    }),
  );
}

Then(
  /^every bid of the scenario ended with HTTP 200 and (\d+) commitments?$/,
  async function (this: ConformanceWorld, n: string) {
    for (const b of bidsOf(this).bids) {
      const o = await b.outcome;
      const results = o.lines.filter((l) => (l as { result?: unknown }).result);
      if (!o.ok || results.length !== Number(n) || results.length !== o.lines.length)
        throw new BidSuiteError(`bid ${b.index}: expected HTTP 200 and ${n} commitments, got ${o.describe(1500)}`);
    }
  },
);

Then("the bidder lists every commitment the scenario's bids got", async function (this: ConformanceWorld) {
  const want = streamed(this);
  if (!want.length) throw new BidSuiteError("the scenario's bids got no commitment");
  const missing: string[] = [];
  for (const block of new Set(want.map((w) => w.block))) {
    const r = await this.bidder.getBidInfo({ blockNumber: BigInt(block), limit: 1000 });
    if (r.error) throw new BidSuiteError(r.describe());
    const bids = (
      (r.value as { blockBidInfo?: { bids?: { bidDigest: string; commitments: { providerAddress: string }[] }[] }[] })
        .blockBidInfo ?? []
    ).flatMap((g) => g.bids ?? []);
    for (const w of want.filter((x) => x.block === block)) {
      const bid = bids.find((b) => noHex(b.bidDigest) === w.digest);
      if (!bid?.commitments.some((c) => noHex(c.providerAddress) === w.provider))
        missing.push(`bid ${w.digest} (${w.amount} wei), commitment of ${w.provider}`);
    }
  }
  if (missing.length) throw new BidSuiteError(`after its restart the bidder does not list:\n  ${missing.join("\n  ")}`);
});

Then(
  /^provider (\d+) lists every commitment it gave in this scenario$/,
  async function (this: ConformanceWorld, p: string) {
    const address = noHex(this.target.providerAddresses[Number(p) - 1]!);
    const want = streamed(this).filter((w) => w.provider === address);
    if (!want.length) throw new BidSuiteError(`provider ${p} gave no commitment in this scenario`);
    const missing: string[] = [];
    for (const block of new Set(want.map((w) => w.block))) {
      const r = await this.provider(Number(p)).getCommitmentInfo({ blockNumber: BigInt(block), limit: 1000 });
      if (r.error) throw new BidSuiteError(r.describe());
      const listed = ((r.value as { commitments?: { commitments?: { amount: string }[] }[] }).commitments ?? [])
        .flatMap((g) => g.commitments ?? [])
        .map((c) => String(c.amount));
      for (const w of want.filter((x) => x.block === block))
        if (!listed.includes(w.amount)) missing.push(`the commitment of ${w.amount} wei for block ${block}`);
    }
    if (missing.length)
      throw new BidSuiteError(`after its restart provider ${p} does not list:\n  ${missing.join("\n  ")}`);
  },
);
