/**
 * Support for the bid → commitment features: per-scenario state (a fresh deposit window, the bids sent, the
 * provider applications attached), a SendBid client that records every stream line with its timing, placeholder
 * substitution for bid bodies written in the features, and the After hook that detaches every provider application
 * so that the next scenario starts with none.
 */
import { perScenario } from "./perScenario.ts";
import { Before } from "@cucumber/cucumber";
import { createPublicClient, http, keccak256, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { call } from "../../scenarios/clients/http.ts";
import { ProviderAgent } from "../../scenarios/agents/providerAgent.ts";
import type { PolicyDecision, ProviderPolicy, ReceivedBid } from "../../scenarios/agents/policies.ts";
import { run } from "./run.ts";
import type { ConformanceWorld } from "./world.ts";
import type { Target } from "./target.ts";

export class BidSuiteError extends Error {
  override name = "BidSuiteError";
}

/** The bid timeout of the target (the suite's devnet runs with 5 s); BID_TIMEOUT_MS overrides it for other targets. */
export const BID_TIMEOUT_MS = Number(process.env.BID_TIMEOUT_MS ?? 5_000);
/** How long past the bid timeout a SendBid stream may run before the suite gives up on it. */
const STREAM_SLACK_MS = 10_000;
/** How long a step waits for a provider application to see a bid before it fails. */
export const RECEIVE_WAIT_MS = Number(process.env.RECEIVE_WAIT_MS ?? 5_000);

const BLOCKS_PER_WINDOW = 10n;
const windowOfBlock = (b: bigint) => (b - 1n) / BLOCKS_PER_WINDOW + 1n;

// ------------------------------------------------------------------------------------------- SendBid client

/** Everything the bidder node answered to one SendBid request. */
export interface BidOutcome {
  status: number;
  contentType: string;
  /** The whole body as received. */
  text: string;
  /** Non-blank lines of the body, parsed (a line that is not JSON is kept as `{ unparsable: line }`). */
  lines: unknown[];
  /** ms from sending the request to the first `{"result":…}` line, if any. */
  firstResultMs?: number;
  /** ms from sending the request to the end of the body. */
  endMs: number;
}

/** A bid the scenario sent: its body (after substitution) and, once it ended, what came back. */
export interface SentBid {
  index: number;
  body: Record<string, unknown> | undefined;
  bodyText: string;
  outcome: Promise<BidOutcome>;
  settled?: BidOutcome;
  controller: AbortController;
}

/** Sends one SendBid request and reads the stream to its end, timing the first commitment line. */
export async function sendBidRequest(bidderUrl: string, bodyText: string, contentType: string, signal: AbortSignal): Promise<BidOutcome> {
  try {
    return await readBid(bidderUrl, bodyText, contentType, signal);
  } catch (e) {
    throw signal.aborted && signal.reason instanceof Error ? signal.reason : e;
  }
}

async function readBid(bidderUrl: string, bodyText: string, contentType: string, signal: AbortSignal): Promise<BidOutcome> {
  const t0 = performance.now();
  const res = await fetch(`${bidderUrl}/v1/bidder/bid`, {
    method: "POST",
    body: bodyText,
    headers: { "content-type": contentType },
    signal,
  });
  const decoder = new TextDecoder();
  let text = "";
  let firstResultMs: number | undefined;
  const reader = res.body?.getReader();
  if (reader) {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
      if (firstResultMs === undefined && /^\s*\{"result"/m.test(text)) firstResultMs = performance.now() - t0;
    }
    text += decoder.decode();
  }
  const endMs = performance.now() - t0;
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .map((l) => {
      try {
        return JSON.parse(l) as unknown;
      } catch {
        return { unparsable: l };
      }
    });
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", text, lines, firstResultMs, endMs };
}

// ------------------------------------------------------------------------------------------- provider applications

/** A provider application attached to one provider node for one scenario, recording what it saw and chose. */
export class ProviderApp {
  readonly received: ReceivedBid[] = [];
  /** Dispatch timestamp chosen per bid digest (base64, as received), for accepted bids. */
  readonly chosenDispatch = new Map<string, bigint>();
  private waiters: (() => void)[] = [];
  readonly agent: ProviderAgent;

  constructor(
    readonly provider: number,
    readonly label: string,
    url: string,
    inner: ProviderPolicy,
  ) {
    const recording: ProviderPolicy = {
      name: inner.name,
      decide: async (bid: ReceivedBid): Promise<PolicyDecision> => {
        this.received.push(bid);
        for (const w of this.waiters.splice(0)) w();
        const d = await inner.decide(bid);
        if (d?.accept) this.chosenDispatch.set(bid.bidDigest, d.dispatchTimestamp);
        return d;
      },
    };
    this.agent = new ProviderAgent(url, recording);
  }

  /** Waits (event-driven, bounded) until the application has received at least `n` bids. */
  async waitForBids(n: number, timeoutMs = RECEIVE_WAIT_MS): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (this.received.length < n) {
      const left = deadline - performance.now();
      if (left <= 0)
        throw new BidSuiteError(`${this.label} received ${this.received.length} bid(s) within ${timeoutMs} ms, expected ${n}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }
}

// ------------------------------------------------------------------------------------------- scenario state

/** What one scenario of the bid features holds. */
export class BidScenario {
  window: bigint | undefined;
  /** Total the bidder holds in the window (the deposit answer: cumulative), wei. */
  deposit = 0n;
  readonly decayStart = BigInt(Date.now());
  readonly decayEnd = this.decayStart + 60_000n;
  readonly apps: ProviderApp[] = [];
  readonly bids: SentBid[] = [];
  /** The bid the "every commitment …" steps look at: the last one that ended, or the one a step named. */
  current: SentBid | undefined;
  private readonly raws = new Map<number, `0x${string}`>();

  constructor(readonly world: ConformanceWorld) {}

  get target(): Target {
    return this.world.target;
  }

  /** The first block of the scenario's window (allocating a fresh window, without a deposit, when none was). */
  async block(): Promise<bigint> {
    if (this.window === undefined) this.window = await allocateWindow(this.target);
    return (this.window - 1n) * BLOCKS_PER_WINDOW + 1n;
  }

  /** Deposits `wei` for the bidder in a fresh window; the window's blocks become this scenario's `$BLOCK`s. */
  async depositInFreshWindow(wei: bigint): Promise<void> {
    const window = await allocateWindow(this.target);
    const r = await call("POST", `${this.target.bidderUrl}/v1/bidder/deposit/${wei}?window_number=${window}`);
    if (r.status !== 200) throw new BidSuiteError(`deposit of ${wei} wei in window ${window} answered HTTP ${r.status}: ${r.text}`);
    const body = r.json as { amount?: string; windowNumber?: string | number };
    if (String(body?.windowNumber) !== String(window))
      throw new BidSuiteError(`deposit for window ${window} answered windowNumber ${JSON.stringify(body?.windowNumber)}: ${r.text}`);
    if (!/^[0-9]+$/.test(String(body?.amount))) throw new BidSuiteError(`deposit answered amount ${JSON.stringify(body?.amount)}: ${r.text}`);
    const total = BigInt(body.amount!);
    if (total < wei) throw new BidSuiteError(`deposit of ${wei} wei in window ${window} answered a total of ${total}`);
    this.window = window;
    this.deposit = total;
  }

  /** A signed raw transaction (nth of the scenario): odd n EIP-1559, even n legacy; `0x`-prefixed, lower case. */
  async raw(n: number): Promise<`0x${string}`> {
    let r = this.raws.get(n);
    if (!r) {
      const account = privateKeyToAccount(RAW_TX_KEY);
      const common = {
        chainId: this.target.l1ChainId,
        to: "0x000000000000000000000000000000000000dEaD",
        value: BigInt(n),
        nonce: 1_000_000 + n,
        gas: 21_000n,
      } as const;
      r =
        n % 2 === 1
          ? await account.signTransaction({ ...common, type: "eip1559", maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n })
          : await account.signTransaction({ ...common, type: "legacy", gasPrice: 2_000_000_000n });
      this.raws.set(n, r);
    }
    return r;
  }

  /**
   * Replaces the placeholders of a body or an expected value:
   * `$BLOCK`, `$DECAY_START`, `$DECAY_END`, `$ALLOWANCE` (deposit / 10), each optionally `+N` / `-N`;
   * `$RAW_n` (a signed raw tx, 0x-prefixed), `$RAW_n_NO_0X` (the same, upper case without 0x),
   * `$HASH_OF_RAW_n` (keccak256 of it, lower case without 0x), `$DIGEST_OF_BID_n` (the bid digest of the
   * scenario's nth bid as its provider application received it, base64).
   */
  async substitute(text: string): Promise<string> {
    const re = /\$(BLOCK|DECAY_START|DECAY_END|ALLOWANCE)([+-]\d+)?|\$RAW_(\d+)(_NO_0X)?|\$HASH_OF_RAW_(\d+)|\$DIGEST_OF_BID_(\d+)/g;
    const parts: string[] = [];
    let last = 0;
    for (const m of text.matchAll(re)) {
      parts.push(text.slice(last, m.index));
      last = m.index! + m[0].length;
      if (m[1]) {
        const base =
          m[1] === "BLOCK"
            ? await this.block()
            : m[1] === "DECAY_START"
              ? this.decayStart
              : m[1] === "DECAY_END"
                ? this.decayEnd
                : this.allowance();
        parts.push((base + BigInt(m[2] ?? "0")).toString());
      } else if (m[3]) {
        const r = await this.raw(Number(m[3]));
        parts.push(m[4] ? r.slice(2).toUpperCase() : r);
      } else if (m[5]) {
        parts.push(keccak256(await this.raw(Number(m[5]))).slice(2));
      } else if (m[6]) {
        parts.push(this.receivedBid(Number(m[6])).bidDigest);
      }
    }
    parts.push(text.slice(last));
    return parts.join("");
  }

  allowance(): bigint {
    if (this.deposit === 0n) throw new BidSuiteError("$ALLOWANCE needs a deposit first (Given the bidder has … deposited in a fresh window)");
    return this.deposit / BLOCKS_PER_WINDOW;
  }

  /** Sends a bid; the returned record's outcome resolves when the stream ends. */
  send(bodyText: string, contentType = "application/json"): SentBid {
    let body: Record<string, unknown> | undefined;
    try {
      body = JSON.parse(bodyText) as Record<string, unknown>;
    } catch {
      body = undefined;
    }
    const controller = new AbortController();
    // A stream that never ends fails its step with a clear message instead of hitting the step timeout.
    const limit = BID_TIMEOUT_MS + STREAM_SLACK_MS;
    const timer = setTimeout(() => controller.abort(new BidSuiteError(`SendBid did not end within ${limit} ms (bid timeout ${BID_TIMEOUT_MS} ms + ${STREAM_SLACK_MS} ms)`)), limit);
    const outcome = sendBidRequest(this.target.bidderUrl, bodyText, contentType, controller.signal).finally(() => clearTimeout(timer));
    const sent: SentBid = { index: this.bids.length + 1, body, bodyText, outcome, controller };
    outcome.then((o) => (sent.settled = o)).catch(() => {});
    this.bids.push(sent);
    return sent;
  }

  bid(n: number): SentBid {
    const b = this.bids[n - 1];
    if (!b) throw new BidSuiteError(`the scenario sent ${this.bids.length} bid(s); there is no bid ${n}`);
    return b;
  }

  /** The bid the nth sent bid became at the provider applications (matched by amount, which steps keep unique). */
  receivedBid(n: number): ReceivedBid {
    const amount = String(this.bid(n).body?.amount);
    const all = this.apps.flatMap((a) => a.received);
    const found = all.filter((r) => amountOf(r) === amount);
    if (found.length === 0) throw new BidSuiteError(`no provider application received bid ${n} (amount ${amount})`);
    return found[0]!;
  }

  async attach(provider: number, policy: ProviderPolicy, label?: string): Promise<ProviderApp> {
    const url = this.world.nodeUrl(`provider ${provider}`);
    const count = this.apps.filter((a) => a.provider === provider).length;
    const app = new ProviderApp(provider, label ?? `provider ${provider}'s application${count ? ` #${count + 1}` : ""}`, url, policy);
    this.apps.push(app); // before start: a scenario torn down while this step runs still stops it
    await app.agent.start();
    return app;
  }

  /** Provider nodes (0-based devnet indices) this scenario stopped through the control API; teardown restarts them. */
  readonly stoppedProviders: number[] = [];

  /** Stops a provider node through the devnet control API (`@sim` scenarios): it leaves the network. */
  async stopProvider(index: number): Promise<void> {
    const r = await call("POST", `${this.controlUrl()}/sim/v1/providers/${index}/stop`);
    if (r.status !== 200) throw new BidSuiteError(`stopping provider node ${index} answered HTTP ${r.status}: ${r.text}`);
    this.stoppedProviders.push(index);
  }

  private controlUrl(): string {
    const url = this.target.controlUrl;
    if (!url) throw new BidSuiteError("this target has no control API (tag the scenario @sim)");
    return url;
  }

  appsOf(provider: number): ProviderApp[] {
    return this.apps.filter((a) => a.provider === provider);
  }

  /** Stops every application and bid of the scenario; reports what the applications saw go wrong. */
  async teardown(): Promise<string[]> {
    for (const b of this.bids) if (!b.settled) b.controller.abort();
    await Promise.allSettled(this.bids.map((b) => b.outcome));
    await Promise.allSettled(this.apps.map((a) => a.agent.stop()));
    await waitForNoReceivers();
    const errors = this.apps.flatMap((a) => a.agent.errors.map((e) => `${a.label}: ${e}`));
    for (const index of this.stoppedProviders.splice(0)) {
      const r = await call("POST", `${this.controlUrl()}/sim/v1/providers/${index}/start`);
      if (r.status !== 200) errors.push(`restarting provider node ${index} answered HTTP ${r.status}: ${r.text}`);
    }
    return errors;
  }
}

/** A ReceiveBids entry's amount: `bidAmount` (upstream) or `amount` (the interface's name). */
export function amountOf(r: ReceivedBid): string {
  return String((r as ReceivedBid & { amount?: string }).bidAmount ?? (r as { amount?: string }).amount);
}

/** Anvil dev account 9: signs the raw transactions of the raw-transaction bids (never broadcast by the suite). */
const RAW_TX_KEY = "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6";

export const bidsOf = perScenario("bid scenario", (world) => new BidScenario(world));

// ------------------------------------------------------------------------------------------- fresh windows

let l1: { url: string; client: PublicClient } | undefined;
let lastWindow = 0n;

/** How far ahead of the L1 head's window the suite's windows start (clear of the current and next windows). */
const WINDOW_LEAD = 3n;

/** A window no earlier scenario of this run used: ahead of the L1 head's window and after every one handed out. */
export async function allocateWindow(target: Target): Promise<bigint> {
  if (l1?.url !== target.l1RpcUrl) l1 = { url: target.l1RpcUrl, client: createPublicClient({ transport: http(target.l1RpcUrl) }) };
  const head = await l1.client.getBlockNumber({ cacheTime: 0 });
  const ahead = windowOfBlock(head + 1n) + WINDOW_LEAD;
  lastWindow = ahead > lastWindow ? ahead : lastWindow + 1n;
  return lastWindow;
}

// ------------------------------------------------------------------------------------------- hooks

/**
 * On the suite's own devnet, detaching a provider application is only done when the provider node has dropped
 * its receiver; otherwise the next scenario's first bid could be handed to a receiver that is going away.
 * (A remote target gives no such signal; its receivers go when the connection closes.)
 */
async function waitForNoReceivers(timeoutMs = 2_000): Promise<void> {
  const devnet = run().devnet;
  if (!devnet) return;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const left = devnet.providers.map((p, i) => [i + 1, p.dispatcher.activeReceivers] as const).filter(([, n]) => n > 0);
    if (left.length === 0) return;
    if (performance.now() > deadline)
      throw new BidSuiteError(`provider node(s) ${left.map(([i, n]) => `${i} (${n} receivers)`).join(", ")} still hold receivers ${timeoutMs} ms after their applications left`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

Before({ tags: "@bids" }, async function (this: ConformanceWorld) {
  // A receiver left attached by an earlier scenario (of any feature) would take bids meant for this one.
  await waitForNoReceivers();
});

