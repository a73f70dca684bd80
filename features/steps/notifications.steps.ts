/**
 * Steps of notifications.feature: Subscribe streams on the bidder and provider nodes, the triggers of every topic,
 * and exact checks of what each stream carried. The bid, deposit and mining steps of the settlement feature are
 * reused as they are (features/steps/settlement.steps.ts); their scenario state is read through settlementOf.
 */
import { type DataTable, Given, Then, When } from "@cucumber/cucumber";
import { type Address, getAddress, type Hex, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { providerRegistryAbi } from "../support/abi.ts";
import { devAccount } from "../support/accounts.ts";
import { chainOf } from "../support/chain.ts";
import { sameGrpcStatus } from "../support/grpcStatus.ts";
import {
  ALL_TOPICS,
  canonical,
  FUNDING_ACCOUNT,
  fail,
  getValidators,
  isOptedInOnChain,
  jsonDiff,
  NOTIFY_WAIT_MS,
  type Notification,
  NotificationCheckError,
  nodeOf,
  notificationsOf,
  pollUntil,
  registryEvents,
  SLOTS_PER_EPOCH,
  STREAM_OPEN_MS,
  type Subscriber,
  sender,
  sendSettlementTx,
  sendTx,
  subscriberCount,
} from "../support/notifications.ts";
import { DISPATCH_LEAD_MS, eventually, type NodeName, readReported, settlementOf } from "../support/settlement.ts";
import type { ConformanceWorld } from "../support/world.ts";

const NODE = "(the bidder|provider \\d+)";

/** Notifications a step matched, by subscriber and topic (later steps check them against the chain). */
const matched = new WeakMap<ConformanceWorld, Map<string, Notification>>();
function remember(world: ConformanceWorld, subscriber: string, n: Notification): void {
  let m = matched.get(world);
  if (!m) matched.set(world, (m = new Map()));
  m.set(`${subscriber}/${n.topic}`, n);
  m.set(`last/${n.topic}`, n);
}
function recalled(world: ConformanceWorld, subscriber: string, topic: string): Notification {
  return (
    matched.get(world)?.get(`${subscriber}/${topic}`) ??
    fail(`no ${topic} notification was checked yet in this scenario`)
  );
}
/** The last commitment_*_failed a node announced (by node label), for the record check that follows it. */
const lastFailure = new WeakMap<ConformanceWorld, Map<string, Notification>>();

const strip0x = (h: string): string => (h.startsWith("0x") ? h.slice(2) : h).toLowerCase();
const names = (list: string): string[] => [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);

function topicsOf(text: string): string[] {
  if (text === "every topic") return [...ALL_TOPICS];
  const m = /^topics? (.+)$/.exec(text) ?? fail(`say "for every topic" or "for topics a, b": "${text}"`);
  return m[1]!.split(/\s*,\s*/);
}

/**
 * The notification of `topic` a value is about (the peer, the provider, the slot, the commitment), so that a value
 * with the right subject but the wrong content fails with a diff instead of a bare timeout.
 */
function sameSubject(topic: string, expected: Record<string, unknown>, got: Record<string, unknown>): boolean {
  const eq = (k: string) => String(got[k]).toLowerCase() === String(expected[k]).toLowerCase();
  if (topic.startsWith("peer_")) return eq("ethAddress");
  if (topic.startsWith("provider_")) return eq("provider");
  if (topic === "validator_opted_in") return eq("slot");
  if (topic === "epoch_validators_opted_in") return eq("epoch");
  if (topic.startsWith("commitment_"))
    return strip0x(String(got.commitmentDigest)) === strip0x(String(expected.commitmentDigest));
  return true;
}

/** A notification about the expected subject whose fields or JSON types differ: no later one can make it right. */
class WrongShape extends NotificationCheckError {}

/** The JSON shape of a value: its fields and their types, leaves dropped. */
function shapeOf(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(shapeOf).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${k}:${shapeOf((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return v === null ? "null" : typeof v;
}

/**
 * Waits for the notification of `topic` equal to `expected`. One about the same subject with another shape (fields
 * or JSON types) fails at once; one with the same shape but other content is waited past (it may be an older event)
 * and reported if the expected one never comes.
 */
async function expectNotification(
  s: Subscriber,
  topic: string,
  expected: Record<string, unknown>,
  from = 0,
): Promise<{ n: Notification; index: number }> {
  const candidates = (i0: number) =>
    s.notifications.slice(i0).filter((n) => n.topic === topic && sameSubject(topic, expected, n.value));
  try {
    return await s.waitFor(
      `${topic} ${canonical(expected)} on subscriber "${s.name}"`,
      (n) => {
        if (n.topic !== topic || !sameSubject(topic, expected, n.value)) return false;
        if (shapeOf(n.value) !== shapeOf(expected))
          throw new WrongShape(
            `subscriber "${s.name}" received ${topic} with the wrong shape:\n  ${jsonDiff(expected, n.value).join("\n  ")}\n${s.describe()}`,
          );
        return canonical(n.value) === canonical(expected);
      },
      NOTIFY_WAIT_MS,
      from,
    );
  } catch (e) {
    if (e instanceof WrongShape) throw e;
    const near = candidates(from);
    if (near.length === 0) throw e;
    fail(
      `${(e as Error).message}\nthe ${topic} notifications about the same subject differ:\n${near.map((n) => `  ${jsonDiff(expected, n.value).join("; ")}`).join("\n")}`,
    );
  }
}

function parseExpected(world: ConformanceWorld, template: string): Record<string, unknown> {
  const text = notificationsOf(world).substitute(template);
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    fail(`the expected value ${text} is not JSON: ${(e as Error).message}`);
  }
}

// ------------------------------------------------------------------------------------------- subscribers

Given(
  new RegExp(`^a subscriber "([^"]+)" to ${NODE} for (every topic|topics? .+)$`),
  async function (this: ConformanceWorld, name: string, node: string, topics: string) {
    await notificationsOf(this).subscribe(name, node, topicsOf(topics));
  },
);

Given(
  new RegExp(`^subscribers ((?:"[^"]+"(?:, | and ))+"[^"]+") to ${NODE} for (every topic|topics? .+)$`),
  async function (this: ConformanceWorld, list: string, node: string, topics: string) {
    const s = notificationsOf(this);
    for (const name of names(list)) await s.subscribe(name, node, topicsOf(topics));
  },
);

Then(
  /^the stream of subscriber "([^"]+)" opened with HTTP (\d+), content type "([^"]+)" and no notification yet$/,
  function (this: ConformanceWorld, name: string, status: string, type: string) {
    const s = notificationsOf(this).subscriber(name);
    const problems: string[] = [];
    if (!s.headersAtOnce)
      problems.push(
        `no status line and no headers within ${STREAM_OPEN_MS} ms of the call (a subscriber cannot tell its stream is open)`,
      );
    else if (s.stream.transport === "http" && s.status !== Number(status)) problems.push(`HTTP ${s.status}`);
    // Over gRPC: the headers came at once (the HTTP status and content type are the gateway's).
    if (s.stream.transport === "http" && !s.contentType.startsWith(type))
      problems.push(`content type "${s.contentType}"`);
    if (s.notifications.length || s.badLines.length) problems.push(`lines already arrived:\n${s.describe()}`);
    if (s.ended) problems.push(`the stream already ended: ${s.endReason}`);
    if (problems.length) fail(`subscriber "${name}"'s stream: ${problems.join("; ")}`);
  },
);

// Upstream's stream sends its headers with its first event (docs/divergences.md, "Stream start"), so a stream that
// was not refused within the subscribe call's wait is what shows its topics were taken.
Then(
  /^the stream of subscriber "([^"]+)" was not refused and has no notification yet$/,
  function (this: ConformanceWorld, name: string) {
    const s = notificationsOf(this).subscriber(name);
    const problems: string[] = [];
    if (s.stream.transport === "http" && s.status !== undefined && s.status !== 200) problems.push(`HTTP ${s.status}`);
    if (s.notifications.length || s.badLines.length) problems.push(`lines already arrived:\n${s.describe()}`);
    if (s.ended) problems.push(`the stream ended: ${s.endReason}`);
    if (problems.length) fail(`subscriber "${name}"'s stream: ${problems.join("; ")}`);
  },
);

When(/^subscriber "([^"]+)" disconnects$/, function (this: ConformanceWorld, name: string) {
  notificationsOf(this).subscriber(name).close();
});

