/**
 * The scenario file: what a simulation runs. Parsed from YAML or JSON by `loadScenario` (load.ts); every field is
 * checked here, with errors that name the field (`ScenarioError`). The README lists the fields.
 */
import { PROTOCOL_VERSIONS, type ProtocolVersion } from "../../../node/protocol/protocolVersion.ts";
import { Fields, ScenarioError } from "./fields.ts";

export const MAX_BIDDERS = 9;
export const MAX_PROVIDERS = 7;
/** The most bids a bidder sends for one block (sizes the pool of L1 accounts that sign its transactions). */
export const MAX_BIDS_PER_BLOCK = 32;

export type Transport = "http" | "grpc";

export type DepositPlan = { type: "per-window"; amount: bigint } | { type: "auto"; amount: bigint };

export type BidStrategy =
  /** `perBlock` bids a block on average, spread evenly (0.5 = one bid every other block). */
  | { type: "constant"; perBlock: number }
  /** A Poisson-distributed number of bids per block (mean `meanPerBlock`, at most `maxPerBlock`). */
  | { type: "poisson"; meanPerBlock: number; maxPerBlock: number }
  /** `perBlock` bids sent all at once right after every `everyBlocks`-th block. */
  | { type: "slot-burst"; perBlock: number; everyBlocks: number }
  /** Bids `perSlot` bids only for slots whose proposer is opted in, as announced by the node's notifications. */
  | { type: "bot"; perSlot: number };

export interface BidderSpec {
  name: string;
  deposit: DepositPlan;
  strategy: BidStrategy;
  /** Bid amounts are drawn uniformly from [min, max] (equal for a fixed amount). */
  amount: { min: bigint; max: bigint };
  /** Length of the decay window: decay ends this long after it starts (the bid's creation). */
  decayMs: number;
  /** raw: the bid carries the signed transactions; hash: the bidder sends them to the L1 itself and bids by hash. */
  transactions: "raw" | "hash";
  txsPerBid: number;
  slashAmount: bigint;
  /** Stops bidding once the next bid would take the sum of its bid amounts above this. */
  budget?: bigint;
  transport: Transport;
}

export const POLICY_TYPES = [
  "accept-all",
  "reject-all",
  "reject-percent",
  "accept-after-delay",
  "price-floor",
] as const;
export type PolicySpec =
  | { type: "accept-all" }
  | { type: "reject-all" }
  | { type: "reject-percent"; percent: number }
  | { type: "accept-after-delay"; delayMs: number }
  /** Accepts only bids paying at least `perTx` per transaction and `perGas` per unit of gas (gas limits of the raw transactions, 21000 per hash). */
  | { type: "price-floor"; perTx?: bigint; perGas?: bigint };

export const BUILDER_MODE_NAMES = ["honest", "omit", "reverse", "gap"] as const;
export interface BuilderSpec {
  mode: (typeof BUILDER_MODE_NAMES)[number];
  /** The mode applies to every k-th bundle (1 = all). */
  every: number;
}

export interface ProviderSpec {
  name: string;
  policy: PolicySpec;
  /** Dispatch time of an accepted bid as a fraction of its decay window (0 = at decay start: the full amount). */
  dispatchAt: number;
  builder: BuilderSpec;
  transport: Transport;
}

/**
 * Who wins each block: providers in turn, at random (seeded), a list (cycled; null = no provider), or
 * "opted-in": providers in turn for slots whose proposer is opted in, no provider for the others.
 */
export type WinnerSpec =
  | { type: "round-robin" }
  | { type: "random" }
  | { type: "opted-in" }
  | { type: "list"; winners: (number | null)[] };

export const FAULT_ACTIONS = ["stop", "start", "fail-store", "fail-open", "builder"] as const;
export type FaultSpec =
  | { block: number; action: "stop" | "start" | "fail-store"; provider: number }
  | { block: number; action: "fail-open"; provider?: number; bidder?: number }
  | { block: number; action: "builder"; provider: number; builder: BuilderSpec };

