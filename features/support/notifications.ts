/**
 * Support for notifications.feature (interface.md §2.8, §4.2, §6; api-behaviour §1.2, §5): Subscribe streams read
 * in the background and inspected line by line, the triggers of each topic (provider nodes leaving and joining,
 * validator opt-ins on the L1 registry, registry transactions on the settlement chain, failed store and open
 * transactions), exact value comparison, and the teardown that undoes what a scenario changed (subscribers closed
 * and checked gone, provider nodes restarted, validator keys opted out).
 *
 * Waiting is always on an event or a polled state with a deadline; nothing sleeps for a fixed time.
 */

import {
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  type Hex,
  http,
  parseEventLogs,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { MevCommitError } from "../../lib/errors.ts";
import { providerRegistryAbi, validatorOptInAbi } from "./abi.ts";
import { devAccount } from "./accounts.ts";
import { chainOf } from "./chain.ts";
import type { MessageStream } from "./clients/api.ts";
import { chainHttp } from "./clients/chainHttp.ts";
import { perScenario } from "./perScenario.ts";
import type { Target } from "./target.ts";
import type { ConformanceWorld } from "./world.ts";

export class NotificationCheckError extends MevCommitError {}

export function fail(message: string): never {
  throw new NotificationCheckError(message);
}

/** How long a notification may take to arrive after its trigger. */
export const NOTIFY_WAIT_MS = Number(process.env.NOTIFY_WAIT_MS ?? 10_000);
/**
 * How long a Subscribe call is given to send its headers before the suite takes the subscription as open anyway
 * (upstream's node sends none until the first event; only the "Stream start" scenario requires them at once), and
 * how long a refused call may take to answer.
 */
export const STREAM_OPEN_MS = Number(process.env.STREAM_OPEN_MS ?? 1_000);
/** Every topic of interface.md §6 and api-behaviour §5. */
export const ALL_TOPICS = [
  "peer_connected",
  "peer_disconnected",
  "validator_opted_in",
  "epoch_validators_opted_in",
  "provider_registered",
  "provider_deregistered",
  "provider_slashed",
  "provider_deposit",
  "commitment_store_failed",
  "commitment_open_failed",
] as const;
/** Dev account that sends this feature's L1 opt-in / opt-out transactions. */
export const OPT_IN_ACCOUNT = 17;
/** Dev account that funds (settlement chain) the fresh provider accounts of the registration scenario. */
export const FUNDING_ACCOUNT = 16;
export const SLOTS_PER_EPOCH = 32n;

// ------------------------------------------------------------------------------------------- JSON comparison

/** JSON text with object keys sorted, so that two values compare by content (types included: 1 ≠ "1"). */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

/** Differences between an expected and an actual JSON value, one line per path (empty when equal). */
export function jsonDiff(expected: unknown, actual: unknown, path = "value"): string[] {
  if (canonical(expected) === canonical(actual)) return [];
  const isObj = (x: unknown) => x !== null && typeof x === "object" && !Array.isArray(x);
  if (isObj(expected) && isObj(actual)) {
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const out: string[] = [];
    for (const k of Object.keys(e)) {
      if (!(k in a)) out.push(`${path}.${k} is missing (expected ${JSON.stringify(e[k])})`);
      else out.push(...jsonDiff(e[k], a[k], `${path}.${k}`));
    }
    for (const k of Object.keys(a))
      if (!(k in e)) out.push(`${path}.${k} = ${JSON.stringify(a[k])} is not a field of this topic's value`);
    return out;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length)
      return [
        `${path} has ${actual.length} entries, expected ${expected.length}: ${JSON.stringify(actual).slice(0, 300)}`,
      ];
    return expected.flatMap((x, i) => jsonDiff(x, actual[i], `${path}[${i}]`));
  }
  const kind = (x: unknown) => (x === null ? "null" : Array.isArray(x) ? "array" : typeof x);
  return [
    `${path} = ${JSON.stringify(actual)} (${kind(actual)}), expected ${JSON.stringify(expected)} (${kind(expected)})`,
  ];
}