Then(
  /^subscriber "([^"]+)" soon receives (\w+) (\{.*\})$/,
  async function (this: ConformanceWorld, name: string, topic: string, template: string) {
    const s = notificationsOf(this).subscriber(name);
    const { n } = await expectNotification(s, topic, parseExpected(this, template));
    remember(this, name, n);
  },
);

Then(
  /^subscriber "([^"]+)" received exactly these notifications, in order:$/,
  function (this: ConformanceWorld, name: string, table: DataTable) {
    const s = notificationsOf(this).subscriber(name);
    const expected = table
      .raw()
      .map(([topic, value]) => ({ topic: topic!.trim(), value: parseExpected(this, value!.trim()) }));
    const got = s.notifications.map((n) => ({ topic: n.topic, value: n.value }));
    if (canonical(got) !== canonical(expected) || s.badLines.length)
      fail(
        `expected exactly:\n${expected.map((n) => `  ${n.topic} ${canonical(n.value)}`).join("\n")}\n${s.describe()}`,
      );
  },
);

Then(
  /^subscribers ((?:"[^"]+"(?:, | and ))+"[^"]+") soon receive (\w+) then (\w+) (\{.*\}), and the same notifications in the same order up to then$/,
  async function (this: ConformanceWorld, list: string, first: string, second: string, template: string) {
    const st = notificationsOf(this);
    const expected = parseExpected(this, template);
    const prefixes: { name: string; upTo: Notification[] }[] = [];
    for (const name of names(list)) {
      const s = st.subscriber(name);
      const a = await expectNotification(s, first, expected);
      const b = await expectNotification(s, second, expected, a.index + 1);
      prefixes.push({ name, upTo: s.notifications.slice(0, b.index + 1) });
    }
    const [ref, ...others] = prefixes;
    for (const o of others)
      if (canonical(o.upTo) !== canonical(ref!.upTo))
        fail(
          `subscribers "${ref!.name}" and "${o.name}" received different notifications up to ${second}:\n` +
            `${st.subscriber(ref!.name).describe()}\n${st.subscriber(o.name).describe()}`,
        );
  },
);

Then(
  /^subscriber "([^"]+)" received only notifications of its topics$/,
  function (this: ConformanceWorld, name: string) {
    const s = notificationsOf(this).subscriber(name);
    const foreign = s.notifications.filter((n) => !s.topics.includes(n.topic));
    if (foreign.length || s.badLines.length)
      fail(`subscriber "${name}" received notifications of topics it did not ask for:\n${s.describe()}`);
  },
);

