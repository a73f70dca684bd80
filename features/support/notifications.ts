/**
 * Support for notifications.feature (interface.md §2.8, §4.2, §6; api-behaviour §1.2, §5): Subscribe streams read
 * in the background and inspected line by line, the triggers of each topic (provider nodes leaving and joining,
 * validator opt-ins on the L1 registry, registry transactions on the settlement chain, failed store and open
 * transactions), exact value comparison, and the teardown that undoes what a scenario changed (subscribers closed
 * and checked gone, provider nodes restarted, validator keys opted out).
 *
 * Waiting is always on an event or a polled state with a deadline; nothing sleeps for a fixed time.
 */
import { perScenario } from "./perScenario.ts";
import { getAddress, parseEventLogs, type Address, type Hex } from "viem";
import { devAccount } from "../../node/chain/accounts.ts";
import { chainClients, localChain, type ChainClients } from "../../node/chain/clients.ts";
import { providerRegistryAbi, validatorOptInRouterAbi } from "../../node/chain/contracts.ts";
import { transact } from "../../node/chain/transact.ts";
import { optInValidators, optOutValidators } from "../../node/validators/optInRegistry.ts";
import { call } from "../../scenarios/clients/http.ts";
import { chainOf } from "./chain.ts";
import type { Target } from "./target.ts";
import type { ConformanceWorld } from "./world.ts";

export class NotificationCheckError extends Error {
  override name = "NotificationCheckError";
}

export function fail(message: string): never {
  throw new NotificationCheckError(message);
}

/** How long a notification may take to arrive after its trigger. */
export const NOTIFY_WAIT_MS = Number(process.env.NOTIFY_WAIT_MS ?? 10_000);
/** How long a Subscribe call may take to answer its status line (the reference sends headers at once). */
export const STREAM_OPEN_MS = Number(process.env.STREAM_OPEN_MS ?? 3_000);
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
    for (const k of Object.keys(a)) if (!(k in e)) out.push(`${path}.${k} = ${JSON.stringify(a[k])} is not a field of this topic's value`);
    return out;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) return [`${path} has ${actual.length} entries, expected ${expected.length}: ${JSON.stringify(actual).slice(0, 300)}`];
    return expected.flatMap((x, i) => jsonDiff(x, actual[i], `${path}[${i}]`));
  }
  const kind = (x: unknown) => (x === null ? "null" : Array.isArray(x) ? "array" : typeof x);
  return [`${path} = ${JSON.stringify(actual)} (${kind(actual)}), expected ${JSON.stringify(expected)} (${kind(expected)})`];
}

// ------------------------------------------------------------------------------------------- Subscribe streams

export interface Notification {
  topic: string;
  value: Record<string, unknown>;
}

/** One Subscribe stream, read in the background: every line is kept, parsed and checked for the envelope. */
export class Subscriber {
  /** Notifications in arrival order. */
  readonly notifications: Notification[] = [];
  /** Lines that are not `{"result":{"topic","value"}}` (error lines, malformed JSON, extra fields). */
  readonly badLines: string[] = [];
  /** Text received before the first non-blank line (the reference opens with one "\n"). */
  prelude = "";
  ended = false;
  endReason = "";
  private buffer = "";
  private waiters: (() => void)[] = [];
  private closedByUs = false;

  private constructor(
    readonly name: string,
    readonly node: string,
    readonly topics: readonly string[],
    readonly status: number,
    readonly contentType: string,
    private readonly controller: AbortController,
    reader: ReadableStreamDefaultReader<Uint8Array>,
  ) {
    void this.pump(reader);
  }

