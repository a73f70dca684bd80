/**
 * Steps of features/queries.feature: GetBidInfo and GetCommitmentInfo over commitments the scenario creates through
 * SendBid, and the provider stake / reward and bidder slashed-funds operations checked against the registries.
 * Scenario state and chain reads live in features/support/queries.ts.
 */

import { expect } from "bun:test";
import { type DataTable, Given, Then, When } from "@cucumber/cucumber";
import { type Address, getAddress } from "viem";
import { providerRegistryAbi } from "../support/abi.ts";
import { chainOf } from "../support/chain.ts";
import { SKIPPED_PREFIX } from "../support/health.ts";
import { emptySlashAmount, noBidOptions, type ProtocolRules } from "../support/protocolRules.ts";
import {
  allPages,
  providerAddress,
  QuerySuiteError,
  queriesOf,
  registries,
  type SentQueryBid,
} from "../support/queries.ts";
import type { ConformanceWorld } from "../support/world.ts";

// ------------------------------------------------------------------------------------------- wire shapes

interface CommitmentSummary {
  providerAddress: string;
  dispatchTimestamp: string;
  status: string;
  details: string;
  payment: string;
  refund: string;
}
interface BidInfo {
  txnHashes: string[];
  revertableTxnHashes: string[];
  blockNumber: string;
  bidAmount: string;
  decayStartTimestamp: string;
  decayEndTimestamp: string;
  bidDigest: string;
  slashAmount: string;
  commitments: CommitmentSummary[];
}
interface BidInfoResponse {
  blockBidInfo: { blockNumber: string; bids: BidInfo[] }[];
}
interface CommitmentInfo {
  txnHashes: string[];
  revertableTxnHashes: string[];
  amount: string;
  blockNumber: string;
  providerAddress: string;
  decayStartTimestamp: string;
  decayEndTimestamp: string;
  dispatchTimestamp: string;
  slashAmount: string;
  status: string;
  details: string;
  payment: string;
  refund: string;
}
interface CommitmentInfoResponse {
  commitments: { blockNumber: string; commitments: CommitmentInfo[] }[];
}

const STATUSES = ["pending", "stored", "opened", "settled", "slashed", "failed"];
const noHex = (a: string) => a.toLowerCase().replace(/^0x/, "");

// ------------------------------------------------------------------------------------------- helpers

/** "3000, 1000 and 2000" → [3000n, 1000n, 2000n]. */
function amounts(list: string): bigint[] {
  return list.split(/, | and /).map((a) => BigInt(a.trim()));
}

function providersOf(a: number, b: number): number[] {
  return [a, b];
}

function okJson<T>(world: ConformanceWorld, what: string): T {
  const r = world.lastAnswer;
  if (r.error) throw new QuerySuiteError(`${what}: expected success, got ${r.describe()}`);
  return r.value as T;
}

/** A Get*Info query the scenario makes; over gRPC one with no gRPC form fails (these queries are all well-formed). */
async function ask(world: ConformanceWorld, node: string, path: string): Promise<void> {
  if (await world.send("GET", node, path)) throw new QuerySuiteError(`GET ${path} has no gRPC form`);
}

async function bidInfo(world: ConformanceWorld, query: string): Promise<BidInfoResponse> {
  await ask(world, "bidder", `/v1/bidder/get_bid_info?${query}`);
  return okJson<BidInfoResponse>(world, `get_bid_info?${query}`);
}

/**
 * A provider's commitment info. A provider node may write a commitment to its store a moment after it gave it to the
 * bidder (upstream sends it first, then stores it): with `atLeast`, the listing is read again, for up to 5 s, until
 * it holds that many commitments.
 */