// ------------------------------------------------------------------------------------------- invalid topics

When(
  /^a client subscribes to (the bidder|provider \d+) with the body '(.*)'$/,
  async function (this: ConformanceWorld, node: string, body: string) {
    const stream = this.notifications(node).subscribe({ rawBody: body });
    await Promise.race([stream.done, new Promise((r) => setTimeout(r, STREAM_OPEN_MS))]);
    const stillOpen = !stream.ended;
    stream.close();
    notificationsOf(this).lastCall = {
      transport: stream.transport,
      status: stream.status ?? 0,
      text: stream.text,
      contentType: stream.contentType ?? "",
      stillOpen,
    };
  },
);

Then(
  /^the call is refused at once with HTTP (\d+) and exactly the body (\{.*\})$/,
  function (this: ConformanceWorld, status: string, body: string) {
    const c = notificationsOf(this).lastCall ?? fail("no Subscribe call was made with a raw body");
    if (c.stillOpen)
      fail(
        `the call was still open after ${STREAM_OPEN_MS} ms (HTTP ${c.status || "no status yet"}, body so far ${JSON.stringify(c.text)}): the node opened a stream instead of refusing`,
      );
    const problems: string[] = [];
    // Over gRPC the body is the call's status, written as the gateway's envelope; status and content type are HTTP's.
    if (c.transport === "http" && c.status !== Number(status)) problems.push(`HTTP ${c.status}, expected ${status}`);
    if (c.transport === "grpc" ? !sameGrpcStatus(c.text, body) : c.text !== `${body}\n`)
      problems.push(`body ${JSON.stringify(c.text)}, expected ${JSON.stringify(`${body}\n`)}`);
    if (c.transport === "http" && !c.contentType.startsWith("application/json"))
      problems.push(`content type "${c.contentType}", expected application/json`);
    if (problems.length) fail(problems.join("\n"));
  },
);

// ------------------------------------------------------------------------------------------- subscriber counts

Given(new RegExp(`^${NODE}'s subscriber count is noted$`), async function (this: ConformanceWorld, node: string) {
  const { address } = nodeOf(this.target, node);
  notificationsOf(this).noted.set(address, await subscriberCount(this, address));
});

function noted(world: ConformanceWorld, node: string): { address: Address; count: number } {
  const { address } = nodeOf(world.target, node);
  const count = notificationsOf(world).noted.get(address);
  if (count === undefined) fail(`${node}'s subscriber count was not noted in this scenario`);
  return { address, count };
}

Then(
  new RegExp(`^${NODE}'s subscriber count is the noted one$`),
  async function (this: ConformanceWorld, node: string) {
    const { address, count } = noted(this, node);
    const now = await subscriberCount(this, address);
    if (now !== count) fail(`${node} counts ${now} subscribers, ${count} were noted before`);
  },
);

Then(
  new RegExp(`^${NODE} soon counts (\\d+) subscribers? more than the noted count$`),
  async function (this: ConformanceWorld, node: string, more: string) {
    const { address, count } = noted(this, node);
    const want = count + Number(more);
    await pollUntil(`${node} counting ${want} subscribers (${count} noted + ${more})`, async () => {
      const n = await subscriberCount(this, address);
      return n === want ? { ok: true, value: n } : { ok: false, seen: `${n} subscribers` };
    });
  },
);

Then(
  new RegExp(`^${NODE}'s subscriber count soon returns to the noted one$`),
  async function (this: ConformanceWorld, node: string) {
    const { address, count } = noted(this, node);
    await pollUntil(`${node} counting the ${count} subscribers noted before`, async () => {
      const n = await subscriberCount(this, address);
      return n === count ? { ok: true, value: n } : { ok: false, seen: `${n} subscribers` };
    });
  },
);

