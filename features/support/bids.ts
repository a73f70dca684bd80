/**
 * Support for the bid → commitment features: per-scenario state (a fresh deposit window, the bids sent, the
 * provider applications attached), SendBid calls that record every stream line with its timing, placeholder
 * substitution for bid bodies written in the features, and the teardown that detaches every provider application
 * so that the next scenario starts with none.
 */
import { keccak256 } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { MevCommitError } from "../../lib/errors.ts";
import { chainOf, freshWindowsAhead } from "./chain.ts";
import type { MessageStream } from "./clients/api.ts";
import { amountOf, ProviderApplication, type ProviderPolicy, type ReceivedBid } from "./clients/providerApp.ts";
import { perScenario } from "./perScenario.ts";
import { BLOCKS_PER_WINDOW, firstBlockOf } from "./protocol.ts";
import { depositToEveryProvider } from "./providerDeposits.ts";
import type { Target } from "./target.ts";
import type { ConformanceWorld } from "./world.ts";

export { amountOf };

/** The SendBid Commitment (interface.md §2.2) as it appears on the wire: a `{"result":…}` line of the bid stream. */
export interface WireCommitment {
  txHashes: string[];
  bidAmount: string;
  blockNumber: string;
  receivedBidDigest: string;
  receivedBidSignature: string;
  commitmentDigest: string;
  commitmentSignature: string;
  providerAddress: string;
  decayStartTimestamp: string;
  decayEndTimestamp: string;
  dispatchTimestamp: string;
  revertingTxHashes: string[];
  slashAmount: string;
}

export class BidSuiteError extends MevCommitError {}

/** How long past the target's bid timeout a SendBid stream may run before the suite gives up on it. */
export const STREAM_SLACK_MS = 10_000;
/** How long a step waits for a provider application to see a bid before it fails. */
export const RECEIVE_WAIT_MS = Number(process.env.RECEIVE_WAIT_MS ?? 5_000);

/** A SendBid call as it ended: its stream, read to the end. */
export type BidOutcome = MessageStream;

/** A bid the scenario sent: its body (after substitution) and, once it ended, what came back. */
export interface SentBid {
  index: number;
  body: Record<string, unknown> | undefined;
  bodyText: string;
  stream: MessageStream;
  /** Resolves with the stream once it ended (fails when it ran past the bid timeout plus slack). */
  outcome: Promise<BidOutcome>;
  settled?: BidOutcome;
}

/** Ends a SendBid stream and resolves with it; one that runs past the bid timeout plus slack fails the step. */
export async function finished(stream: MessageStream, bidTimeoutMs: number): Promise<MessageStream> {
  const limit = bidTimeoutMs + STREAM_SLACK_MS;
  const deadline = performance.now() + limit;
  while (!stream.ended) {
    const left = deadline - performance.now();
    if (left <= 0) {
      stream.close();
      throw new BidSuiteError(
        `SendBid did not end within ${limit} ms (the target's bid timeout ${bidTimeoutMs} ms + ${STREAM_SLACK_MS} ms): ${stream.describe(600)}`,
      );
    }
    await stream.changed(left);
  }
  return stream;
}

// ------------------------------------------------------------------------------------------- scenario state

