/**
 * Support for features/concurrency.feature: one bidder keeping N bids in flight at once, provider applications that
 * answer a whole round of bids together (shuffled, one request each or all in one request), and the checks that every
 * bid got exactly its own commitments (the bid digest its provider was shown, amounts, hashes, signatures, dispatch
 * times), that each
 * application saw each bid once, and that the queries list every bid apart.
 *
 * Verdicts do not rest on timing: a round's bids are all sent before any is answered (each application holds its
 * decisions until the round's bids have all reached it, or until half the decision timeout has passed, at most 2 s),
 * so the bids overlap at the provider nodes on every run; a bid that got its commitments slowly still passes, and the
 * target's bid timeout bounds every wait (bids.ts `finished`).
 */
import { keccak256, recoverAddress, stringToHex } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { type BidScenario, bidsOf, type SentBid, type WireCommitment } from "./bids.ts";
import type { ProviderApi } from "./clients/api.ts";
import {
  decisionDelivered,
  type PolicyDecision,
  type ProviderApplication,
  type ProviderPolicy,
  type ReceivedBid,
} from "./clients/providerApp.ts";
import { perScenario } from "./perScenario.ts";
import { settlementOf } from "./settlement.ts";
import type { ConformanceWorld } from "./world.ts";

export class ConcurrencySuiteError extends MevCommitError {}

/** Hex as the checks compare it: lower case, no 0x (the wire's spelling is judged by bidding.feature). */
export const bare = (h: string): string => String(h).toLowerCase().replace(/^0x/, "");
const base64ToHex = (b64: string) => Buffer.from(b64, "base64").toString("hex");

/** Which bids a provider application accepts. */
export type Acceptance = "every bid" | "every second bid" | "no bid";

/** "every second bid": the bids whose first transaction hash ends in an even hex digit. */
export function accepts(acceptance: Acceptance, txHashes: readonly string[]): boolean {
  if (acceptance === "every bid") return true;
  if (acceptance === "no bid") return false;
  const last = bare(txHashes[0] ?? "").at(-1) ?? "0";
  return Number.parseInt(last, 16) % 2 === 0;
}

/** How the decisions of a round go back to the provider node. */
export type Framing = "one request per decision" | "one request for the round";

/**
 * A provider application's policy that decides a round of bids together: it holds every bid until the round's
 * bids have all arrived (or `holdMs` passed since the first), then decides them in shuffled order, each with a
 * dispatch time of its own. With "one request for the round" it sends the round's decisions itself, as one
 * SendProcessedBids request (newline-separated), and tells the application to send nothing.
 */
export class RoundPolicy implements ProviderPolicy {
  readonly name: string;
  /** The decision chosen per bid digest (base64, as received). */
  readonly decided = new Map<string, { accept: boolean; dispatchTimestamp: bigint }>();
  readonly errors: string[] = [];
  private held: { bid: ReceivedBid; resolve: (d: PolicyDecision) => void }[] = [];
  private expected = 1;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private sequence = 0n;
  private readonly sent: Promise<void>[] = [];

  constructor(
    public acceptance: Acceptance,
    readonly framing: Framing,
    private readonly holdMs: number,
    private readonly api: ProviderApi,
  ) {
    this.name = `round of ${acceptance}, ${framing}`;
  }

  /** The next round has `n` bids for this policy's applications. */
  expectRound(n: number): void {
    this.expected = n;
  }