async function commitmentInfo(
  world: ConformanceWorld,
  provider: number,
  query: string,
  atLeast = 0,
): Promise<CommitmentInfoResponse> {
  const deadline = performance.now() + 5_000;
  for (;;) {
    await ask(world, `provider ${provider}`, `/v1/provider/get_commitment_info?${query}`);
    const body = okJson<CommitmentInfoResponse>(world, `get_commitment_info?${query} on provider ${provider}`);
    const n = (body.commitments ?? []).reduce((k, g) => k + (g.commitments?.length ?? 0), 0);
    if (n >= atLeast || performance.now() > deadline) return body;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The only group of a filtered listing, which must be block `block`. */
function onlyGroup<G extends { blockNumber: string }>(groups: G[], block: bigint, text: string): G {
  expect(
    groups.map((g) => g.blockNumber),
    `groups of ${text}`,
  ).toEqual([block.toString()]);
  return groups[0]!;
}

function sortedProviders(world: ConformanceWorld, providers: number[]): string[] {
  return providers.map((p) => noHex(providerAddress(world, p))).sort();
}

// ------------------------------------------------------------------------------------------- setup

Given(
  /^providers (\d+) and (\d+) run applications that accept every bid$/,
  async function (this: ConformanceWorld, a: number, b: number) {
    await queriesOf(this).attachAcceptAll(providersOf(a, b));
  },
);

Given(
  /^a fresh block ([A-Z])((?: with a deposit)?)$/,
  async function (this: ConformanceWorld, name: string, deposit?: string) {
    const s = queriesOf(this);
    const w = await s.freshWindow();
    const block = (w - 1n) * 10n + 1n + BigInt(Math.floor(Math.random() * 10));
    s.bind(name, block);
    if (deposit) await s.fund(block);
  },
);

Given(
  /^fresh blocks ([A-Z]) and ([A-Z]) on either side of a decimal digit boundary, with a deposit$/,
  async function (this: ConformanceWorld, low: string, high: string) {
    const s = queriesOf(this);
    const head = await chainOf(this.target).l1BlockNumber();
    // 10^k − 1 and 10^k share a window and sort the other way round as decimal text ("1000000" < "999999").
    const ks = Array.from({ length: 10 }, (_, i) => 6 + i).filter((k) => 10n ** BigInt(k) > head + 1000n);
    ks.sort(() => Math.random() - 0.5);
    for (const k of ks) {
      const y = 10n ** BigInt(k);
      if ((await s.isFresh(y - 1n)) && (await s.isFresh(y))) {
        s.bind(low, y - 1n);
        s.bind(high, y);
        await s.fund(y);
        return;
      }
    }
    throw new QuerySuiteError("every digit boundary from 10^6 to 10^15 already has commitments on the bidder");
  },
);

Given(
  /^fresh blocks ([A-Z]) and ([A-Z]) where the digits of \1 begin those of \2, with deposits$/,
  async function (this: ConformanceWorld, short: string, long: string) {
    const s = queriesOf(this);
    for (let tries = 0; tries < 20; tries++) {
      const p = (await s.freshWindow()) * 10n + BigInt(Math.floor(Math.random() * 10)) - 9n;
      const q = p * 10n + BigInt(Math.floor(Math.random() * 10));
      if (p > 0n && (await s.isFresh(p)) && (await s.isFresh(q))) {
        s.bind(short, p);
        s.bind(long, q);
        await s.fund(p);
        await s.fund(q);
        return;
      }
    }
    throw new QuerySuiteError("found no fresh pair of blocks in 20 tries");
  },
);

When(
  /^the bidder bids ([\d, and]+) wei for block ([A-Z])((?: with a reverting transaction hash)?)$/,
  async function (this: ConformanceWorld, list: string, name: string, reverting?: string) {
    const s = queriesOf(this);
    const block = s.block(name);
    for (const a of amounts(list)) {
      const revertingTxHashes = reverting
        ? [Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")]
        : [];
      await s.bid(block, a, s.agents.length, { revertingTxHashes });
    }
  },
);

When(
  /^the bidder sends (\d+) bids of ([0-9]+) wei for block ([A-Z])$/,
  async function (this: ConformanceWorld, n: number, amount: string, name: string) {
    const s = queriesOf(this);
    const block = s.block(name);
    let next = 0;
    const worker = async () => {
      while (next < n) {
        next++;
        await s.bid(block, BigInt(amount), s.agents.length);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
  },
);

// ------------------------------------------------------------------------------------------- listings

When(/^I ask the bidder for its bid info with "([^"]*)"$/, async function (this: ConformanceWorld, query: string) {
  return this.send("GET", "bidder", `/v1/bidder/get_bid_info?${queriesOf(this).substitute(query)}`);
});

When(
  /^I ask provider (\d+) for its commitment info with "([^"]*)"$/,
  async function (this: ConformanceWorld, p: number, query: string) {
    return this.send("GET", `provider ${p}`, `/v1/provider/get_commitment_info?${queriesOf(this).substitute(query)}`);
  },
);