/** What one scenario of the bid features holds. */
export class BidScenario {
  window: bigint | undefined;
  /** Total the bidder holds in the window (the deposit answer: cumulative), wei. */
  deposit = 0n;
  readonly decayStart = BigInt(Date.now());
  readonly decayEnd = this.decayStart + 60_000n;
  readonly apps: { provider: number; app: ProviderApplication }[] = [];
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
    if (this.window === undefined) this.window = await allocateWindow(this.world);
    return firstBlockOf(this.window);
  }

  /**
   * Deposits `wei` for the bidder's bids on a fresh range of 10 L1 blocks (this scenario's `$BLOCK`s), the target's
   * protocol's way: v1.1 into the range's window; v1.2 toward every provider.
   */
  async depositForFreshBlocks(wei: bigint): Promise<void> {
    const window = await allocateWindow(this.world);
    if (this.target.rules.deposits === "provider") {
      await depositToEveryProvider(this.world, wei);
      this.window = window;
      this.deposit = wei;
      return;
    }
    const r = await this.world.bidder.deposit(wei, { windowNumber: window });
    if (r.error) throw new BidSuiteError(`deposit of ${wei} wei in window ${window}: ${r.describe()}`);
    const body = r.value as { amount?: string; windowNumber?: string | number };
    if (String(body?.windowNumber) !== String(window))
      throw new BidSuiteError(
        `deposit for window ${window} answered windowNumber ${JSON.stringify(body?.windowNumber)}: ${r.describe()}`,
      );
    if (!/^[0-9]+$/.test(String(body?.amount)))
      throw new BidSuiteError(`deposit answered amount ${JSON.stringify(body?.amount)}: ${r.describe()}`);
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
          ? await account.signTransaction({
              ...common,
              type: "eip1559",
              maxFeePerGas: 2_000_000_000n,
              maxPriorityFeePerGas: 1_000_000_000n,
            })
          : await account.signTransaction({ ...common, type: "legacy", gasPrice: 2_000_000_000n });
      this.raws.set(n, r);
    }
    return r;
  }

  /**
   * Replaces the placeholders of a body or an expected value:
   * `$BLOCK`, `$DECAY_START`, `$DECAY_END`, `$ALLOWANCE` (deposit / 10), each optionally `+N` / `-N`;
   * `$RAW_n` (a signed raw tx, 0x-prefixed), `$RAW_n_NO_0X` (the same, upper case without 0x), `$RAW_n_BARE`
   * (lower case without 0x),
   * `$HASH_OF_RAW_n` (keccak256 of it, lower case without 0x), `$DIGEST_OF_BID_n` (the bid digest of the
   * scenario's nth bid as its provider application received it, base64).
   */
  async substitute(text: string): Promise<string> {
    const re =
      /\$(BLOCK|DECAY_START|DECAY_END|ALLOWANCE)([+-]\d+)?|\$RAW_(\d+)(_NO_0X|_BARE)?|\$HASH_OF_RAW_(\d+)|\$DIGEST_OF_BID_(\d+)/g;
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
        parts.push(m[4] === "_NO_0X" ? r.slice(2).toUpperCase() : m[4] === "_BARE" ? r.slice(2).toLowerCase() : r);
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
    if (this.deposit === 0n)
      throw new BidSuiteError("$ALLOWANCE needs a deposit first (Given the bidder has … deposited in a fresh window)");
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
    const stream = this.world.bidder.sendBid(bodyText, { contentType });
    const outcome = finished(stream, this.target.bidTimeoutMs);
    const sent: SentBid = { index: this.bids.length + 1, body, bodyText, stream, outcome };
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
    const all = this.apps.flatMap((a) => a.app.received);
    const found = all.filter((r) => amountOf(r) === amount);
    if (found.length === 0) throw new BidSuiteError(`no provider application received bid ${n} (amount ${amount})`);
    return found[0]!;
  }

  async attach(provider: number, policy: ProviderPolicy, label?: string): Promise<ProviderApplication> {
    const count = this.appsOf(provider).length;
    const app = new ProviderApplication(
      label ?? `provider ${provider}'s application${count ? ` #${count + 1}` : ""}`,
      this.world.provider(provider),
      policy,
      this.bundlePoster(provider),
    );
    this.apps.push({ provider, app }); // before start: a scenario torn down while this step runs still stops it
    await app.start();
    return app;
  }

  /**
   * A real provider's application builds its blocks. On a devnet that controls blocks but does not run the target's
   * provider nodes (`sim-control` without `sim-nodes`, e.g. `--no-nodes` with another implementation's providers),
   * the application tells the devnet's builder the raw transactions it commits to, so that a block the provider
   * wins includes them (docs/conformance.md).
   */
  private bundlePoster(provider: number): ((bid: ReceivedBid) => Promise<void>) | undefined {
    const address = this.target.providerAddresses[provider - 1];
    if (!this.world.has("sim-control") || this.world.has("sim-nodes") || !address) return undefined;
    return async (bid) => {
      // A bid for a block already mined has nothing left to build ("late"): only future blocks need the bundle.
      if (bid.rawTransactions?.length)
        await this.world.control.bundle(address, bid.blockNumber, bid.rawTransactions, amountOf(bid));
    };
  }

  /** Provider nodes (0-based indices) this scenario stopped through the control API; teardown restarts them. */
  readonly stoppedProviders: number[] = [];

  /** Stops a provider node through the control API (`@sim-nodes` scenarios): it leaves the network. */
  async stopProvider(index: number): Promise<void> {
    await this.world.control.provider(index, "stop");
    this.stoppedProviders.push(index);
  }

  appsOf(provider: number): ProviderApplication[] {
    return this.apps.filter((a) => a.provider === provider).map((a) => a.app);
  }

  /** Stops every application and bid of the scenario; reports what the applications saw go wrong. */
  async teardown(): Promise<string[]> {
    for (const b of this.bids) b.stream.close();
    await Promise.allSettled(this.bids.map((b) => b.stream.done));
    await Promise.allSettled(this.apps.map((a) => a.app.stop()));
    const errors = this.apps.flatMap((a) => a.app.errors.map((e) => `${a.app.label}: ${e}`));
    if (this.apps.length) errors.push(...(await receiversGone(this.world)));
    for (const index of this.stoppedProviders.splice(0)) {
      await this.world.control
        .provider(index, "start")
        .catch((e: Error) => errors.push(`restarting provider node ${index}: ${e.message}`));
    }
    return errors;
  }
}

/** Anvil dev account 9: signs the raw transactions of the raw-transaction bids (never broadcast by the suite). */
const RAW_TX_KEY = "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6";

export const bidsOf = perScenario("bid scenario", (world) => new BidScenario(world));

// ------------------------------------------------------------------------------------------- fresh windows

/** A window no earlier scenario of this run used and in which the bidder holds nothing on chain. */
export async function allocateWindow(world: ConformanceWorld): Promise<bigint> {
  return freshWindowsAhead(chainOf(world.target), 1);
}

/**
 * Where the target reports its provider nodes' receivers (`sim-nodes`), waits until the nodes dropped the
 * receivers of the applications just stopped, so that the next scenario's first bid cannot go to one that is
 * leaving. Elsewhere the closed connection is the only signal.
 */
export async function receiversGone(world: ConformanceWorld, timeoutMs = 3_000): Promise<string[]> {
  if (!world.has("sim-nodes")) return [];
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const nodes = (await world.control.status()).nodes ?? [];
    const left = nodes.filter((n) => (n.receivers ?? 0) > 0);
    if (left.length === 0) return [];
    if (performance.now() > deadline)
      return [
        `provider node(s) ${left.map((n) => `${n.name} (${n.receivers} receivers)`).join(", ")} still hold receivers ${timeoutMs} ms after their applications left`,
      ];
    await new Promise((r) => setTimeout(r, 10));
  }
}