// ------------------------------------------------------------------------------------------- peers

When(
  /^provider (\d+)'s node leaves the network through the control API$/,
  async function (this: ConformanceWorld, p: string) {
    await notificationsOf(this).providerNode("stop", Number(p) - 1);
  },
);

When(
  /^provider (\d+)'s node joins the network again through the control API$/,
  async function (this: ConformanceWorld, p: string) {
    await notificationsOf(this).providerNode("start", Number(p) - 1);
  },
);

// ------------------------------------------------------------------------------------------- validators

Given(
  /^K is the proposer key of the first slot S of the next epoch E whose proposer is not opted in, per get_validators$/,
  async function (this: ConformanceWorld) {
    const st = notificationsOf(this);
    if (!this.target.validatorOptInRouter)
      fail("the target names no validatorOptInRouter (the L1 validator opt-in registry)");
    // The registry is deployed into the first block the L1 mines: until then no key can be opted in.
    const code = await chainOf(this.target).l1.getCode({ address: this.target.validatorOptInRouter as Address });
    if (!code || code === "0x") {
      await this.control.mine(1);
      const again = await chainOf(this.target).l1.getCode({ address: this.target.validatorOptInRouter as Address });
      if (!again || again === "0x")
        fail(
          `the validator registry ${this.target.validatorOptInRouter} has no code on L1, even after a block was mined`,
        );
    }
    let head = await chainOf(this.target).l1BlockNumber();
    // The opt-in lands in the next block, which must be at the latest the last block of the epoch (E is announced
    // when that block is mined, from the registry as it stands after it).
    if (head % SLOTS_PER_EPOCH === SLOTS_PER_EPOCH - 1n) {
      await this.control.mine(1);
      head += 1n;
    }
    const epoch = head / SLOTS_PER_EPOCH + 1n;
    const duties = await getValidators(this, this.target.bidderUrl, epoch);
    const free =
      duties.find((d) => !d.optedIn) ??
      fail(`every proposer of epoch ${epoch} is already opted in: ${JSON.stringify(duties)}`);
    const key = free.blsKey as Hex;
    if (await isOptedInOnChain(this.target, key))
      fail(`get_validators says ${key} is not opted in, but the registry says it is`);
    st.validator = { epoch, firstSlot: epoch * SLOTS_PER_EPOCH, slot: free.slot, key };
    this.log(`L1 head ${head}; E = ${epoch}, S = ${free.slot}, K = ${key}`);
  },
);

When(
  /^K is opted in on the L1 registry by dev account (\d+) and the next L1 block is mined$/,
  async function (this: ConformanceWorld, account: string) {
    const st = notificationsOf(this);
    const v = st.validator ?? fail("no key K was picked");
    if (Number(account) !== 17) fail("this feature's L1 opt-ins are sent by dev account 17");
    await st.optIn(v);
    const [block] = await this.control.mine(1);
    const receipt = await chainOf(this.target)
      .l1.getTransactionReceipt({ hash: v.optInTx! })
      .catch((e: Error) =>
        fail(
          `the opt-in transaction ${v.optInTx} was not mined in L1 block ${block?.number}: ${e.message.split("\n")[0]}`,
        ),
      );
    if (receipt.status !== "success")
      fail(`the opt-in transaction ${v.optInTx} failed in L1 block ${receipt.blockNumber}`);
    if (receipt.blockNumber > v.firstSlot - 1n)
      fail(
        `the opt-in landed in L1 block ${receipt.blockNumber}, after the last block of epoch ${v.epoch - 1n} (${v.firstSlot - 1n})`,
      );
  },
);

Then(/^get_validators for epoch E soon shows K opted in at slot S$/, async function (this: ConformanceWorld) {
  const v = notificationsOf(this).validator ?? fail("no key K was picked");
  await pollUntil(`get_validators?epoch=${v.epoch} showing ${v.key} opted in at slot ${v.slot}`, async () => {
    const d = (await getValidators(this, this.target.bidderUrl, v.epoch)).find((x) => x.slot === v.slot)!;
    if (d.blsKey !== v.key)
      fail(
        `get_validators?epoch=${v.epoch} now names ${d.blsKey} the proposer of slot ${v.slot}, it named ${v.key} before`,
      );
    return d.optedIn ? { ok: true, value: d } : { ok: false, seen: JSON.stringify(d) };
  });
});

async function mineUpTo(world: ConformanceWorld, last: bigint, what: string): Promise<void> {
  const head = await chainOf(world.target).l1BlockNumber();
  if (head > last) fail(`the L1 head is ${head}, already past ${what} (block ${last})`);
  if (head < last) await world.control.mine(Number(last - head));
  const now = await chainOf(world.target).l1BlockNumber();
  if (now !== last) fail(`mined up to ${what} (block ${last}), but the L1 head is ${now}`);
}

