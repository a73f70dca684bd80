/**
 * Steps of the notification topics protocol v1.2 adds (features/notifications-v1.2.feature): each waits for the
 * subscriber's first notification of the topic about the scenario's commitment and checks its value exactly.
 */
import { expect } from "bun:test";
import { Then } from "@cucumber/cucumber";
import { MevCommitError } from "../../lib/errors.ts";
import { notificationsOf } from "../support/notifications.ts";
import { observationAttachment } from "../support/observations.ts";
import { settlementOf } from "../support/settlement.ts";
import { holdsSlashByte, SLASH_BYTE_DIGEST } from "../support/slashByteDigest.ts";
import type { ConformanceWorld } from "../support/world.ts";

export class NotificationV12CheckError extends MevCommitError {}

/** Below the step timeout (60 s), so that a wait that runs out says what the subscriber received. */
const WAIT_MS = 50_000;
const bare = (hex: string) => hex.toLowerCase().replace(/^0x/, "");

/** The first notification of `topic` whose value `matches`, waited for (up to `waitMs`). */
async function firstOf(
  world: ConformanceWorld,
  name: string,
  topic: string,
  matches: (v: Record<string, unknown>) => boolean,
  waitMs = WAIT_MS,
): Promise<Record<string, unknown>> {
  const s = notificationsOf(world).subscriber(name);
  const deadline = performance.now() + waitMs;
  for (;;) {
    const n = s.notifications.find((x) => x.topic === topic && matches(x.value as Record<string, unknown>));
    if (n) return n.value as Record<string, unknown>;
    if (performance.now() > deadline || s.ended)
      throw new NotificationV12CheckError(
        `subscriber "${name}" received no ${topic} about the scenario's commitment within ${waitMs} ms:\n${s.describe()}`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The bid's transaction hashes as the commitment lists them, in order: bare lower-case hex. */
function txHashesOf(world: ConformanceWorld): string[] {
  const c = settlementOf(world).commitment();
  return ((c.line.txHashes as string[] | undefined) ?? []).map(bare);
}

const sameHashes = (world: ConformanceWorld) => (v: Record<string, unknown>) =>
  String(v.transaction_hashes ?? "")
    .split(",")
    .map(bare)
    .join(",") === txHashesOf(world).join(",");

/** How long a commitment whose digest holds a 0x2f byte waits for its notification before the try counts as observed. */
const SLASH_BYTE_WAIT_MS = 15_000;

Then(
  // [0-9]+, not \d+: cucumber turns a group that matches its int type's pattern into a number.
  /^subscriber "([^"]+)" soon receives other_provider_won_block for provider (\d+)'s commitment, with the bidder and ([0-9]+) wei$/,
  async function (this: ConformanceWorld, name: string, p: string, wei: string) {
    const s = settlementOf(this);
    const mine = s.commitments.filter((c) => c.providerIndex === Number(p));
    if (mine.length !== 1)
      throw new NotificationV12CheckError(`expected one commitment from provider ${p}, got ${mine.length}`);
    const digest = bare(mine[0]!.digest);
    const about = (x: Record<string, unknown>) => x.commitmentDigest === digest;
    if (holdsSlashByte(digest)) {
      // Upstream's v1.2.5 node drops such a commitment from its store when it is the first of the store's commitments
      // in key order (docs/conformance.md §10): the digest is chance and the store's history the node's, so the try
      // is reported, not judged.
      const got = await firstOf(this, name, "other_provider_won_block", about, SLASH_BYTE_WAIT_MS).catch(() => null);
      const detail = `provider ${p}'s commitment ${digest} holds a 0x2f byte; ${got ? "announced" : `not announced within ${SLASH_BYTE_WAIT_MS} ms`}`;
      this.attach(observationAttachment({ what: SLASH_BYTE_DIGEST, observed: !got, detail }), "text/plain");
      if (!got) return;
      expect(got).toEqual({ commitmentDigest: digest, bidder: bare(this.target.bidderAddress), bidAmount: wei });
      return;
    }
    const v = await firstOf(this, name, "other_provider_won_block", about);
    expect(v).toEqual({ commitmentDigest: digest, bidder: bare(this.target.bidderAddress), bidAmount: wei });
  },
);

Then(
  /^subscriber "([^"]+)" soon receives transaction_settled for the commitment, slashed (true|false), provider (\d+)$/,
  async function (this: ConformanceWorld, name: string, slashed: string, p: string) {
    const v = await firstOf(this, name, "transaction_settled", sameHashes(this));
    expect(v).toEqual({
      transaction_hashes: v.transaction_hashes,
      is_slashed: slashed === "true",
      provider: bare(this.target.providerAddresses[Number(p) - 1]!),
    });
  },
);

Then(
  /^subscriber "([^"]+)" soon receives transaction_payment for the commitment, with a (payment|refund)$/,
  async function (this: ConformanceWorld, name: string, which: string) {
    const v = await firstOf(this, name, "transaction_payment", sameHashes(this));
    expect(Object.keys(v).sort(), JSON.stringify(v)).toEqual(["payment", "refund", "transaction_hashes"]);
    expect(String(v[which]), `${which} of ${JSON.stringify(v)}`).toMatch(/^[1-9][0-9]*$/);
  },
);

Then(
  /^subscriber "([^"]+)" soon receives commitment_store_failed for the commitment, with the bid's transaction hashes, an error starting with "([^"]*)", the bidder and ([0-9]+) wei$/,
  async function (this: ConformanceWorld, name: string, prefix: string, wei: string) {
    const c = settlementOf(this).commitment();
    const digest = bare(c.digest);
    const { error, ...rest } = await firstOf(
      this,
      name,
      "commitment_store_failed",
      (x) => x.commitmentDigest === digest,
    );
    expect(rest).toEqual({
      commitmentDigest: digest,
      txnHash: c.bid.txs.map((t) => bare(t.hash)).join(","),
      bidder: bare(this.target.bidderAddress),
      bidAmount: wei,
    });
    if (typeof error !== "string" || !error.startsWith(prefix) || error.length <= prefix.length)
      throw new NotificationV12CheckError(
        `commitment_store_failed error ${JSON.stringify(error)}, expected a text starting with "${prefix}" and naming the reason`,
      );
  },
);
