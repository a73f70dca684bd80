import { When } from "@cucumber/cucumber";
import { heal, partition } from "../support/faults.ts";
import type { ConformanceWorld } from "../support/world.ts";

When(
  /^the network between (the bidder|provider \d+) and (the bidder|provider \d+) is (cut|healed)$/,
  async function (this: ConformanceWorld, a: string, b: string, what: string) {
    await (what === "cut" ? partition(this, a, b) : heal(this, a, b));
  },
);