  decide(bid: ReceivedBid): Promise<PolicyDecision> {
    return new Promise((resolve) => {
      this.held.push({ bid, resolve });
      // Released on a later turn, so that every held decision's caller waits on it when the order is chosen.
      if (this.held.length >= this.expected) {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.release(), 0);
      } else if (this.held.length === 1) this.timer = setTimeout(() => this.release(), this.holdMs);
    });
  }

  /** Waits for the round requests this policy sent itself. */
  async idle(): Promise<void> {
    await Promise.allSettled(this.sent);
  }

  private release(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const round = shuffled(this.held.splice(0));
    const now = BigInt(Date.now());
    const lines: string[] = [];
    for (const { bid, resolve } of round) {
      const accept = accepts(this.acceptance, bid.txHashes ?? []);
      // A dispatch time of its own per bid: a commitment carrying another bid's decision shows.
      const d = accept
        ? { accept: true as const, dispatchTimestamp: now + this.sequence++ }
        : { accept: false as const };
      this.decided.set(bid.bidDigest, { accept, dispatchTimestamp: accept ? d.dispatchTimestamp! : 0n });
      if (this.framing === "one request per decision") {
        resolve(d);
        continue;
      }
      resolve(undefined);
      lines.push(
        JSON.stringify(
          d.accept
            ? { bidDigest: bid.bidDigest, status: "STATUS_ACCEPTED", dispatchTimestamp: d.dispatchTimestamp.toString() }
            : { bidDigest: bid.bidDigest, status: "STATUS_REJECTED" },
        ),
      );
    }
    if (lines.length) this.sent.push(this.sendRound(`${lines.join("\n")}\n`, lines.length));
  }

  private async sendRound(body: string, n: number): Promise<void> {
    try {
      const r = await this.api.sendProcessedBids(body);
      // Upstream's "EOF" after applying the decisions counts as delivered, over HTTP (500) and gRPC (code 2) alike.
      const delivered = decisionDelivered(r.http?.status ?? (r.error ? 500 : 200), r.http?.json ?? r.error);
      if (r.error && !delivered) this.errors.push(`send_processed_bids with ${n} decisions: ${r.describe()}`);
    } catch (e) {
      if (!String((e as Error).message).includes("scenario ended"))
        this.errors.push(`send_processed_bids with ${n} decisions: ${(e as Error).message}`);
    }
  }
}

function shuffled<T>(items: T[]): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  // Never the arrival order itself when it can be helped: reverse a shuffle that left it as it was.
  return a.length > 1 && a.every((x, i) => x === items[i]) ? a.reverse() : a;
}

/** A bid of the concurrency scenario: its body, its unique transaction hash and its SendBid call. */
export interface ConcurrentBid {
  index: number;
  body: {
    txHashes: string[];
    amount: string;
    blockNumber: string;
    decayStartTimestamp: string;
    decayEndTimestamp: string;
  };
  sent: SentBid;
}

/** One provider application of the scenario with the policy that decides for it. */
export interface RoundApplication {
  provider: number;
  app: ProviderApplication;
  policy: RoundPolicy;
}

export class ConcurrencyScenario {
  readonly apps: RoundApplication[] = [];
  /** Policies shared by several applications of one provider, by provider. */
  private readonly shared = new Map<number, RoundPolicy>();
  readonly bids: ConcurrentBid[] = [];
  /** The in-flight level the last bids were sent at. */
  inFlight = 0;
  private readonly salt = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex");

  constructor(readonly world: ConformanceWorld) {}

  get bidScenario(): BidScenario {
    return bidsOf(this.world);
  }

  /** How long a round policy holds a bid at most: half the target's decision timeout, at most 2 s. */
  get holdMs(): number {
    return Math.min(this.world.target.decisionTimeoutMs / 2, 2_000);
  }

  /** Attaches an application to provider `provider`; `sharePolicy` makes it decide with the provider's other ones. */
  async attach(
    provider: number,
    acceptance: Acceptance,
    framing: Framing,
    sharePolicy = false,
  ): Promise<RoundApplication> {
    let policy = sharePolicy ? this.shared.get(provider) : undefined;
    if (!policy) {
      policy = new RoundPolicy(acceptance, framing, this.holdMs, this.world.provider(provider));
      this.shared.set(provider, policy);
    }
    const app = await this.bidScenario.attach(provider, policy);
    const entry = { provider, app, policy };
    this.apps.push(entry);
    return entry;
  }

  /** Which providers' applications accept a bid with these hashes (one commitment each is expected). */
  acceptingProviders(txHashes: readonly string[]): number[] {
    const out = new Set<number>();
    for (const a of this.apps)
      if (!a.app.receiveStream?.ended && accepts(a.policy.acceptance, txHashes)) out.add(a.provider);
    return [...out].sort();
  }

  /**
   * A bid body of this scenario: its own transaction hash, `amount` wei, for `block` (`$BLOCK`, `$BLOCK+n`: this
   * scenario's fresh block range; `L1 block B`: the next L1 block the settlement steps fixed).
   */
  async body(index: number, amount: bigint, block: string): Promise<ConcurrentBid["body"]> {
    const s = this.bidScenario;
    const hash = keccak256(stringToHex(`concurrency ${this.salt} ${index}`)).slice(2);
    return {
      txHashes: [hash],
      amount: amount.toString(),
      blockNumber:
        block === "L1 block B" ? settlementOf(this.world).blockOf("B").toString() : await s.substitute(block),
      decayStartTimestamp: s.decayStart.toString(),
      decayEndTimestamp: s.decayEnd.toString(),
    };
  }