Then(
  /^every page of (the bidder's bid info|provider \d+'s commitment info) lists blocks in ascending numeric order, block ([A-Z]) before block ([A-Z])$/,
  async function (this: ConformanceWorld, which: string, first: string, second: string) {
    const s = queriesOf(this);
    const provider = /^provider (\d+)/.exec(which)?.[1];
    const pages = provider
      ? await allPages(this, `provider ${provider}`, "/v1/provider/get_commitment_info", "commitments")
      : await allPages(this, "bidder", "/v1/bidder/get_bid_info", "blockBidInfo");
    const blocks = pages.map((p) => p.map((b) => BigInt(b)));
    for (const [i, page] of blocks.entries()) {
      for (let j = 1; j < page.length; j++)
        if (!(page[j - 1]! < page[j]!))
          throw new QuerySuiteError(`${which}, page ${i}: block ${page[j - 1]} is listed before block ${page[j]}`);
      const prev = blocks[i - 1]?.at(-1);
      if (prev !== undefined && prev > page[0]!)
        throw new QuerySuiteError(`${which}: page ${i - 1} ends with block ${prev}, page ${i} starts with ${page[0]}`);
    }
    const flat = blocks.flat();
    const a = flat.indexOf(s.block(first));
    const b = flat.indexOf(s.block(second));
    expect(a, `block ${first} (${s.block(first)}) in ${which}`).toBeGreaterThanOrEqual(0);
    expect(b, `block ${second} (${s.block(second)}) in ${which}`).toBeGreaterThan(a);
  },
);

Then(
  /^the bidder's bid info for block ([A-Z]) lists the bids of ([\d, and]+) wei in that order, each with the commitments of providers (\d+) and (\d+)$/,
  async function (this: ConformanceWorld, name: string, list: string, p1: number, p2: number) {
    const block = queriesOf(this).block(name);
    const group = onlyGroup((await bidInfo(this, `block_number=${block}`)).blockBidInfo, block, "the bid info");
    expect(
      group.bids.map((b) => b.bidAmount),
      `bids of block ${block}`,
    ).toEqual(amounts(list).map(String));
    const expected = sortedProviders(this, providersOf(p1, p2));
    for (const b of group.bids)
      expect(b.commitments.map((c) => c.providerAddress).sort(), `providers of the ${b.bidAmount} wei bid`).toEqual(
        expected,
      );
  },
);

Then(
  /^provider (\d+)'s commitment info for block ([A-Z]) lists the commitments of ([\d, and]+) wei in that order$/,
  async function (this: ConformanceWorld, p: number, name: string, list: string) {
    const block = queriesOf(this).block(name);
    const group = onlyGroup(
      (await commitmentInfo(this, p, `block_number=${block}`, amounts(list).length)).commitments,
      block,
      "the commitment info",
    );
    expect(
      group.commitments.map((c) => c.amount),
      `commitments of block ${block}`,
    ).toEqual(amounts(list).map(String));
  },
);

function expectedBid(sent: SentQueryBid, listed: BidInfo, rules: ProtocolRules): BidInfo {
  const byProvider = new Map(sent.commitments.map((c) => [noHex(c.providerAddress), c]));
  return {
    txnHashes: sent.txHashes,
    revertableTxnHashes: sent.revertingTxHashes.map(noHex),
    blockNumber: sent.block.toString(),
    bidAmount: sent.amount.toString(),
    decayStartTimestamp: sent.decayStart.toString(),
    decayEndTimestamp: sent.decayEnd.toString(),
    bidDigest: sent.digest,
    slashAmount: emptySlashAmount(rules, sent.amount.toString()),
    ...noBidOptions(rules),
    commitments: [...byProvider.keys()].sort().map((p) => {
      const got = listed.commitments.find((c) => c.providerAddress === p);
      return {
        providerAddress: p,
        dispatchTimestamp: byProvider.get(p)!.dispatchTimestamp,
        status: got && STATUSES.includes(got.status) ? got.status : `one of ${STATUSES.join(", ")}`,
        details: typeof got?.details === "string" ? got.details : "a string",
        payment: typeof got?.payment === "string" ? got.payment : "a string",
        refund: typeof got?.refund === "string" ? got.refund : "a string",
      };
    }),
  };
}

Then(
  /^the bidder's bid info for block ([A-Z]) describes each bid sent with every field, as the SendBid commitments did$/,
  async function (this: ConformanceWorld, name: string) {
    const s = queriesOf(this);
    const block = s.block(name);
    const group = onlyGroup((await bidInfo(this, `block_number=${block}`)).blockBidInfo, block, "the bid info");
    const sent = s.bidsFor(block);
    expect(group.bids.map((b) => b.bidDigest).sort(), "bid digests listed").toEqual(sent.map((b) => b.digest).sort());
    for (const b of sent) {
      const listed = group.bids.find((x) => x.bidDigest === b.digest)!;
      const normalised = {
        ...listed,
        commitments: [...listed.commitments].sort((x, y) => x.providerAddress.localeCompare(y.providerAddress)),
      };
      expect(normalised, `the ${b.amount} wei bid`).toEqual(expectedBid(b, listed, this.rules));
    }
  },
);