// ------------------------------------------------------------------------------------------- Subscribe streams

export interface Notification {
  topic: string;
  value: Record<string, unknown>;
}

/** One Subscribe stream, read in the background and judged by its messages: every line is parsed and checked for the envelope. */
export class Subscriber {
  private constructor(
    readonly name: string,
    readonly node: string,
    readonly topics: readonly string[],
    readonly stream: MessageStream,
    /** Whether the response head came within STREAM_OPEN_MS of the call. */
    readonly headersAtOnce: boolean,
  ) {}

  /** Opens a subscription; fails when the node refuses it, not when it holds its headers back. */
  static async open(name: string, node: string, stream: MessageStream, topics: readonly string[]): Promise<Subscriber> {
    const atOnce = await stream.head(STREAM_OPEN_MS);
    if (atOnce && !stream.ok) {
      await Promise.race([stream.done, stream.changed(STREAM_OPEN_MS)]);
      stream.close();
      fail(
        `subscriber "${name}": Subscribe ${JSON.stringify({ topics })} on ${node} was refused: ${stream.describe(400)}`,
      );
    }
    if (stream.ended && stream.lines.length === 0)
      fail(
        `subscriber "${name}": Subscribe ${JSON.stringify({ topics })} on ${node} ended at once: ${stream.describe(400)}`,
      );
    return new Subscriber(name, node, topics, stream, atOnce);
  }

  get status(): number | undefined {
    return this.stream.status;
  }

  get contentType(): string {
    return this.stream.contentType ?? "";
  }

  get ended(): boolean {
    return this.stream.ended;
  }

  get endReason(): string {
    const r = this.stream.endReason;
    return r === "end" ? "the node ended the stream" : r === "closed" ? "closed by the scenario" : `the stream ${r}`;
  }

  /** Notifications in arrival order. */
  get notifications(): Notification[] {
    return this.parsed().notifications;
  }

  /** Lines that are not `{"result":{"topic","value"}}` (error lines, malformed JSON, extra fields). */
  get badLines(): string[] {
    return this.parsed().bad;
  }

  private parsed(): { notifications: Notification[]; bad: string[] } {
    const notifications: Notification[] = [];
    const bad: string[] = [];
    const keys = (o: unknown) => (o && typeof o === "object" ? Object.keys(o).sort().join(",") : "");
    for (const line of this.stream.lines) {
      const p = line as { result?: { topic?: unknown; value?: unknown } };
      const value = p?.result?.value;
      const wellFormed =
        keys(p) === "result" &&
        keys(p.result) === "topic,value" &&
        typeof p.result!.topic === "string" &&
        !!value &&
        typeof value === "object" &&
        !Array.isArray(value);
      if (wellFormed) notifications.push({ topic: p.result!.topic as string, value: value as Record<string, unknown> });
      else bad.push(JSON.stringify(line).slice(0, 500));
    }
    return { notifications, bad };
  }

  /** What the subscriber received so far, for failure messages. */
  describe(): string {
    const list =
      this.notifications.map((n, i) => `  #${i + 1} ${n.topic} ${canonical(n.value)}`).join("\n") ||
      "  (no notification)";
    const bad = this.badLines.length ? `\n  other lines: ${this.badLines.join(" | ")}` : "";
    const end = this.ended ? `\n  stream ended: ${this.endReason}` : "";
    return `subscriber "${this.name}" (${this.node}, topics ${this.topics.join(", ")}) received:\n${list}${bad}${end}`;
  }