  /**
   * Opens `POST {url}/v1/subscribe` for `topics`; fails unless HTTP 200 arrives within STREAM_OPEN_MS (a node that
   * holds its headers back until the first event never opens here: docs/divergences.md, "Stream start").
   */
  static async open(name: string, node: string, url: string, topics: readonly string[]): Promise<Subscriber> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error("no response head")), STREAM_OPEN_MS);
    let res: Response;
    try {
      res = await fetch(`${url}/v1/subscribe`, {
        method: "POST",
        body: JSON.stringify({ topics }),
        headers: { "content-type": "application/json" },
        signal: controller.signal,
      });
    } catch (e) {
      controller.abort();
      fail(
        `subscriber "${name}": POST ${url}/v1/subscribe ${JSON.stringify({ topics })} gave no status line within ${STREAM_OPEN_MS} ms ` +
          `(${(e as Error).message}); a Subscribe stream must send its headers when it opens, before any event`,
      );
    } finally {
      clearTimeout(timer);
    }
    if (res.status !== 200) {
      const text = await res.text().catch(() => "");
      fail(`subscriber "${name}": POST ${url}/v1/subscribe ${JSON.stringify({ topics })} answered HTTP ${res.status}: ${text.slice(0, 400)}`);
    }
    if (!res.body) fail(`subscriber "${name}": HTTP 200 without a body`);
    return new Subscriber(name, node, topics, res.status, res.headers.get("content-type") ?? "", controller, res.body.getReader() as ReadableStreamDefaultReader<Uint8Array>);
  }

  private async pump(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        this.take(decoder.decode(chunk.value, { stream: true }));
      }
      this.take(decoder.decode());
      if (this.buffer.trim()) this.line(this.buffer.trim());
      this.endReason = "the node ended the stream";
    } catch (e) {
      this.endReason = this.closedByUs ? "closed by the scenario" : `the stream broke: ${(e as Error).message}`;
    }
    this.ended = true;
    this.wake();
  }

  private take(text: string): void {
    this.buffer += text;
    for (let nl = this.buffer.indexOf("\n"); nl >= 0; nl = this.buffer.indexOf("\n")) {
      const raw = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      if (raw.trim() === "") {
        if (this.notifications.length === 0 && this.badLines.length === 0) this.prelude += raw + "\n";
        continue;
      }
      this.line(raw.trim());
    }
  }

  private line(raw: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      this.badLines.push(`not JSON: ${raw.slice(0, 300)}`);
      this.wake();
      return;
    }
    const p = parsed as { result?: { topic?: unknown; value?: unknown } };
    const keys = (o: unknown) => (o && typeof o === "object" ? Object.keys(o).sort().join(",") : "");
    const value = p?.result?.value;
    const wellFormed =
      keys(p) === "result" && keys(p.result) === "topic,value" && typeof p.result!.topic === "string" && !!value && typeof value === "object" && !Array.isArray(value);
    if (!wellFormed) {
      this.badLines.push(raw.slice(0, 500));
    } else {
      this.notifications.push({ topic: p.result!.topic as string, value: p.result!.value as Record<string, unknown> });
    }
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** What the subscriber received so far, for failure messages. */
  describe(): string {
    const list = this.notifications.map((n, i) => `  #${i + 1} ${n.topic} ${canonical(n.value)}`).join("\n") || "  (no notification)";
    const bad = this.badLines.length ? `\n  other lines: ${this.badLines.join(" | ")}` : "";
    const end = this.ended ? `\n  stream ended: ${this.endReason}` : "";
    return `subscriber "${this.name}" (${this.node}, topics ${this.topics.join(", ")}) received:\n${list}${bad}${end}`;
  }

  /**
   * Waits (event-driven, bounded) for the first notification at index ≥ `from` that `pick` selects. Fails at once
   * when the stream carries an error or a malformed line, or ends.
   */
  async waitFor(what: string, pick: (n: Notification) => boolean, timeoutMs = NOTIFY_WAIT_MS, from = 0): Promise<{ n: Notification; index: number }> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const index = this.notifications.findIndex((n, i) => i >= from && pick(n));
      if (index >= 0) return { n: this.notifications[index]!, index };
      if (this.badLines.length) fail(`while waiting for ${what}: the stream carried lines that are not notifications.\n${this.describe()}`);
      if (this.ended) fail(`while waiting for ${what}: ${this.endReason}.\n${this.describe()}`);
      const left = deadline - performance.now();
      if (left <= 0) fail(`${what} did not arrive within ${timeoutMs} ms.\n${this.describe()}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  close(): void {
    if (this.ended) return;
    this.closedByUs = true;
    this.controller.abort();
  }
}

// ------------------------------------------------------------------------------------------- the nodes

/** "the bidder" / "bidder" / "provider N" → the node's label, URL and address on the target. */
export function nodeOf(target: Target, text: string): { label: string; url: string; address: Address } {
  if (text === "the bidder" || text === "bidder") return { label: "the bidder", url: target.bidderUrl, address: getAddress(target.bidderAddress) };
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
  const status = await world.control.status();
  const node = status.nodes.find((n) => n.address.toLowerCase() === address.toLowerCase());
  if (!node) fail(`/sim/v1/status lists no node with address ${address}: ${JSON.stringify(status.nodes)}`);
  if (typeof node.subscribers !== "number") fail(`/sim/v1/status gives node ${node.name} no subscriber count: ${JSON.stringify(node)}`);
  return node.subscribers;
}

/** Polls `probe` until it holds, or fails after `timeoutMs` with what it saw last. */
export async function pollUntil<T>(what: string, probe: () => Promise<{ ok: true; value: T } | { ok: false; seen: string }>, timeoutMs = NOTIFY_WAIT_MS): Promise<T> {
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
export async function getValidators(url: string, epoch: bigint): Promise<SlotDuty[]> {
  const r = await call("GET", `${url}/v1/validator/get_validators?epoch=${epoch}`);
  if (r.status !== 200) fail(`GET ${url}/v1/validator/get_validators?epoch=${epoch} answered HTTP ${r.status}: ${r.text.slice(0, 400)}`);
  const items = (r.json as { items?: Record<string, { BLSKey?: unknown; isOptedIn?: unknown }> })?.items;
  if (!items || typeof items !== "object") fail(`get_validators?epoch=${epoch} answered no items map: ${r.text.slice(0, 400)}`);
  const first = epoch * SLOTS_PER_EPOCH;
  const want = Array.from({ length: Number(SLOTS_PER_EPOCH) }, (_, i) => (first + BigInt(i)).toString());
  if (Object.keys(items).join(",") !== want.join(","))
    fail(`get_validators?epoch=${epoch} lists slots ${Object.keys(items).join(",")}, expected ${want[0]}…${want.at(-1)} ascending`);
  return want.map((slot) => {
    const it = items[slot]!;
    if (typeof it.BLSKey !== "string" || !/^0x[0-9a-f]{96}$/.test(it.BLSKey) || typeof it.isOptedIn !== "boolean")
      fail(`get_validators?epoch=${epoch} slot ${slot} is ${JSON.stringify(it)}: expected {"BLSKey":"0x<48 bytes, lower-case hex>","isOptedIn":bool}`);
    return { slot: BigInt(slot), blsKey: it.BLSKey, optedIn: it.isOptedIn };
  });
}

/** ValidatorOptInRouter.isValidatorOptedIn(key) at the L1 head. */
export async function isOptedInOnChain(target: Target, key: Hex): Promise<boolean> {
  if (!target.validatorOptInRouter) fail("the target names no validatorOptInRouter (the L1 opt-in registry)");
  return chainOf(target).l1.readContract({
    address: target.validatorOptInRouter as Address,
    abi: validatorOptInRouterAbi,
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

/** Clients of a dev account (or any key) on the target's settlement chain, for registry transactions. */
export function settlementClients(target: Target, privateKey: Hex): ChainClients {
  return chainClients(localChain(target.settlementChainId, target.settlementRpcUrl, "settlement"), privateKey);
}

export async function sendSettlementTx(
  c: ChainClients,
  target: Target,
  functionName: "registerAndStake" | "unstake" | "delegateStake" | "stake",
  args: readonly unknown[] = [],
  value?: bigint,
): Promise<bigint> {
  const receipt = await transact(
    c,
    { address: target.contracts.providerRegistry as Address, abi: providerRegistryAbi, functionName, args, value, gas: 500_000n },
    `ProviderRegistry.${functionName}`,
  ).catch((e: Error) => fail(`ProviderRegistry.${functionName} from ${c.account.address} failed: ${e.message}`));
  return receipt.blockNumber;
}

/** ProviderRegistry logs of one event for one provider since a settlement block, decoded. */
export async function registryEvents(target: Target, eventName: "FundsSlashed" | "FundsDeposited" | "ProviderRegistered" | "Unstake", provider: Address, fromBlock: bigint) {
  const client = chainOf(target).settlement;
  const raw = await client.getLogs({ address: target.contracts.providerRegistry as Address, fromBlock, toBlock: "latest" });
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
  /** Settlement-chain head when the scenario began (registry logs are looked up from here on). */
  settlementFrom: bigint | undefined;
  /** The last refused or answered Subscribe call made with a raw body. */
  lastCall: { status: number; text: string; contentType: string; stillOpen: boolean } | undefined;

  constructor(readonly world: ConformanceWorld) {}

  get target(): Target {
    return this.world.target;
  }

  get sim(): boolean {
    return this.target.capabilities.includes("sim-control") && !!this.target.controlUrl;
  }

  async subscribe(name: string, nodeText: string, topics: readonly string[]): Promise<Subscriber> {
    if (this.subscribers.has(name)) fail(`the scenario already has a subscriber "${name}"`);
    const node = nodeOf(this.target, nodeText);
    if (this.sim && !this.baselines.has(node.address)) this.baselines.set(node.address, await subscriberCount(this.world, node.address));
    const s = await Subscriber.open(name, node.label, node.url, topics);
    this.subscribers.set(name, s);
    return s;
  }

  subscriber(name: string): Subscriber {
    return this.subscribers.get(name) ?? fail(`the scenario has no subscriber "${name}" (known: ${[...this.subscribers.keys()].join(", ") || "none"})`);
  }

  async markSettlementStart(): Promise<bigint> {
    if (this.settlementFrom === undefined) this.settlementFrom = await chainOf(this.target).settlementBlockNumber();
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
    const url = `${this.controlUrl()}/sim/v1/providers/${index}/${action}`;
    const r = await call("POST", url);
    if (r.status !== 200) fail(`POST ${url} answered HTTP ${r.status}: ${r.text}`);
    if (action === "stop") this.stopped.add(index);
    else this.stopped.delete(index);
  }

  private readonly armed = new Set<"bidder" | Address>();

  async fault(node: "bidder" | Address, what: "store" | "open" | "none"): Promise<void> {
    const url = `${this.controlUrl()}/sim/v1/faults`;
    const r = await call("POST", url, { body: { node, fail: what } });
    if (r.status !== 200) fail(`POST ${url} ${JSON.stringify({ node, fail: what })} answered HTTP ${r.status}: ${r.text}`);
    if (what !== "none") this.armed.add(node);
  }

  async optIn(pick: ValidatorPick): Promise<void> {
    this.validator = pick;
    pick.optInTx = await optInValidators({
      rpcUrl: this.target.l1RpcUrl,
      registry: this.target.validatorOptInRouter as Address,
      privateKey: devAccount(OPT_IN_ACCOUNT).privateKey,
      keys: [pick.key],
    }).catch((e: Error) => fail(`opting ${pick.key} in from dev account ${OPT_IN_ACCOUNT}: ${e.message}`));
  }

  /** Undoes what the scenario changed; returns what went wrong (reported by the After hook). */
  async teardown(): Promise<string[]> {
    const problems: string[] = [];
    for (const s of this.subscribers.values()) s.close();
    // A fault the scenario armed but never triggered (it failed early) must not fail a later scenario's transaction.
    for (const node of this.armed) await this.fault(node, "none").catch((e: Error) => problems.push(`disarming the fault on ${node}: ${e.message}`));
    for (const index of [...this.stopped]) {
      await this.providerNode("start", index).catch((e: Error) => problems.push(`restarting provider node ${index}: ${e.message}`));
    }
    if (this.validator?.optInTx) await this.optOut(this.validator).catch((e: Error) => problems.push(`opting ${this.validator!.key} out again: ${e.message}`));
    if (this.sim) {
      // Closed streams must leave the nodes: every later scenario counts on the count going back.
      for (const [address, before] of this.baselines) {
        await pollUntil(`the subscriber count of node ${address} back to ${before} after the scenario closed its streams`, async () => {
          const n = await subscriberCount(this.world, address);
          return n === before ? { ok: true, value: n } : { ok: false, seen: `${n} subscribers` };
        }, 5_000).catch((e: Error) => problems.push(e.message));
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
    await optOutValidators({
      rpcUrl: this.target.l1RpcUrl,
      registry: this.target.validatorOptInRouter as Address,
      privateKey: devAccount(OPT_IN_ACCOUNT).privateKey,
      keys: [v.key],
    });
    await this.world.control.mine(1);
    if (await isOptedInOnChain(this.target, v.key)) fail(`${v.key} is still opted in after the opt-out transaction was mined`);
  }
}

export const notificationsOf = perScenario("notification scenario", (world) => new NotificationScenario(world));