Then(
  /^the commitment info of providers (\d+) and (\d+) for block ([A-Z]) describes each commitment with every field$/,
  async function (this: ConformanceWorld, p1: number, p2: number, name: string) {
    const s = queriesOf(this);
    const block = s.block(name);
    const sent = s.bidsFor(block);
    for (const p of providersOf(p1, p2)) {
      const address = noHex(providerAddress(this, p));
      const group = onlyGroup(
        (await commitmentInfo(this, p, `block_number=${block}`, sent.length)).commitments,
        block,
        `provider ${p}'s commitment info`,
      );
      expect(
        group.commitments.map((c) => c.amount),
        `amounts listed by provider ${p}`,
      ).toEqual([...sent].sort((a, b) => (a.amount > b.amount ? -1 : 1)).map((b) => b.amount.toString()));
      for (const b of sent) {
        const listed = group.commitments.find((c) => c.amount === b.amount.toString())!;
        const mine = b.commitments.find((c) => noHex(c.providerAddress) === address);
        if (!mine) throw new QuerySuiteError(`provider ${p} gave no commitment to the ${b.amount} wei bid`);
        expect(listed, `provider ${p}'s commitment to the ${b.amount} wei bid`).toEqual({
          txnHashes: b.txHashes,
          revertableTxnHashes: b.revertingTxHashes.map(noHex),
          amount: b.amount.toString(),
          blockNumber: block.toString(),
          providerAddress: address,
          decayStartTimestamp: b.decayStart.toString(),
          decayEndTimestamp: b.decayEnd.toString(),
          dispatchTimestamp: mine.dispatchTimestamp,
          slashAmount: emptySlashAmount(this.rules, b.amount.toString()),
          ...noBidOptions(this.rules),
          status: STATUSES.includes(listed.status) ? listed.status : `one of ${STATUSES.join(", ")}`,
          details: typeof listed.details === "string" ? listed.details : "a string",
          payment: typeof listed.payment === "string" ? listed.payment : "a string",
          refund: typeof listed.refund === "string" ? listed.refund : "a string",
        });
      }
    }
  },
);