export interface Scenario {
  name: string;
  description: string;
  seed: number;
  /** The protocol versions the scenario holds for (`protocols`; default: every version). */
  protocols: ProtocolVersion[];
  l1: {
    /** L1 blocks the scenario bids for (and mines). */
    blocks: number;
    /** "manual": the runner mines each block as soon as its actions are done; seconds: paced to this block time. */
    blockTime: "manual" | number;
    winners: WinnerSpec;
    /** Fraction of the proposer schedule's validators opted in (unset: leave the registry as it is). */
    optedIn?: number;
  };
  bidders: BidderSpec[];
  providers: ProviderSpec[];
  faults: FaultSpec[];
}

function transport(f: Fields): Transport {
  const t = f.raw("transport") ?? "http";
  if (t !== "http" && t !== "grpc") f.fail("transport", `must be http or grpc, got ${JSON.stringify(t)}`);
  return t as Transport;
}

function builderOf(f: Fields, key: string): BuilderSpec {
  const v = f.raw(key);
  if (v === undefined || v === null) return { mode: "honest", every: 1 };
  if (typeof v === "string") {
    if (!(BUILDER_MODE_NAMES as readonly string[]).includes(v))
      f.fail(key, `must be one of ${BUILDER_MODE_NAMES.join(", ")} or {mode, every}, got "${v}"`);
    return { mode: v as BuilderSpec["mode"], every: 1 };
  }
  const b = Fields.of(f.file, f.at(key), v);
  const spec = {
    mode: b.oneOf("mode", BUILDER_MODE_NAMES),
    every: b.number("every", { def: 1, min: 1, integer: true }),
  };
  b.done();
  return spec;
}

function policyOf(f: Fields): PolicySpec {
  const v = f.raw("policy") ?? "accept-all";
  const p =
    typeof v === "string" ? new Fields(f.file, f.at("policy"), { type: v }) : Fields.of(f.file, f.at("policy"), v);
  const type = p.oneOf("type", POLICY_TYPES);
  let spec: PolicySpec;
  switch (type) {
    case "reject-percent":
      spec = { type, percent: p.number("percent", { min: 0, max: 100 }) };
      break;
    case "accept-after-delay":
      spec = { type, delayMs: p.number("delayMs", { min: 0, max: 60_000, integer: true }) };
      break;
    case "price-floor": {
      const perTx = p.optional("perTx", (k) => p.wei(k));
      const perGas = p.optional("perGas", (k) => p.wei(k));
      if (perTx === undefined && perGas === undefined) p.fail("perTx", "price-floor needs perTx or perGas (or both)");
      spec = { type, perTx, perGas };
      break;
    }
    default:
      spec = { type };
  }
  p.done();
  return spec;
}

function strategyOf(f: Fields): BidStrategy {
  const s = f.object("strategy");
  const type = s.oneOf("type", ["constant", "poisson", "slot-burst", "bot"] as const);
  let spec: BidStrategy;
  switch (type) {
    case "constant":
      spec = { type, perBlock: s.number("perBlock", { min: 0, max: MAX_BIDS_PER_BLOCK }) };
      break;
    case "poisson": {
      const maxPerBlock = s.number("maxPerBlock", { def: 16, min: 1, max: MAX_BIDS_PER_BLOCK, integer: true });
      spec = { type, meanPerBlock: s.number("meanPerBlock", { min: 0, max: maxPerBlock }), maxPerBlock };
      break;
    }
    case "slot-burst":
      spec = {
        type,
        perBlock: s.number("perBlock", { min: 1, max: MAX_BIDS_PER_BLOCK, integer: true }),
        everyBlocks: s.number("everyBlocks", { def: 1, min: 1, integer: true }),
      };
      break;
    case "bot":
      spec = { type, perSlot: s.number("perSlot", { def: 1, min: 1, max: MAX_BIDS_PER_BLOCK, integer: true }) };
      break;
  }
  s.done();
  return spec;
}