When(/^L1 blocks are mined up to the last block before epoch E$/, async function (this: ConformanceWorld) {
  const v = notificationsOf(this).validator ?? fail("no epoch E was picked");
  await mineUpTo(this, v.firstSlot - 1n, `the last block before epoch ${v.epoch}`);
});

When(/^L1 blocks are mined up to the last block before slot S$/, async function (this: ConformanceWorld) {
  const v = notificationsOf(this).validator ?? fail("no slot S was picked");
  await mineUpTo(this, v.slot - 1n, `the last block before slot ${v.slot}`);
});

const epochAnnouncements = new WeakMap<ConformanceWorld, Map<string, { n: Notification; index: number }>>();

Then(
  /^subscriber "([^"]+)" soon receives epoch_validators_opted_in for epoch E: its 32 slots in ascending order, as get_validators lists them, with K opted in$/,
  async function (this: ConformanceWorld, name: string) {
    const st = notificationsOf(this);
    const v = st.validator ?? fail("no epoch E was picked");
    const s = st.subscriber(name);
    const got = await s.waitFor(
      `epoch_validators_opted_in for epoch ${v.epoch}`,
      (n) => n.topic === "epoch_validators_opted_in" && String(n.value.epoch) === v.epoch.toString(),
    );
    const value = got.n.value;
    const problems: string[] = [];
    if (Object.keys(value).sort().join(",") !== "epoch,epoch_start_time,slots")
      problems.push(`fields ${Object.keys(value).sort().join(", ")}, expected epoch, epoch_start_time, slots`);
    if (value.epoch !== Number(v.epoch))
      problems.push(`epoch ${JSON.stringify(value.epoch)}, expected the number ${v.epoch}`);
    // Unix seconds (not ms), after the block that announced the epoch and at most one 12 s slot later.
    const announcedAt = (await chainOf(this.target).l1.getBlock({ blockNumber: v.firstSlot - 1n })).timestamp;
    const t = value.epoch_start_time;
    if (typeof t !== "number" || !Number.isInteger(t) || BigInt(t) <= announcedAt || BigInt(t) > announcedAt + 12n)
      problems.push(
        `epoch_start_time ${JSON.stringify(t)}, expected an integer number of Unix seconds in (${announcedAt}, ${announcedAt + 12n}] (block ${v.firstSlot - 1n} was mined at ${announcedAt})`,
      );
    // The registry does not change until the end of the scenario: get_validators read now is what the node saw.
    const duties = await getValidators(this, this.target.bidderUrl, v.epoch);
    const expected = duties.map((d) => ({ slot: Number(d.slot), bls_key: d.blsKey, opted_in: d.optedIn }));
    problems.push(...jsonDiff(expected, value.slots, "slots"));
    const mine = expected.filter((d) => d.bls_key === v.key);
    if (!mine.some((d) => d.slot === Number(v.slot)))
      problems.push(`get_validators no longer names ${v.key} the proposer of slot ${v.slot}`);
    if (mine.some((d) => !d.opted_in))
      problems.push(`get_validators lists ${v.key} not opted in at some of its slots: ${JSON.stringify(mine)}`);
    if (problems.length)
      fail(
        `epoch_validators_opted_in for epoch ${v.epoch} on subscriber "${name}":\n  ${problems.join("\n  ")}\n  value: ${canonical(value)}`,
      );
    let m = epochAnnouncements.get(this);
    if (!m) epochAnnouncements.set(this, (m = new Map()));
    m.set(name, got);
  },
);

Then(
  /^subscriber "([^"]+)" soon receives the same epoch_validators_opted_in for epoch E$/,
  async function (this: ConformanceWorld, name: string) {
    const st = notificationsOf(this);
    const v = st.validator ?? fail("no epoch E was picked");
    const ref =
      [...(epochAnnouncements.get(this)?.values() ?? [])][0] ?? fail("no epoch announcement was checked before");
    const s = st.subscriber(name);
    const got = await s.waitFor(
      `epoch_validators_opted_in for epoch ${v.epoch}`,
      (n) => n.topic === "epoch_validators_opted_in" && String(n.value.epoch) === v.epoch.toString(),
    );
    const diff = jsonDiff(ref.n.value, got.n.value);
    if (diff.length)
      fail(
        `subscriber "${name}" received another epoch_validators_opted_in for epoch ${v.epoch}:\n  ${diff.join("\n  ")}`,
      );
  },
);