Then(
  /^(the bidder's bid info|provider \d+'s commitment info) with "([^"]*)" is the one with "([^"]*)", and lists commitments$/,
  async function (this: ConformanceWorld, which: string, query: string, same: string) {
    const p = /^provider (\d+)/.exec(which)?.[1];
    const read = (q: string) =>
      p === undefined ? bidInfo(this, q) : commitmentInfo(this, Number(p), q, 1).then((b) => b as unknown);
    const [got, want] = [await read(query), await read(same)];
    const groups = (b: unknown) =>
      ((b as Partial<BidInfoResponse>).blockBidInfo ?? (b as Partial<CommitmentInfoResponse>).commitments ?? []).length;
    if (groups(want) === 0)
      throw new QuerySuiteError(`${which} with "${same}" lists nothing: the check needs commitments`);
    expect(got, `${which} with "${query}" vs with "${same}"`).toEqual(want);
  },
);

Then("the bid info lists exactly:", function (this: ConformanceWorld, table: DataTable) {
  const s = queriesOf(this);
  const body = okJson<BidInfoResponse>(this, "get_bid_info");
  const got = body.blockBidInfo.flatMap((g) =>
    g.bids.map((b) => ({ block: g.blockNumber, bid: b.bidAmount, commitments: b.commitments.length })),
  );
  const want = table
    .hashes()
    .map((r) => ({ block: s.block(r.block!).toString(), bid: r.bid!, commitments: Number(r.commitments) }));
  expect(got, `bid info ${this.lastAnswer.describe().slice(0, 2000)}`).toEqual(want);
});

Then("the commitment info lists exactly:", function (this: ConformanceWorld, table: DataTable) {
  const s = queriesOf(this);
  const body = okJson<CommitmentInfoResponse>(this, "get_commitment_info");
  const got = body.commitments.flatMap((g) =>
    g.commitments.map((c) => ({ group: g.blockNumber, block: c.blockNumber, amount: c.amount })),
  );
  const want = table
    .hashes()
    .map((r) => ({ group: s.block(r.block!).toString(), block: s.block(r.block!).toString(), amount: r.amount! }));
  expect(got, `commitment info ${this.lastAnswer.describe().slice(0, 2000)}`).toEqual(want);
});

Then(/^the bid info lists (\d+) commitments$/, function (this: ConformanceWorld, n: number) {
  const body = okJson<BidInfoResponse>(this, "get_bid_info");
  expect(body.blockBidInfo.reduce((k, g) => k + g.bids.reduce((m, b) => m + b.commitments.length, 0), 0)).toBe(n);
});

Then(/^the commitment info lists (\d+) commitments$/, function (this: ConformanceWorld, n: number) {
  const body = okJson<CommitmentInfoResponse>(this, "get_commitment_info");
  expect(body.commitments.reduce((k, g) => k + g.commitments.length, 0)).toBe(n);
});

Then(/^the body is the JSON '(.*)'$/, function (this: ConformanceWorld, json: string) {
  const a = this.lastAnswer;
  expect({ error: a.error, body: a.value }, a.describe()).toEqual({ error: undefined, body: JSON.parse(json) });
});

// The message runs to the last double quote of the line, so it may itself contain quotes (`parsing field "…"`).
Then(
  /^the query is refused with HTTP ([0-9]+), code ([0-9]+) and the message "([\s\S]*)"$/,
  function (this: ConformanceWorld, status: string, code: string, message: string) {
    const expected = message
      .replace(/\\n/g, "\n")
      .replace(/\{PROVIDER (\d+)\}/g, (_, n: string) => providerAddress(this, Number(n)))
      .replace(/\{([A-Z])\}/g, (_, n: string) => queriesOf(this).block(n).toString());
    const want = { code: Number(code), message: expected, details: [] };
    if (this.transport === "grpc") {
      // The call's status: code and message (the HTTP status is the gateway's mapping of the code).
      const a = this.lastAnswer;
      expect(a.error ?? a.value, a.describe()).toEqual(want);
      return;
    }
    const r = this.response;
    expect({ status: r.status, body: r.json ?? r.text }, `response ${r.status}: ${r.text}`).toEqual({
      status: Number(status),
      body: want,
    });
  },
);

// ------------------------------------------------------------------------------------------- stake

interface StakeAnswer {
  amount: string;
  blsPublicKeys: string[];
}

Then("the stake answer is ProviderRegistry's minimum stake with no BLS keys", async function (this: ConformanceWorld) {
  const min = await registries(this).minStake();
  expect(okJson<StakeAnswer>(this, "get_min_stake")).toEqual({ amount: min.toString(), blsPublicKeys: [] });
});

Then(
  /^the stake answer is provider (\d+)'s stake and BLS keys in ProviderRegistry$/,
  async function (this: ConformanceWorld, p: number) {
    const address = providerAddress(this, p);
    const [stake, keys] = await Promise.all([registries(this).stakeOf(address), registries(this).blsKeysOf(address)]);
    expect(okJson<StakeAnswer>(this, "get_stake")).toEqual({
      amount: stake.toString(),
      blsPublicKeys: keys.map(noHex),
    });
  },
);

Given(/^provider (\d+)'s stake in ProviderRegistry is noted$/, async function (this: ConformanceWorld, p: number) {
  queriesOf(this).noted.set(`stake ${p}`, await registries(this).stakeOf(providerAddress(this, p)));
});

Then(/^the stake answer is ([0-9]+) wei with no BLS keys$/, function (this: ConformanceWorld, wei: string) {
  expect(okJson<StakeAnswer>(this, "stake")).toEqual({ amount: wei, blsPublicKeys: [] });
});

Then(
  /^ProviderRegistry holds the noted stake plus ([0-9]+) wei for provider (\d+)$/,
  async function (this: ConformanceWorld, wei: string, p: number) {
    const noted = queriesOf(this).noted.get(`stake ${p}`);
    if (noted === undefined) throw new QuerySuiteError(`provider ${p}'s stake was not noted`);
    expect(
      await registries(this).stakeOf(providerAddress(this, p)),
      `ProviderRegistry.getProviderStake(provider ${p})`,
    ).toBe(noted + BigInt(wei));
  },
);

// ------------------------------------------------------------------------------------------- rewards and slashed funds

Given(/^provider (\d+)'s reward in BidderRegistry is noted$/, async function (this: ConformanceWorld, p: number) {
  queriesOf(this).noted.set(`reward ${p}`, await registries(this).rewardOf(providerAddress(this, p)));
});