  /**
   * Sends `total` bids of `amount` wei for `block`, `inFlight` at a time: each round's bids are all sent before any
   * ends, and the next round starts when the last one ended.
   */
  async sendRounds(total: number, inFlight: number, amount: bigint, block: string): Promise<void> {
    this.inFlight = inFlight;
    for (let start = 0; start < total; start += inFlight) {
      const size = Math.min(inFlight, total - start);
      for (const p of new Set(this.apps.map((a) => a.policy))) p.expectRound(size);
      const round: ConcurrentBid[] = [];
      for (let i = 0; i < size; i++) {
        const index = this.bids.length + 1;
        const body = await this.body(index, amount, block);
        round.push({ index, body, sent: this.bidScenario.send(JSON.stringify(body)) });
        this.bids.push(round.at(-1)!);
      }
      await Promise.allSettled(round.map((b) => b.sent.outcome));
    }
  }

  /** Whether provider `provider`'s applications were shown a bid of `amount` wei (sent alone, for `block`). */
  async shown(provider: number, amount: bigint, block: string): Promise<boolean> {
    const policies = new Set(this.apps.filter((a) => a.provider === provider).map((a) => a.policy));
    for (const p of policies) p.expectRound(1);
    const body = await this.body(-++this.probes, amount, block);
    await this.bidScenario.send(JSON.stringify(body)).outcome;
    return this.apps.some(
      (a) => a.provider === provider && a.app.received.some((r) => bare(r.txHashes?.[0] ?? "") === body.txHashes[0]),
    );
  }

  private probes = 0;

  async teardown(): Promise<string[]> {
    await Promise.allSettled(this.apps.map((a) => a.policy.idle()));
    return [...new Set(this.apps.map((a) => a.policy))].flatMap((p) => p.errors);
  }
}

export const concurrencyOf = perScenario("concurrency scenario", (world) => new ConcurrencyScenario(world));

// ------------------------------------------------------------------------------------------- checks

/**
 * The digest of a bid as provider `p`'s applications received it on ReceiveBids (hex), found by the bid's own
 * transaction hash; undefined when none of them received it. The bid digest covers the bid's one-off BN254 key,
 * which no message shows, so the suite cannot recompute it: a commitment answers its bid when it names the digest
 * the provider was shown for that bid, signed by the bidder.
 */
export function receivedDigest(c: ConcurrencyScenario, p: number, b: ConcurrentBid): string | undefined {
  const hash = b.body.txHashes[0]!;
  const r = c.apps
    .filter((a) => a.provider === p)
    .flatMap((a) => a.app.received)
    .find((x) => bare(x.txHashes?.[0] ?? "") === hash);
  return r ? base64ToHex(r.bidDigest) : undefined;
}

/** The 1-based index of the target's provider with this address, or 0. */
export function providerIndex(world: ConformanceWorld, address: string): number {
  return world.target.providerAddresses.findIndex((a) => bare(a) === bare(address)) + 1;
}

/** What a concurrency check found: the problems, each a line, and the lines that sum them up. */
export class Findings {
  readonly lines: string[] = [];
  readonly badBids = new Set<number>();

  add(bid: number | undefined, line: string): void {
    if (bid !== undefined) this.badBids.add(bid);
    this.lines.push(line);
  }

  /** Throws one error naming how many bids went wrong and the first problems (all of them up to `max`). */
  throwIfAny(summary: string, max = 40): void {
    if (!this.lines.length) return;
    const shown = this.lines.slice(0, max);
    const more = this.lines.length > max ? `\n… and ${this.lines.length - max} more` : "";
    throw new ConcurrencySuiteError(`${summary}\n${shown.join("\n")}${more}`);
  }
}

/** The commitments a bid's stream carried, or a finding when the stream was not a stream of commitments. */
export async function commitmentsOf(b: ConcurrentBid, f: Findings): Promise<WireCommitment[] | undefined> {
  let o: Awaited<SentBid["outcome"]>;
  try {
    o = await b.sent.outcome;
  } catch (e) {
    f.add(b.index, `bid ${b.index}: ${(e as Error).message}`);
    return undefined;
  }
  if (!o.ok) {
    f.add(b.index, `bid ${b.index}: the call failed: ${o.describe(300)}`);
    return undefined;
  }
  const bad = o.lines.filter((l) => typeof l !== "object" || l === null || Object.keys(l).join() !== "result");
  if (bad.length)
    f.add(b.index, `bid ${b.index}: a stream line that is not a commitment: ${JSON.stringify(bad[0]).slice(0, 300)}`);
  return o.lines.flatMap((l) => {
    const c = (l as { result?: WireCommitment }).result;
    return c && typeof c === "object" ? [c] : [];
  });
}