function depositOf(f: Fields): DepositPlan {
  const d = f.object("deposit");
  const perWindow = d.optional("perWindow", (k) => d.wei(k));
  const auto = d.optional("auto", (k) => d.wei(k));
  d.done();
  if ((perWindow === undefined) === (auto === undefined))
    f.fail(
      "deposit",
      'needs exactly one of perWindow (the bidder deposits each window itself) or auto (the node\'s auto-deposit), e.g. {perWindow: "1 ETH"}',
    );
  const amount = (perWindow ?? auto)!;
  if (amount <= 0n) f.fail(perWindow !== undefined ? "deposit.perWindow" : "deposit.auto", "must be more than 0");
  return perWindow !== undefined ? { type: "per-window", amount } : { type: "auto", amount };
}

function amountOf(f: Fields): { min: bigint; max: bigint } {
  const v = f.raw("amount");
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    const a = Fields.of(f.file, f.at("amount"), v);
    const r = { min: a.wei("min"), max: a.wei("max") };
    a.done();
    if (r.min > r.max) a.fail("max", "must not be below min");
    if (r.min <= 0n) a.fail("min", "must be more than 0");
    return r;
  }
  const x = f.wei("amount", 10n ** 15n);
  if (x <= 0n) f.fail("amount", "must be more than 0");
  return { min: x, max: x };
}

function indexOf(f: Fields, key: string, names: string[], what: string): number {
  const v = f.raw(key);
  if (typeof v === "number" && Number.isInteger(v) && v >= 0 && v < names.length) return v;
  if (typeof v === "string" && names.includes(v)) return names.indexOf(v);
  f.fail(key, `must name a ${what} (${names.map((n, i) => `${i} or "${n}"`).join(", ")}), got ${JSON.stringify(v)}`);
}

function faultOf(
  file: string,
  path: string,
  v: unknown,
  blocks: number,
  providers: string[],
  bidders: string[],
): FaultSpec {
  const f = Fields.of(file, path, v);
  const block = f.number("block", { min: 1, max: blocks, integer: true });
  const action = f.oneOf("action", FAULT_ACTIONS);
  let spec: FaultSpec;
  if (action === "fail-open" && f.has("bidder")) {
    spec = { block, action, bidder: indexOf(f, "bidder", bidders, "bidder") };
    if (f.has("provider")) f.fail("provider", "a fail-open fault names a provider or a bidder, not both");
  } else if (action === "builder")
    spec = { block, action, provider: indexOf(f, "provider", providers, "provider"), builder: builderOf(f, "builder") };
  else spec = { block, action, provider: indexOf(f, "provider", providers, "provider") } as FaultSpec;
  f.done();
  return spec;
}

function winnersOf(f: Fields, providers: string[]): WinnerSpec {
  const v = f.raw("winners") ?? "round-robin";
  if (v === "round-robin" || v === "random" || v === "opted-in") return { type: v };
  if (!Array.isArray(v) || v.length === 0)
    f.fail(
      "winners",
      `must be round-robin, random, opted-in, or a list of providers (name or index; none for a block no provider wins), got ${JSON.stringify(v)}`,
    );
  return {
    type: "list",
    winners: v.map((x, i) => {
      if (x === "none" || x === null) return null;
      const item = new Fields(f.file, f.at("winners"), { [i]: x });
      return indexOf(item, String(i), providers, "provider");
    }),
  };
}