Then(
  /^subscriber "([^"]+)" received one validator_opted_in for each opted-in slot of epoch E up to S, in slot order, after the epoch announcement$/,
  function (this: ConformanceWorld, name: string) {
    const st = notificationsOf(this);
    const v = st.validator ?? fail("no epoch E was picked");
    const s = st.subscriber(name);
    const announcement =
      epochAnnouncements.get(this)?.get(name) ??
      fail(`subscriber "${name}"'s epoch announcement was not checked before`);
    const slots = announcement.n.value.slots as { slot: number; bls_key: string; opted_in: boolean }[];
    const expected = slots
      .filter((x) => x.opted_in && x.slot <= Number(v.slot))
      .map((x) => ({ epoch: Number(v.epoch), slot: x.slot, bls_key: x.bls_key }));
    const ofEpoch = s.notifications
      .map((n, i) => ({ n, i }))
      .filter(({ n }) => n.topic === "validator_opted_in" && String(n.value.epoch) === v.epoch.toString());
    const problems: string[] = [];
    if (canonical(ofEpoch.map(({ n }) => n.value)) !== canonical(expected))
      problems.push(`validator_opted_in of epoch ${v.epoch}: expected ${canonical(expected)}`);
    const early = ofEpoch.filter(({ i }) => i < announcement.index);
    if (early.length) problems.push(`${early.length} came before the epoch announcement`);
    if (problems.length) fail(`${problems.join("\n")}\n${s.describe()}`);
  },
);

// ------------------------------------------------------------------------------------------- provider registry

Then(
  /^that provider_slashed agrees with ProviderRegistry: the FundsSlashed amount, and hasEnoughStake is stake after the slash >= minStake$/,
  async function (this: ConformanceWorld) {
    const n = recalled(this, "last", "provider_slashed");
    const provider = getAddress(String(n.value.provider));
    const from = settlementOf(this).settlementFrom;
    const logs = await registryEvents(this.target, "FundsSlashed", provider, from);
    if (logs.length !== 1)
      fail(`expected one FundsSlashed for ${provider} since settlement block ${from}, found ${logs.length}`);
    const log = logs[0]!;
    const amount = (log.args as { amount: bigint }).amount;
    const client = chainOf(this.target).settlement;
    const registry = this.target.contracts.providerRegistry as Address;
    const [stake, minStake] = await Promise.all([
      client.readContract({
        address: registry,
        abi: providerRegistryAbi,
        functionName: "getProviderStake",
        args: [provider],
        blockNumber: log.blockNumber!,
      }),
      client.readContract({
        address: registry,
        abi: providerRegistryAbi,
        functionName: "minStake",
        blockNumber: log.blockNumber!,
      }),
    ]);
    const problems: string[] = [];
    if (n.value.amount !== amount.toString())
      problems.push(`amount ${JSON.stringify(n.value.amount)}, FundsSlashed says ${amount}`);
    if (n.value.hasEnoughStake !== stake >= minStake)
      problems.push(
        `hasEnoughStake ${n.value.hasEnoughStake}, but the stake after the slash is ${stake} and minStake ${minStake}`,
      );
    if (problems.length)
      fail(
        `provider_slashed ${canonical(n.value)} vs ProviderRegistry (settlement block ${log.blockNumber}):\n  ${problems.join("\n  ")}`,
      );
  },
);

When(
  /^provider (\d+) adds ([0-9]+) wei to its stake$/,
  async function (this: ConformanceWorld, p: string, wei: string) {
    const st = notificationsOf(this);
    await st.markSettlementStart();
    const node = nodeOf(this.target, `provider ${p}`);
    const r = await this.provider(Number(p)).stake(BigInt(wei));
    if (!r.error) {
      this.log(`Stake of ${wei} wei: ${r.describe()}`);
      return;
    }
    // 404/501 over HTTP are NotFound (5) and Unimplemented (12).
    if (r.error.code !== 5 && r.error.code !== 12) fail(`Stake of ${wei} wei on provider ${p}: ${r.describe()}`);
    // The node has no stake route: stake for it on chain (anyone may add stake to a registered provider).
    this.log(`${r.describe()}; staking with ProviderRegistry.delegateStake from dev account ${FUNDING_ACCOUNT}`);
    await sendSettlementTx(
      sender(devAccount(FUNDING_ACCOUNT).privateKey),
      this.target,
      "delegateStake",
      [node.address],
      BigInt(wei),
    );
  },
);

Then(
  /^ProviderRegistry emitted FundsDeposited for provider (\d+) with ([0-9]+) wei$/,
  async function (this: ConformanceWorld, p: string, wei: string) {
    const st = notificationsOf(this);
    const node = nodeOf(this.target, `provider ${p}`);
    const logs = await registryEvents(this.target, "FundsDeposited", node.address, await st.markSettlementStart());
    const amounts = logs.map((l) => (l.args as { amount: bigint }).amount.toString());
    if (amounts.join(",") !== wei)
      fail(
        `FundsDeposited for ${node.address} since settlement block ${st.settlementFrom}: [${amounts.join(", ")}], expected [${wei}]`,
      );
  },
);

