import { When } from "@cucumber/cucumber";
import { delay, heal, loss, partition, rate } from "../support/faults.ts";
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