  /**
   * Waits (event-driven, bounded) for the first notification at index ≥ `from` that `pick` selects. Fails at once
   * when the stream carries an error or a malformed line, or ends.
   */
  async waitFor(
    what: string,
    pick: (n: Notification) => boolean,
    timeoutMs = NOTIFY_WAIT_MS,
    from = 0,
  ): Promise<{ n: Notification; index: number }> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const list = this.notifications;
      const index = list.findIndex((n, i) => i >= from && pick(n));
      if (index >= 0) return { n: list[index]!, index };
      if (this.badLines.length)
        fail(`while waiting for ${what}: the stream carried lines that are not notifications.\n${this.describe()}`);
      if (this.ended) fail(`while waiting for ${what}: ${this.endReason}.\n${this.describe()}`);
      const left = deadline - performance.now();
      if (left <= 0) fail(`${what} did not arrive within ${timeoutMs} ms.\n${this.describe()}`);
      await this.stream.changed(left);
    }
  }

  close(): void {
    this.stream.close();
  }
}

// ------------------------------------------------------------------------------------------- the nodes

/** "the bidder" / "bidder" / "provider N" → the node's label, URL and address on the target. */
export function nodeOf(target: Target, text: string): { label: string; url: string; address: Address } {
  if (text === "the bidder" || text === "bidder")
    return { label: "the bidder", url: target.bidderUrl, address: getAddress(target.bidderAddress) };
  const m = /^provider (\d+)$/.exec(text);
  if (!m) fail(`unknown node "${text}" (say "the bidder" or "provider N")`);
  const i = Number(m[1]);
  const url = target.providerUrls[i - 1];
  const address = target.providerAddresses[i - 1];
  if (!url || !address) fail(`the target has ${target.providerUrls.length} providers, not ${i}`);
  return { label: `provider ${i}`, url, address: getAddress(address) };
}

/** The node's current Subscribe stream count, from the control API's status (`nodes[].subscribers`). */
export async function subscriberCount(world: ConformanceWorld, address: Address): Promise<number> {
  if (!world.has("sim-nodes"))
    fail("counting a node's subscribers needs the control API over the target's nodes (capability sim-nodes)");
  const status = await world.control.status();
  const node = (status.nodes ?? []).find((n) => n.address.toLowerCase() === address.toLowerCase());
  if (!node) fail(`/sim/v1/status lists no node with address ${address}: ${JSON.stringify(status.nodes)}`);
  if (typeof node.subscribers !== "number")
    fail(`/sim/v1/status gives node ${node.name} no subscriber count: ${JSON.stringify(node)}`);
  return node.subscribers;
}