Given(
  /^a fresh account (\w+) holding (\d+) ETH on the settlement chain, funded by dev account (\d+)$/,
  async function (this: ConformanceWorld, name: string, eth: string, funder: string) {
    const st = notificationsOf(this);
    await st.markSettlementStart();
    const privateKey = generatePrivateKey();
    const address = privateKeyToAccount(privateKey).address;
    await sendTx(
      this.target,
      sender(devAccount(Number(funder)).privateKey),
      { to: address, value: parseEther(String(eth)) },
      `funding ${address} from dev account ${funder}`,
    );
    st.accounts.set(name, { address, privateKey });
    this.log(`${name} = ${address}`);
  },
);

When(
  /^(\w+) registers as a provider with ProviderRegistry.registerAndStake and the minimum stake$/,
  async function (this: ConformanceWorld, name: string) {
    const st = notificationsOf(this);
    const acc = st.accounts.get(name) ?? fail(`no account ${name} in this scenario`);
    const minStake = await chainOf(this.target).settlement.readContract({
      address: this.target.contracts.providerRegistry as Address,
      abi: providerRegistryAbi,
      functionName: "minStake",
    });
    await sendSettlementTx(sender(acc.privateKey), this.target, "registerAndStake", [], minStake);
  },
);

When(/^(\w+) unstakes with ProviderRegistry.unstake$/, async function (this: ConformanceWorld, name: string) {
  const st = notificationsOf(this);
  const acc = st.accounts.get(name) ?? fail(`no account ${name} in this scenario`);
  await sendSettlementTx(sender(acc.privateKey), this.target, "unstake");
});

// ------------------------------------------------------------------------------------------- failed store / open

Given(
  /^(the bidder|provider \d+)'s next (store|open) transaction is made to fail on chain through the control API$/,
  async function (this: ConformanceWorld, node: string, what: "store" | "open") {
    const st = notificationsOf(this);
    await st.fault(node === "the bidder" ? "bidder" : nodeOf(this.target, node).address, what);
  },
);

Then(
  /^subscriber "([^"]+)" soon receives (commitment_store_failed|commitment_open_failed) for the commitment, with the bid's transaction hashes and an error starting with "([^"]*)"$/,
  async function (this: ConformanceWorld, name: string, topic: string, prefix: string) {
    const st = notificationsOf(this);
    const s = st.subscriber(name);
    const c = settlementOf(this).commitment();
    const digest = c.digest.slice(2).toLowerCase();
    const txnHash = c.bid.txs.map((t) => t.hash).join(",");
    const { n } = await s.waitFor(
      `${topic} for commitment ${digest}`,
      (x) => x.topic === topic && strip0x(String(x.value.commitmentDigest)) === digest,
    );
    const v = n.value;
    const problems: string[] = [];
    if (Object.keys(v).sort().join(",") !== "commitmentDigest,error,txnHash")
      problems.push(`fields ${Object.keys(v).sort().join(", ")}, expected commitmentDigest, error, txnHash`);
    if (v.commitmentDigest !== digest)
      problems.push(
        `commitmentDigest ${JSON.stringify(v.commitmentDigest)}, expected "${digest}" (lower-case hex, no 0x)`,
      );
    if (v.txnHash !== txnHash)
      problems.push(
        `txnHash ${JSON.stringify(v.txnHash)}, expected "${txnHash}" (the bid's transaction hashes, lower-case hex without 0x, joined by ",")`,
      );
    if (typeof v.error !== "string" || !v.error.startsWith(prefix) || v.error.length <= prefix.length)
      problems.push(
        `error ${JSON.stringify(v.error)}, expected a text starting with "${prefix}" and naming the reason`,
      );
    if (problems.length)
      fail(`${topic} on subscriber "${name}":\n  ${problems.join("\n  ")}\n  value: ${canonical(v)}`);
    let m = lastFailure.get(this);
    if (!m) lastFailure.set(this, (m = new Map()));
    m.set(s.node, n);
    this.log(`${topic} on ${s.node}: ${canonical(v)}`);
  },
);

Then(
  new RegExp(`^${NODE} soon reports the commitment with status "(\\w+)" and details "([^"]*)" followed by that error$`),
  async function (this: ConformanceWorld, node: string, status: string, prefix: string) {
    const n =
      lastFailure.get(this)?.get(nodeOf(this.target, node).label) ??
      fail(`no failure notification of ${node} was checked before`);
    const details = prefix + String(n.value.error);
    const c = settlementOf(this).commitment();
    const name: NodeName = node === "the bidder" ? "bidder" : (node as NodeName);
    await eventually(
      `${node} reporting commitment ${c.digest} with status "${status}" and details ${JSON.stringify(details)}`,
      async () => {
        const r = await readReported(this, name, c);
        if ("missing" in r) return { done: false, seen: r.missing, hopeless: r.hopeless };
        return r.found.status === status && r.found.details === details
          ? { done: true, value: r.found }
          : { done: false, seen: `status "${r.found.status}", details ${JSON.stringify(r.found.details)}` };
      },
      NOTIFY_WAIT_MS,
    );
  },
);

Then(
  /^the stream of subscriber "([^"]+)" had the content type "([^"]+)"$/,
  function (this: ConformanceWorld, name: string, type: string) {
    const http = this.httpOnly("content type");
    if (http) return http;
    const s = notificationsOf(this).subscriber(name);
    if (s.notifications.length === 0)
      fail(`subscriber "${name}" received no notification, so its content type says nothing`);
    if (!s.contentType.startsWith(type))
      fail(`subscriber "${name}"'s stream has the content type "${s.contentType}", expected ${type}`);
  },
);

// ------------------------------------------------------------------------------------------- stake below the minimum

Given(/^provider (\d+)'s stake is put back after the scenario$/, async function (this: ConformanceWorld, p: string) {
  const node = nodeOf(this.target, `provider ${p}`);
  const read = () =>
    chainOf(this.target).settlement.readContract({
      address: this.target.contracts.providerRegistry as Address,
      abi: providerRegistryAbi,
      functionName: "getProviderStake",
      args: [node.address],
    });
  const before = await read();
  this.onTeardown(`putting provider ${p}'s stake back`, async () => {
    const now = await read();
    if (now >= before) return;
    await sendSettlementTx(
      sender(devAccount(FUNDING_ACCOUNT).privateKey),
      this.target,
      "delegateStake",
      [node.address],
      before - now,
    );
  });
});

