import { expect } from "bun:test";
import { Then, When } from "@cucumber/cucumber";
import { bidsOf } from "../support/bids.ts";
import { delay, FaultsSuiteError, heal, loss, partition, rate, recordedOutcome } from "../support/faults.ts";
import type { ConformanceWorld } from "../support/world.ts";

When(
  /^the network between (the bidder|provider \d+) and (the bidder|provider \d+) is (cut|healed)$/,
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
    expect(await recordedOutcome(this, c.commitmentDigest, address)).toBe(named);
  },
);