/** Checks a parsed scenario document and fills in the defaults. */
export function parseScenario(file: string, doc: unknown): Scenario {
  const top = Fields.of(file, "", doc);
  const name = top.string("name");
  if (!/^[a-z0-9][a-z0-9._-]*$/i.test(name))
    top.fail("name", `must be letters, digits, ".", "_" or "-" (it names the report folder), got "${name}"`);
  const description = top.string("description", "");
  const seed = top.number("seed", { min: 0, max: 2 ** 32 - 1, integer: true });
  const protocols = protocolsOf(top);

  const providerItems = top.list("providers", { min: 1 });
  if (providerItems.length > MAX_PROVIDERS)
    top.fail(
      "providers",
      `at most ${MAX_PROVIDERS} providers (the devnet's dev accounts), got ${providerItems.length}`,
    );
  const providers = providerItems.map(({ path, value }, i) => {
    const p = Fields.of(file, path, value);
    const spec: ProviderSpec = {
      name: p.string("name", `provider-${i}`),
      policy: policyOf(p),
      dispatchAt: p.number("dispatchAt", { def: 0, min: 0, max: 1 }),
      builder: builderOf(p, "builder"),
      transport: transport(p),
    };
    p.done();
    return spec;
  });
  const providerNames = providers.map((p) => p.name);
  if (new Set(providerNames).size !== providerNames.length) top.fail("providers", "provider names must be unique");

  const bidders: BidderSpec[] = [];
  for (const { path, value } of top.list("bidders", { min: 1 })) {
    const b = Fields.of(file, path, value);
    const base = b.string("name", `bidder-${bidders.length}`);
    const count = b.number("count", { def: 1, min: 1, max: MAX_BIDDERS, integer: true });
    const spec: Omit<BidderSpec, "name"> = {
      deposit: depositOf(b),
      strategy: strategyOf(b),
      amount: amountOf(b),
      decayMs: b.number("decayMs", { def: 12_000, min: 1, max: 50_000, integer: true }),
      transactions: b.oneOf("transactions", ["raw", "hash"] as const, "raw"),
      txsPerBid: b.number("txsPerBid", { def: 1, min: 1, max: 4, integer: true }),
      slashAmount: b.wei("slashAmount", 0n),
      budget: b.optional("budget", (k) => b.wei(k)),
      transport: transport(b),
    };
    b.done();
    for (let i = 0; i < count; i++) bidders.push({ ...spec, name: count === 1 ? base : `${base}-${i + 1}` });
  }
  if (bidders.length > MAX_BIDDERS)
    top.fail("bidders", `at most ${MAX_BIDDERS} bidders in all (one bidder node each), got ${bidders.length}`);
  const bidderNames = bidders.map((b) => b.name);
  if (new Set(bidderNames).size !== bidderNames.length) top.fail("bidders", "bidder names must be unique");

  const l1f = top.object("l1");
  const blocks = l1f.number("blocks", { min: 1, max: 10_000, integer: true });
  const bt = l1f.raw("blockTime") ?? "manual";
  if (bt !== "manual" && (typeof bt !== "number" || !(bt > 0) || bt > 60))
    l1f.fail("blockTime", `must be manual or seconds from 0.1 to 60, got ${JSON.stringify(bt)}`);
  const l1: Scenario["l1"] = {
    blocks,
    blockTime: bt as "manual" | number,
    winners: winnersOf(l1f, providerNames),
    optedIn: l1f.optional("optedIn", (k) => l1f.number(k, { min: 0, max: 1 })),
  };
  l1f.done();
  if (bidders.some((b) => b.strategy.type === "bot") && l1.optedIn === undefined)
    top.fail(
      "l1.optedIn",
      "a bidder with strategy bot needs l1.optedIn (the fraction of validators opted in), so that the run is repeatable",
    );

  const faults = top
    .list("faults", { def: [] })
    .map(({ path, value }) => faultOf(file, path, value, blocks, providerNames, bidderNames))
    .sort((a, b) => a.block - b.block);
  top.done();
  return { name, description, seed, protocols, l1, bidders, providers, faults };
}

function protocolsOf(top: Fields): ProtocolVersion[] {
  const v = top.raw("protocols");
  if (v === undefined || v === null) return [...PROTOCOL_VERSIONS];
  if (
    !Array.isArray(v) ||
    !v.length ||
    v.some((x) => !(PROTOCOL_VERSIONS as readonly unknown[]).includes(x)) ||
    new Set(v).size !== v.length
  )
    top.fail("protocols", `must list some of ${PROTOCOL_VERSIONS.join(", ")} once each, got ${JSON.stringify(v)}`);
  return v as ProtocolVersion[];
}

export { ScenarioError };