When(
  /^the bidder bids 1 ETH for L1 block B on a transfer, with a slash amount that leaves provider (\d+) (\d+) ETH below the minimum stake, decaying from D\+(\d+) ms to D\+(\d+) ms$/,
  async function (this: ConformanceWorld, p: string, below: string, startOff: string, endOff: string) {
    const s = settlementOf(this);
    const node = nodeOf(this.target, `provider ${p}`);
    const registry = this.target.contracts.providerRegistry as Address;
    const client = chainOf(this.target).settlement;
    const [stake, minStake, penaltyPercent] = await Promise.all([
      client.readContract({
        address: registry,
        abi: providerRegistryAbi,
        functionName: "getProviderStake",
        args: [node.address],
      }),
      client.readContract({ address: registry, abi: providerRegistryAbi, functionName: "minStake" }),
      client.readContract({ address: registry, abi: providerRegistryAbi, functionName: "feePercent" }),
    ]);
    // Dispatched before the decay starts, the whole bid counts: the slash takes bid + slash amount + penalty on the bid.
    const bid = parseEther("1");
    const penalty = (bid * penaltyPercent) / 10n ** 18n;
    const target = stake - minStake + parseEther(String(below));
    const slashAmount = target - bid - penalty;
    if (slashAmount <= 0n || slashAmount > 2n ** 64n - 1n || target > stake)
      fail(
        `provider ${p}'s stake (${stake} wei, minimum ${minStake}) cannot be brought ${below} ETH below the minimum by one bid's slash (slash amount ${slashAmount})`,
      );
    this.log(`stake ${stake}, minStake ${minStake}: slash amount ${slashAmount} wei takes ${target} wei`);
    const dispatch = BigInt(Date.now()) + DISPATCH_LEAD_MS;
    await s.sendBid(
      {
        blockRef: "B",
        block: s.blockOf("B"),
        amount: bid,
        slashAmount,
        decayStart: dispatch + BigInt(startOff),
        decayEnd: dispatch + BigInt(endOff),
        txs: [await s.transfer()],
        reverting: [],
      },
      dispatch,
    );
  },
);

Then(
  /^subscriber "([^"]+)" soon receives provider_slashed for provider (\d+) with hasEnoughStake (true|false)$/,
  async function (this: ConformanceWorld, name: string, p: string, enough: string) {
    const s = notificationsOf(this).subscriber(name);
    const address = nodeOf(this.target, `provider ${p}`).address;
    const { n } = await s.waitFor(
      `provider_slashed for ${address}`,
      (x) => x.topic === "provider_slashed" && String(x.value.provider).toLowerCase() === address.toLowerCase(),
    );
    const v = n.value;
    const problems: string[] = [];
    if (Object.keys(v).sort().join(",") !== "amount,hasEnoughStake,provider")
      problems.push(`fields ${Object.keys(v).sort().join(", ")}, expected amount, hasEnoughStake, provider`);
    if (v.provider !== address) problems.push(`provider ${JSON.stringify(v.provider)}, expected "${address}" (EIP-55)`);
    if (typeof v.amount !== "string" || !/^[1-9][0-9]*$/.test(v.amount))
      problems.push(`amount ${JSON.stringify(v.amount)}, expected wei as a decimal string`);
    if (v.hasEnoughStake !== (enough === "true"))
      problems.push(`hasEnoughStake ${JSON.stringify(v.hasEnoughStake)}, expected ${enough}`);
    if (problems.length)
      fail(`provider_slashed on subscriber "${name}":\n  ${problems.join("\n  ")}\n  value: ${canonical(v)}`);
    remember(this, name, n);
  },
);