/**
 * Checks that each bid got exactly one commitment from each provider whose application accepted it (`expected`
 * gives them; undefined: any providers, each at most once), and that each commitment answers its own bid.
 * Returns each bid's commitments.
 */
export async function checkCommitments(
  world: ConformanceWorld,
  c: ConcurrencyScenario,
  f: Findings,
  expected?: (b: ConcurrentBid) => number[],
): Promise<Map<number, WireCommitment[]>> {
  const got = new Map<number, WireCommitment[]>();
  for (const b of c.bids) {
    const cs = await commitmentsOf(b, f);
    if (cs) got.set(b.index, cs);
  }
  if (![...got.values()].flat().length) f.add(undefined, `none of the ${c.bids.length} bids got a commitment`);
  const digestsSeen = new Map<string, number>();
  const bidDigests = new Map<string, number>();
  for (const b of c.bids) {
    const cs = got.get(b.index);
    if (!cs) continue;
    const from = cs.map((x) => providerIndex(world, x.providerAddress));
    const want = expected?.(b);
    const sortedFrom = [...from].sort();
    if (want && sortedFrom.join() !== want.join())
      f.add(
        b.index,
        `bid ${b.index}: commitments from providers [${sortedFrom.join(", ")}], expected one from each of [${want.join(", ")}] (${cs.length} of ${want.length})`,
      );
    else if (new Set(from).size !== from.length)
      f.add(b.index, `bid ${b.index}: more than one commitment from one provider: [${sortedFrom.join(", ")}]`);
    for (const x of cs) {
      const p = from[cs.indexOf(x)]!;
      const where = `bid ${b.index}, provider ${p || x.providerAddress}`;
      if (!p) f.add(b.index, `${where}: providerAddress ${x.providerAddress} is none of the target's providers`);
      const wrong: string[] = [];
      const digest = receivedDigest(c, p, b);
      if (digest === undefined) wrong.push(`provider ${p}'s applications never received this bid`);
      else if (bare(x.receivedBidDigest) !== digest)
        wrong.push(`receivedBidDigest ${x.receivedBidDigest}, provider ${p} was shown this bid as ${digest}`);
      const other = bidDigests.get(bare(x.receivedBidDigest));
      if (other !== undefined && other !== b.index)
        wrong.push(`receivedBidDigest ${x.receivedBidDigest} is bid ${other}'s too`);
      bidDigests.set(bare(x.receivedBidDigest), b.index);
      if (x.bidAmount !== b.body.amount) wrong.push(`bidAmount ${x.bidAmount}, sent ${b.body.amount}`);
      if (x.blockNumber !== b.body.blockNumber) wrong.push(`blockNumber ${x.blockNumber}, sent ${b.body.blockNumber}`);
      if ((x.txHashes ?? []).map(bare).join() !== b.body.txHashes.join())
        wrong.push(`txHashes ${JSON.stringify(x.txHashes)}, sent ${JSON.stringify(b.body.txHashes)}`);
      if (x.decayStartTimestamp !== b.body.decayStartTimestamp || x.decayEndTimestamp !== b.body.decayEndTimestamp)
        wrong.push(
          `decay ${x.decayStartTimestamp}–${x.decayEndTimestamp}, sent ${b.body.decayStartTimestamp}–${b.body.decayEndTimestamp}`,
        );
      const chosen = c.apps
        .filter((a) => a.provider === p)
        .map((a) => a.policy.decided.get(Buffer.from(bare(x.receivedBidDigest), "hex").toString("base64")))
        .find((d) => d !== undefined);
      if (!chosen?.accept) wrong.push(`provider ${p}'s application did not accept this bid`);
      else if (x.dispatchTimestamp !== chosen.dispatchTimestamp.toString())
        wrong.push(`dispatchTimestamp ${x.dispatchTimestamp}, its application chose ${chosen.dispatchTimestamp}`);
      try {
        const signer = bare(
          await recoverAddress({
            hash: `0x${bare(x.receivedBidDigest)}`,
            signature: `0x${bare(x.receivedBidSignature)}`,
          }),
        );
        if (signer !== bare(world.target.bidderAddress))
          wrong.push(`receivedBidSignature recovers to ${signer}, not the bidder`);
        const committer = bare(
          await recoverAddress({
            hash: `0x${bare(x.commitmentDigest)}`,
            signature: `0x${bare(x.commitmentSignature)}`,
          }),
        );
        if (committer !== bare(x.providerAddress))
          wrong.push(`commitmentSignature recovers to ${committer}, not ${x.providerAddress}`);
      } catch (e) {
        wrong.push(`a signature does not recover: ${(e as Error).message}`);
      }
      const twice = digestsSeen.get(bare(x.commitmentDigest));
      if (twice !== undefined) wrong.push(`commitmentDigest ${x.commitmentDigest} also came on bid ${twice}'s stream`);
      digestsSeen.set(bare(x.commitmentDigest), b.index);
      if (wrong.length) f.add(b.index, `${where}: ${wrong.join("; ")}`);
    }
  }
  return got;
}