/** Polls `probe` until it holds, or fails after `timeoutMs` with what it saw last. */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<{ ok: true; value: T } | { ok: false; seen: string }>,
  timeoutMs = NOTIFY_WAIT_MS,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const r = await probe();
    if (r.ok) return r.value;
    if (performance.now() > deadline) fail(`${what}: not within ${timeoutMs} ms; last seen: ${r.seen}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

// ------------------------------------------------------------------------------------------- validators

export interface SlotDuty {
  slot: bigint;
  blsKey: string;
  optedIn: boolean;
}

/** GET /v1/validator/get_validators?epoch=E on a node, checked for its shape: 32 slots of the epoch, ascending. */
export async function getValidators(world: ConformanceWorld, url: string, epoch: bigint): Promise<SlotDuty[]> {
  const r = await world.http("GET", `${url}/v1/validator/get_validators?epoch=${epoch}`);
  if (r.status !== 200)
    fail(`GET ${url}/v1/validator/get_validators?epoch=${epoch} answered HTTP ${r.status}: ${r.text.slice(0, 400)}`);
  const items = (r.json as { items?: Record<string, { BLSKey?: unknown; isOptedIn?: unknown }> })?.items;
  if (!items || typeof items !== "object")
    fail(`get_validators?epoch=${epoch} answered no items map: ${r.text.slice(0, 400)}`);
  const first = epoch * SLOTS_PER_EPOCH;
  const want = Array.from({ length: Number(SLOTS_PER_EPOCH) }, (_, i) => (first + BigInt(i)).toString());
  if (Object.keys(items).join(",") !== want.join(","))
    fail(
      `get_validators?epoch=${epoch} lists slots ${Object.keys(items).join(",")}, expected ${want[0]}…${want.at(-1)} ascending`,
    );
  return want.map((slot) => {
    const it = items[slot]!;
    if (typeof it.BLSKey !== "string" || !/^0x[0-9a-f]{96}$/.test(it.BLSKey) || typeof it.isOptedIn !== "boolean")
      fail(
        `get_validators?epoch=${epoch} slot ${slot} is ${JSON.stringify(it)}: expected {"BLSKey":"0x<48 bytes, lower-case hex>","isOptedIn":bool}`,
      );
    return { slot: BigInt(slot), blsKey: it.BLSKey, optedIn: it.isOptedIn };
  });
}

/** ValidatorOptInRouter.isValidatorOptedIn(key) at the L1 head. */
export async function isOptedInOnChain(target: Target, key: Hex): Promise<boolean> {
  if (!target.validatorOptInRouter) fail("the target names no validatorOptInRouter (the L1 opt-in registry)");
  return chainOf(target).l1.readContract({
    address: target.validatorOptInRouter as Address,
    abi: validatorOptInAbi,
    functionName: "isValidatorOptedIn",
    args: [key],
  });
}

/** The validator part of a scenario: the key it opted in, the slot and epoch it watches. */
export interface ValidatorPick {
  epoch: bigint;
  firstSlot: bigint;
  slot: bigint;
  key: Hex;
  optInTx?: Hex;
}

// ------------------------------------------------------------------------------------------- settlement chain

/** A key that sends transactions on one of the target's chains. */
export interface Sender {
  privateKey: Hex;
  address: Address;
  chain: "settlement" | "l1";
}

export function sender(privateKey: Hex, chain: Sender["chain"] = "settlement"): Sender {
  return { privateKey, address: privateKeyToAccount(privateKey).address, chain };
}

/** Sends one contract transaction (or a plain transfer) from `from` on the target's chain and waits for its receipt. */
export async function sendTx(
  target: Target,
  from: Sender,
  tx: { to: Address; abi?: readonly unknown[]; functionName?: string; args?: readonly unknown[]; value?: bigint },
  what: string,
): Promise<{ blockNumber: bigint; hash: Hex }> {
  const [rpcUrl, chainId] =
    from.chain === "settlement"
      ? [target.settlementRpcUrl, target.settlementChainId]
      : [target.l1RpcUrl, target.l1ChainId];
  const chain = defineChain({
    id: chainId,
    name: from.chain,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const account = privateKeyToAccount(from.privateKey);
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
  const pub = createPublicClient({ chain, transport: chainHttp(rpcUrl), cacheTime: 0 });
  try {
    const hash = tx.abi
      ? await wallet.writeContract({
          address: tx.to,
          abi: tx.abi as never,
          functionName: tx.functionName as never,
          args: (tx.args ?? []) as never,
          value: tx.value,
          gas: 500_000n,
        } as never)
      : await wallet.sendTransaction({ to: tx.to, value: tx.value });
    const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 20, timeout: 30_000 });
    if (receipt.status !== "success") fail(`${what} from ${account.address}: transaction ${hash} failed`);
    return { blockNumber: receipt.blockNumber, hash };
  } catch (e) {
    if (e instanceof NotificationCheckError) throw e;
    fail(`${what} from ${account.address} failed: ${(e as Error).message.split("\n")[0]}`);
  }
}

export async function sendSettlementTx(
  from: Sender,
  target: Target,
  functionName: "registerAndStake" | "unstake" | "delegateStake" | "stake",
  args: readonly unknown[] = [],
  value?: bigint,
): Promise<bigint> {
  const r = await sendTx(
    target,
    from,
    { to: target.contracts.providerRegistry as Address, abi: providerRegistryAbi, functionName, args, value },
    `ProviderRegistry.${functionName}`,
  );
  return r.blockNumber;
}

/** ProviderRegistry logs of one event for one provider since a settlement block, decoded. */
export async function registryEvents(
  target: Target,
  eventName: "FundsSlashed" | "FundsDeposited" | "ProviderRegistered" | "Unstake",
  provider: Address,
  fromBlock: bigint,
) {
  const client = chainOf(target).settlement;
  const raw = await client.getLogs({
    address: target.contracts.providerRegistry as Address,
    fromBlock,
    toBlock: "latest",
  });
  return parseEventLogs({ abi: providerRegistryAbi, logs: raw, eventName, strict: false }).filter(
    (l) => String((l.args as { provider?: string }).provider).toLowerCase() === provider.toLowerCase(),
  );
}

// ------------------------------------------------------------------------------------------- scenario state

export class NotificationScenario {
  readonly subscribers = new Map<string, Subscriber>();
  /** Subscriber count of each node (by address) before this scenario's first subscription to it. */
  readonly baselines = new Map<Address, number>();
  /** A count noted by a step ("the bidder's subscriber count is noted"). */
  readonly noted = new Map<Address, number>();
  /** 0-based devnet indices of provider nodes this scenario stopped and has not started again. */
  readonly stopped = new Set<number>();
  validator: ValidatorPick | undefined;
  /** Named accounts the scenario created (for `<N>` in expected values). */
  readonly accounts = new Map<string, { address: Address; privateKey: Hex }>();
  /** The first settlement-chain block after the scenario began (registry logs are looked up from here on). */
  settlementFrom: bigint | undefined;
  /** The last refused or answered Subscribe call made with a raw body. */
  lastCall:
    | { transport: "http" | "grpc"; status: number; text: string; contentType: string; stillOpen: boolean }
    | undefined;

  constructor(readonly world: ConformanceWorld) {}

  get target(): Target {
    return this.world.target;
  }

  /** Whether the control API reports the target's nodes' subscriber counts (capability sim-nodes). */
  get sim(): boolean {
    return this.world.has("sim-nodes") && !!this.target.controlUrl;
  }

  async subscribe(name: string, nodeText: string, topics: readonly string[]): Promise<Subscriber> {
    if (this.subscribers.has(name)) fail(`the scenario already has a subscriber "${name}"`);
    const node = nodeOf(this.target, nodeText);
    if (this.sim && !this.baselines.has(node.address))
      this.baselines.set(node.address, await subscriberCount(this.world, node.address));
    const s = await Subscriber.open(name, node.label, this.world.notifications(nodeText).subscribe(topics), topics);
    this.subscribers.set(name, s);
    return s;
  }

  subscriber(name: string): Subscriber {
    return (
      this.subscribers.get(name) ??
      fail(`the scenario has no subscriber "${name}" (known: ${[...this.subscribers.keys()].join(", ") || "none"})`)
    );
  }

  async markSettlementStart(): Promise<bigint> {
    if (this.settlementFrom === undefined)
      this.settlementFrom = (await chainOf(this.target).settlementBlockNumber()) + 1n;
    return this.settlementFrom;
  }

  /** Replaces `<provider N>`, `<the bidder>`, `<NAME>` (an account of the scenario), `<E>`, `<S>`, `<K>` in a value template. */
  substitute(template: string): string {
    return template.replace(/<([^<>]+)>/g, (whole, name: string) => {
      if (name === "the bidder" || /^provider \d+$/.test(name)) return nodeOf(this.target, name).address;
      const acc = this.accounts.get(name);
      if (acc) return acc.address;
      const v = this.validator;
      if (v && name === "E") return v.epoch.toString();
      if (v && name === "S") return v.slot.toString();
      if (v && name === "K") return v.key;
      fail(`unknown placeholder ${whole} in "${template}"`);
    });
  }

  controlUrl(): string {
    return this.world.control.baseUrl;
  }

  async providerNode(action: "stop" | "start", index: number): Promise<void> {
    await this.world.control.provider(index, action);
    if (action === "stop") this.stopped.add(index);
    else this.stopped.delete(index);
  }

  private readonly armed = new Set<"bidder" | Address>();

  async fault(node: "bidder" | Address, what: "store" | "open" | "none"): Promise<void> {
    await this.world.control.fault(node, what);
    if (what !== "none") this.armed.add(node);
  }

  async optIn(pick: ValidatorPick): Promise<void> {
    this.validator = pick;
    pick.optInTx = await sendRegistryCall(this.target, "optIn", pick.key);
  }

  /** Undoes what the scenario changed; returns what went wrong (reported by the After hook). */
  async teardown(): Promise<string[]> {
    const problems: string[] = [];
    for (const s of this.subscribers.values()) s.close();
    // A fault the scenario armed but never triggered (it failed early) must not fail a later scenario's transaction.
    for (const node of this.armed)
      await this.fault(node, "none").catch((e: Error) => problems.push(`disarming the fault on ${node}: ${e.message}`));
    for (const index of [...this.stopped]) {
      await this.providerNode("start", index).catch((e: Error) =>
        problems.push(`restarting provider node ${index}: ${e.message}`),
      );
    }
    if (this.validator?.optInTx)
      await this.optOut(this.validator).catch((e: Error) =>
        problems.push(`opting ${this.validator!.key} out again: ${e.message}`),
      );
    if (this.sim) {
      // Closed streams must leave the nodes: every later scenario counts on the count going back.
      for (const [address, before] of this.baselines) {
        await pollUntil(
          `the subscriber count of node ${address} back to ${before} after the scenario closed its streams`,
          async () => {
            const n = await subscriberCount(this.world, address);
            return n === before ? { ok: true, value: n } : { ok: false, seen: `${n} subscribers` };
          },
          5_000,
        ).catch((e: Error) => problems.push(e.message));
      }
    }
    return problems;
  }

  /** Opts the scenario's key out again (mining its opt-in first if it is still pending), and checks it is out. */
  private async optOut(v: ValidatorPick): Promise<void> {
    const l1 = chainOf(this.target).l1;
    const mined = await l1.getTransactionReceipt({ hash: v.optInTx! }).then(
      () => true,
      () => false,
    );
    if (!mined) await this.world.control.mine(1);
    if (!(await isOptedInOnChain(this.target, v.key))) return;
    await sendRegistryCall(this.target, "optOut", v.key);
    await this.world.control.mine(1);
    if (await isOptedInOnChain(this.target, v.key))
      fail(`${v.key} is still opted in after the opt-out transaction was mined`);
  }
}

export const notificationsOf = perScenario("notification scenario", (world) => new NotificationScenario(world));

/**
 * Sends an opt-in or opt-out of one key to the L1 registry from dev account 17 without waiting for it to be mined
 * (the L1 of a `sim-control` target mines when the scenario asks). Resolves with the transaction hash.
 */
async function sendRegistryCall(target: Target, fn: "optIn" | "optOut", key: Hex): Promise<Hex> {
  const chain = defineChain({
    id: target.l1ChainId,
    name: "l1",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [target.l1RpcUrl] } },
  });
  const wallet = createWalletClient({
    account: privateKeyToAccount(devAccount(OPT_IN_ACCOUNT).privateKey),
    chain,
    transport: http(target.l1RpcUrl),
  });
  try {
    return await wallet.writeContract({
      address: target.validatorOptInRouter as Address,
      abi: validatorOptInAbi,
      functionName: fn,
      args: [[key]],
      gas: 300_000n,
    });
  } catch (e) {
    fail(`${fn} of ${key} from dev account ${OPT_IN_ACCOUNT}: ${(e as Error).message.split("\n")[0]}`);
  }
}
