import { AfterAll, Before, BeforeAll, setDefaultTimeout } from "@cucumber/cucumber";
import { startTarget, type StartedTarget } from "./target.ts";
import { setRun } from "./run.ts";
import type { ConformanceWorld } from "./world.ts";

setDefaultTimeout(60_000);

let started: StartedTarget | undefined;

BeforeAll({ timeout: 120_000 }, async function () {
  started = await startTarget();
  setRun(started);
  const t = started.target;
  console.log(`\nTarget: ${t.name} — bidder ${t.bidderUrl}, ${t.providerUrls.length} providers, capabilities [${t.capabilities.join(", ")}]`);
});

AfterAll({ timeout: 60_000 }, async function () {
  await started?.stop();
});

/** A scenario that needs the devnet control API is skipped (and reported skipped) on a target without it. */
Before({ tags: "@sim" }, function (this: ConformanceWorld) {
  if (!this.target.capabilities.includes("sim-control")) return "skipped";
});