/**
 * Checks that the applications of each provider together received each bid of the scenario exactly once (matched by
 * transaction hash) and nothing else, and that each one's bids carry their own bid's fields.
 */
export function checkReceived(c: ConcurrencyScenario, f: Findings, providers: number[]): void {
  const byHash = new Map(c.bids.map((b) => [b.body.txHashes[0]!, b]));
  for (const p of providers) {
    const apps = c.apps.filter((a) => a.provider === p).map((a) => a.app);
    const count = new Map<string, number>();
    for (const r of apps.flatMap((a) => a.received)) {
      const b = byHash.get(bare(r.txHashes?.[0] ?? ""));
      if (!b) {
        f.add(
          undefined,
          `provider ${p}'s applications received a bid that is none of this scenario's: ${JSON.stringify(r).slice(0, 200)}`,
        );
        continue;
      }
      const n = (count.get(b.body.txHashes[0]!) ?? 0) + 1;
      count.set(b.body.txHashes[0]!, n);
      if (n === 2) f.add(b.index, `bid ${b.index}: provider ${p}'s applications received it more than once`);
      if (String(r.bidAmount ?? r.amount) !== b.body.amount || r.blockNumber !== b.body.blockNumber)
        f.add(
          b.index,
          `bid ${b.index}: provider ${p}'s application received it with amount ${r.bidAmount ?? r.amount}, block ${r.blockNumber}`,
        );
      if (!/^[0-9a-f]{64}$/.test(base64ToHex(r.bidDigest ?? "")))
        f.add(
          b.index,
          `bid ${b.index}: provider ${p}'s application received bidDigest ${r.bidDigest}, not 32 bytes of base64`,
        );
    }
    const missed = c.bids.filter((b) => !count.has(b.body.txHashes[0]!));
    for (const b of missed) f.add(b.index, `bid ${b.index}: provider ${p}'s applications never received it`);
  }
}

/**
 * What a provider node lets the bidder bid at most, found by single bids its application rejects (a rejected bid
 * gives its amount back): the largest amount shown to the application, `low`, and the smallest refused before it,
 * `high`, narrowed until high − low < low / 10. `start` is where the search begins (the bidder's deposit toward the
 * provider on chain).
 */
export async function balanceBounds(
  c: ConcurrencyScenario,
  provider: number,
  start: bigint,
  block: string,
): Promise<{ low: bigint; high: bigint; probes: number }> {
  let low = 0n;
  let high = start > 0n ? start : 1n;
  let probes = 0;
  const shown = async (amount: bigint) => {
    probes++;
    return c.shown(provider, amount, block);
  };
  for (let i = 0; i < 64 && (await shown(high)); i++) {
    low = high;
    high *= 2n;
  }
  if (low === high) throw new ConcurrencySuiteError(`provider ${provider} takes bids of any amount up to ${high} wei`);
  while (low === 0n || (high - low) * 10n >= low) {
    const mid = (low + high) / 2n;
    if (mid === low) break;
    if (await shown(mid)) low = mid;
    else high = mid;
    if (probes > 200)
      throw new ConcurrencySuiteError(`provider ${provider}'s balance not found in 200 bids (${low}–${high} wei)`);
  }
  if (low === 0n)
    throw new ConcurrencySuiteError(`provider ${provider} took no bid of ${high} wei or less: no balance`);
  return { low, high, probes };
}
