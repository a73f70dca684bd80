/**
 * Steps of holes-slow-reader.feature: a provider's ReceiveBids read by a gRPC client that holds the server back with
 * HTTP/2 flow control (features/support/holesSlowReader.ts), while the bidder sends it a burst of bids.
 */

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Given, Then, When } from "@cucumber/cucumber";
import { MevCommitError } from "../../lib/errors.ts";
import { bidsOf } from "../support/bids.ts";
import { service } from "../support/clients/grpc.ts";
import { SKIPPED_PREFIX } from "../support/health.ts";
import { SlowReader } from "../support/holesSlowReader.ts";
import { perScenario } from "../support/perScenario.ts";
import type { ConformanceWorld } from "../support/world.ts";

export class SlowReaderCheckError extends MevCommitError {}

const readers = perScenario("slow gRPC reader", () => ({
  reader: undefined as SlowReader | undefined,
  async teardown() {
    this.reader?.close();
  },
}));

function readerOf(world: ConformanceWorld): SlowReader {
  const r = readers(world).reader;
  if (!r) throw new SlowReaderCheckError("no slow reader was opened in this scenario");
  return r;
}

function receiveBids(world: ConformanceWorld) {
  const svc = service("providerapi.v1.Provider", world.target.rules);
  const m = svc.methods.find((x) => x.name === "ReceiveBids");
  if (!m) throw new SlowReaderCheckError("providerapi.v1.Provider has no ReceiveBids");
  return m;
}

Given(
  /^provider ([0-9]+) is read by a slow gRPC client: ReceiveBids with a ([0-9]+)-byte window, paused$/,
  async function (this: ConformanceWorld, p: string, window: string) {
    const url = this.target.providerRpcUrls?.[Number(p) - 1];
    const m = url ? /^(?:http:\/\/)?([^/]+?)\/?$/.exec(url) : null;
    if (!url || !m || url.startsWith("https:")) {
      this.attach(
        `${SKIPPED_PREFIX}the slow reader speaks plain-text HTTP/2; provider ${p}'s gRPC address is ${url ?? "not given"}`,
        "text/plain",
      );
      return "skipped";
    }
    const method = receiveBids(this);
    const reader = new SlowReader({
      address: m[1]!,
      path: `/${method.parent.typeName}/${method.name}`,
      request: toBinary(method.input, create(method.input)),
      windowBytes: Number(window),
    });
    readers(this).reader = reader;
    await reader.open();
    // The node counts the call as an attached application once it runs (upstream sends no headers until a bid).
    await new Promise((r) => setTimeout(r, 1_000));
    if (reader.ended) throw new SlowReaderCheckError(`the ReceiveBids call ended at once: ${reader.endReason}`);
    return undefined;
  },
);

When(/^the bidder starts ([0-9]+) bids of 1 to \1 wei at once$/, async function (this: ConformanceWorld, n: string) {
  const s = bidsOf(this);
  for (let a = 1; a <= Number(n); a++)
    s.send(
      await s.substitute(
        JSON.stringify({
          txHashes: ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"],
          amount: String(a),
          blockNumber: "$BLOCK",
          decayStartTimestamp: "$DECAY_START",
          decayEndTimestamp: "$DECAY_END",
        }),
      ),
    );
});

// Half the decision timeout: every bid is still waiting for its decision when the client reads on, so no
// implementation has a reason to drop one (upstream gives up on a bid its ReceiveBids loop has not taken by then).
When("the slow client reads on after half the decision timeout", async function (this: ConformanceWorld) {
  await new Promise((r) => setTimeout(r, this.target.decisionTimeoutMs / 2));
  readerOf(this).resume();
});

Then(
  /^the slow client has read the ([0-9]+) bids, each once, and its stream is still open$/,
  async function (this: ConformanceWorld, n: string) {
    const reader = readerOf(this);
    const want = Number(n);
    await reader.waitFor(want, 20_000);
    // A node that ends the stream after a burst ends it now, if it did not already.
    await new Promise((r) => setTimeout(r, 500));
    const method = receiveBids(this);
    const amounts = reader.messages.map((b) => {
      const bid = fromBinary(method.output, b) as unknown as { bidAmount?: string; amount?: string };
      return String(bid.bidAmount ?? bid.amount);
    });
    const problems: string[] = [];
    for (let a = 1; a <= want; a++) {
      const k = amounts.filter((x) => x === String(a)).length;
      if (k !== 1) problems.push(`the bid of ${a} wei arrived ${k} times`);
    }
    if (reader.ended) problems.push(`the stream ended: ${reader.endReason}`);
    if (problems.length)
      throw new SlowReaderCheckError(
        `ReceiveBids read slowly, ${reader.messages.length} bids read (amounts ${amounts.join(", ")}):\n  ${problems.join("\n  ")}`,
      );
  },
);