Then("the reward answer is the noted reward", function (this: ConformanceWorld) {
  const noted = [...queriesOf(this).noted.entries()].find(([k]) => k.startsWith("reward "));
  if (!noted) throw new QuerySuiteError("no reward was noted");
  expect(okJson<{ amount: string }>(this, "reward")).toEqual({ amount: noted[1].toString() });
});

Then(/^the reward answer is ([0-9]+)$/, function (this: ConformanceWorld, wei: string) {
  expect(okJson<{ amount: string }>(this, "reward")).toEqual({ amount: wei });
});

Then(/^BidderRegistry holds no reward for provider (\d+)$/, async function (this: ConformanceWorld, p: number) {
  expect(
    await registries(this).rewardOf(providerAddress(this, p)),
    `BidderRegistry.providerAmount(provider ${p})`,
  ).toBe(0n);
});

function accountOf(world: ConformanceWorld, who: string): Address {
  const m = /^provider (\d+)$/.exec(who);
  return m ? providerAddress(world, Number(m[1])) : getAddress(world.target.bidderAddress);
}

Given(/^(provider \d+|the bidder)'s transaction count is noted$/, async function (this: ConformanceWorld, who: string) {
  queriesOf(this).noted.set(`nonce ${who}`, BigInt(await registries(this).nonceOf(accountOf(this, who))));
});

Then(/^(provider \d+|the bidder) sent no transaction$/, async function (this: ConformanceWorld, who: string) {
  const noted = queriesOf(this).noted.get(`nonce ${who}`);
  if (noted === undefined) throw new QuerySuiteError(`${who}'s transaction count was not noted`);
  expect(
    BigInt(await registries(this).nonceOf(accountOf(this, who))),
    `${who}'s transaction count on the settlement chain`,
  ).toBe(noted);
});

Given("the slashed funds owed to the bidder are noted", async function (this: ConformanceWorld) {
  queriesOf(this).noted.set("slashed", await registries(this).slashedOwedTo(getAddress(this.target.bidderAddress)));
});

Then("the body is the JSON string of the noted slashed funds", function (this: ConformanceWorld) {
  const noted = queriesOf(this).noted.get("slashed");
  if (noted === undefined) throw new QuerySuiteError("the slashed funds were not noted");
  const a = this.lastAnswer;
  expect({ error: a.error, body: a.value }, a.describe()).toEqual({ error: undefined, body: noted.toString() });
});

Then("ProviderRegistry owes the bidder nothing", async function (this: ConformanceWorld) {
  expect(
    await registries(this).slashedOwedTo(getAddress(this.target.bidderAddress)),
    "ProviderRegistry.bidderSlashedAmount(bidder)",
  ).toBe(0n);
});

// ------------------------------------------------------------------------------------------- unstake

const unstakeFrom = new WeakMap<ConformanceWorld, bigint>();

Given(/^provider (\d+) of the target may be unstaked$/, async function (this: ConformanceWorld, p: number) {
  if (this.target.providerUrls.length < Number(p)) {
    this.attach(
      `${SKIPPED_PREFIX}the target has ${this.target.providerUrls.length} providers; provider ${p} is the one the unstake scenario takes out`,
      "text/plain",
    );
    return "skipped";
  }
  const requested = await registries(this).withdrawalRequestOf(providerAddress(this, p));
  if (requested !== 0n) {
    this.attach(
      `${SKIPPED_PREFIX}provider ${p} already asked to unstake (an earlier run on this target)`,
      "text/plain",
    );
    return "skipped";
  }
  unstakeFrom.set(this, (await chainOf(this.target).settlementBlockNumber()) + 1n);
});

Then(
  /^ProviderRegistry recorded an unstake request of provider (\d+) in this scenario$/,
  async function (this: ConformanceWorld, p: number) {
    const address = providerAddress(this, p);
    const from = unstakeFrom.get(this) ?? fail("the scenario did not note where it began");
    const logs = await chainOf(this.target).settlement.getLogs({
      address: this.target.contracts.providerRegistry as Address,
      event: providerRegistryAbi.find((x) => x.type === "event" && x.name === "Unstake")!,
      args: { provider: address },
      fromBlock: from,
    });
    expect(logs.length, `Unstake events of ${address} since settlement block ${from}`).toBe(1);
    expect(
      await registries(this).withdrawalRequestOf(address),
      `ProviderRegistry.withdrawalRequests(${address})`,
    ).toBeGreaterThan(0n);
  },
);

function fail(message: string): never {
  throw new QuerySuiteError(message);
}
