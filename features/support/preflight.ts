/**
 * What the suite relies on in a target, checked before the first scenario: every URL answers, the chains' ids and
 * contracts are the target file's, the settlement chain serves the past states the settlement checks read, the
 * capabilities the file claims answer, and no other provider application reads the providers' bids. What is missing
 * either stops the run with one message that says what to change (the target cannot work at all), or skips exactly
 * the scenarios that need it with that reason; what the suite can arrange itself (the reference devnet's built-in
 * applications, detached for the run) it arranges, and puts back at the end (undoPreflight).
 */
import { connect } from "node:net";
import { MevCommitError } from "../../lib/errors.ts";
import { call } from "./clients/http.ts";
import { probeTarget } from "./health.ts";
import type { Target } from "./target.ts";
import { noteArranged } from "./targetChanges.ts";

export class PreflightError extends MevCommitError {}

/**
 * How many blocks back from the head the settlement chain must still serve state: the settlement checks read the
 * state of a settlement's block and the one before (features/support/settlement.ts, settlementFacts) a few seconds
 * after it was mined, which is up to about 30 blocks of the reference devnet's 200 ms settlement blocks under load.
 */
export const PAST_STATE_DEPTH = 32;

/** Something a scenario relies on that only a preflight can tell is missing (beyond the target's capabilities). */
export type Requirement = "past-states";

export type CheckOutcome = "ok" | "arranged" | "skips" | "stops" | "unknown";

export interface PreflightCheck {
  check: string;
  outcome: CheckOutcome;
  detail: string;
}

export interface Preflight {
  checks: PreflightCheck[];
  /** The one message that stops the run: the target cannot work at all, and this says what to change. */
  stop?: string;
  /** Claimed capabilities that do not answer, and why: scenarios that need them are skipped with that reason. */
  unusable: Partial<Record<string, string>>;
  /** Requirements the target does not meet, and why: scenarios that need them are skipped with that reason. */
  unmet: Partial<Record<Requirement, string>>;
  /** What the preflight changed on the target, put back by undoPreflight. */
  arranged: { what: string; undo: () => Promise<void> }[];
}

const TIMEOUT_MS = 10_000;

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const r = await call("POST", url, { body: { jsonrpc: "2.0", id: 1, method, params }, timeoutMs: TIMEOUT_MS });
  const body = r.json as { result?: unknown; error?: { message?: string } } | undefined;
  if (r.status !== 200 || !body) throw new PreflightError(`HTTP ${r.status}: ${r.text.slice(0, 200)}`);
  if (body.error) throw new PreflightError(body.error.message ?? JSON.stringify(body.error));
  return body.result;
}

const firstLine = (e: unknown) => String((e as Error)?.message ?? e).split("\n")[0]!;

function tcpAnswers(url: string): Promise<string | undefined> {
  const u = new URL(url.includes("://") ? url : `tcp://${url}`);
  const port = Number(u.port || (u.protocol === "https:" ? 443 : 80));
  return new Promise((resolve) => {
    const s = connect({ host: u.hostname, port, timeout: 3_000 });
    s.once("connect", () => {
      s.destroy();
      resolve(undefined);
    });
    s.once("timeout", () => {
      s.destroy();
      resolve("no answer within 3 s");
    });
    s.once("error", (e) => resolve(firstLine(e)));
  });
}

type ControlStatus = {
  l1?: { blockTime?: number };
  builtInApplications?: { attached: boolean; count: number; detachable: boolean };
  nodes?: { name: string; role: string; running?: boolean; receivers?: number }[];
};

async function controlStatus(t: Target): Promise<ControlStatus> {
  const r = await call("GET", `${t.controlUrl}/sim/v1/status`, { timeoutMs: TIMEOUT_MS });
  if (r.status !== 200) throw new PreflightError(`GET /sim/v1/status answered HTTP ${r.status}`);
  return r.json as ControlStatus;
}

const attachedApps = (s: ControlStatus) =>
  (s.nodes ?? []).filter((n) => n.role === "provider" && (n.receivers ?? 0) > 0);

/** Checks the target; arranges what it can (and says so). Never throws for a property of the target. */
export async function runPreflight(t: Target): Promise<Preflight> {
  const p: Preflight = { checks: [], unusable: {}, unmet: {}, arranged: [] };
  const add = (check: string, outcome: CheckOutcome, detail: string) => p.checks.push({ check, outcome, detail });
  const stops: string[] = [];

  // The nodes (the CLI runs the preflight on a target that answered; one that stops now is down).
  const down = await probeTarget(t);
  add("nodes answer", down ? "stops" : "ok", down ?? `bidder and ${t.providerUrls.length} provider(s) answer /health`);
  if (down) stops.push(`${down}: is the target running?`);

  // The chains and contracts: a target whose file names other chains or contracts cannot work at all.
  for (const [name, url, id] of [
    ["L1", t.l1RpcUrl, t.l1ChainId],
    ["settlement", t.settlementRpcUrl, t.settlementChainId],
  ] as const) {
    try {
      const got = Number(BigInt((await rpc(url, "eth_chainId")) as string));
      if (got === id) add(`${name} chain id`, "ok", `${url} is chain ${got}`);
      else {
        add(`${name} chain id`, "stops", `${url} is chain ${got}, the target file says ${id}`);
        stops.push(`the ${name} chain at ${url} is chain ${got}, not the target file's ${id}: fix the target file`);
      }
    } catch (e) {
      add(`${name} chain id`, "stops", `${url}: ${firstLine(e)}`);
      stops.push(`the ${name} chain at ${url} does not answer (${firstLine(e)}): start it, or fix the target file`);
    }
  }
  const code = [
    ...Object.entries(t.contracts).map(([k, a]) => [k, a, t.settlementRpcUrl] as const),
    ...(t.validatorOptInRouter ? [["validatorOptInRouter", t.validatorOptInRouter, t.l1RpcUrl] as const] : []),
  ];
  const noCode: string[] = [];
  await Promise.all(
    code.map(async ([k, a, url]) => {
      // A contract whose deployment waits for the next block (the devnet's L1 registry before the first mined
      // L1 block) is there for the run.
      const codeAt = (block: string) => rpc(url, "eth_getCode", [a, block]).catch(() => undefined);
      const empty = (c: unknown) => c === "0x" || c === "";
      const got = await codeAt("latest");
      if (got === undefined) return; // the chain's own check above says it does not answer
      if (empty(got) && empty(await codeAt("pending"))) noCode.push(`${k} ${a}`);
    }),
  );
  if (noCode.length) {
    add("contracts", "stops", `no code at ${noCode.join(", ")}`);
    stops.push(
      `no contract code at ${noCode.join(", ")}: the target file names contracts its chains do not hold (a devnet started --fresh deploys new ones; copy its target.json again)`,
    );
  } else add("contracts", "ok", `code at every address of the target file (${code.length})`);

  // Past states: settlement checks read the registries at a settlement's block and the one before.
  try {
    const head = BigInt((await rpc(t.settlementRpcUrl, "eth_blockNumber")) as string);
    const at = head > BigInt(PAST_STATE_DEPTH) ? head - BigInt(PAST_STATE_DEPTH) : 0n;
    await rpc(t.settlementRpcUrl, "eth_getBalance", [t.bidderAddress, `0x${at.toString(16)}`]);
    add("settlement past states", "ok", `the state of block ${at} (head − ${head - at}) is served`);
  } catch (e) {
    const why = `the settlement chain keeps no past states ${PAST_STATE_DEPTH} blocks back (${firstLine(e)}); start the devnet with --settlement-history 64 (or keep more past states on the target's settlement chain)`;
    p.unmet["past-states"] = why;
    add("settlement past states", "skips", why);
  }

  // Claimed capabilities answer.
  const has = (c: string) => t.capabilities.includes(c);
  let status: ControlStatus | undefined;
  if (has("sim-control")) {
    try {
      status = await controlStatus(t);
      add("sim-control", "ok", `${t.controlUrl}/sim/v1/status answers`);
      await soleMiner(t, status, p, add);
    } catch (e) {
      const why = `the target claims sim-control but its control API ${t.controlUrl} does not answer (${firstLine(e)})`;
      for (const c of ["sim-control", "sim-nodes", "sim-kill", "sim-faults"]) if (has(c)) p.unusable[c] = why;
      add("sim-control", "skips", why);
    }
  }
  if (has("sim-nodes") && status && !status.nodes?.some((n) => n.role === "provider" && n.receivers !== undefined)) {
    const why = "the target claims sim-nodes but its control API's status reports no provider node's receivers";
    p.unusable["sim-nodes"] = why;
    add("sim-nodes", "skips", why);
  } else if (has("sim-nodes") && status) add("sim-nodes", "ok", "the control API reports each node's counts");
  if (has("beacon")) {
    try {
      const r = await call("GET", `${t.beaconUrl}/eth/v1/beacon/genesis`, { timeoutMs: TIMEOUT_MS });
      const genesis = BigInt((r.json as { data?: { genesis_time?: string } })?.data?.genesis_time ?? "x");
      const head = (await rpc(t.l1RpcUrl, "eth_getBlockByNumber", ["latest", false])) as {
        number: string;
        timestamp: string;
      };
      const [n, time] = [BigInt(head.number), BigInt(head.timestamp)];
      if (genesis > time) throw new PreflightError(`genesis_time ${genesis} is after the L1 head's time ${time}`);
      const slotSeconds = n > 0n ? Number(time - genesis) / Number(n) : undefined;
      add(
        "beacon",
        "ok",
        `genesis ${genesis}; L1 head ${n} at ${time}${slotSeconds ? ` (${slotSeconds.toFixed(1)} s per slot)` : ""}`,
      );
    } catch (e) {
      const why = `the target claims beacon but its beacon API ${t.beaconUrl} gives no usable clock (${firstLine(e)})`;
      p.unusable.beacon = why;
      add("beacon", "skips", why);
    }
  }
  if (has("grpc")) {
    const dead: string[] = [];
    for (const u of [t.bidderRpcUrl, ...(t.providerRpcUrls ?? [])].filter((x): x is string => !!x)) {
      const why = await tcpAnswers(u);
      if (why) dead.push(`${u} (${why})`);
    }
    if (dead.length) {
      const why = `the target claims grpc but ${dead.join(", ")} accept no connection`;
      p.unusable.grpc = why;
      add("grpc", "skips", why);
    } else add("grpc", "ok", "every gRPC address accepts connections");
  }
  if (has("openapi")) {
    const r = await call("GET", `${t.bidderUrl}/swagger/json`, { timeoutMs: TIMEOUT_MS }).catch(() => undefined);
    if (r?.status === 200) add("openapi", "ok", "the bidder serves /swagger/json");
    else {
      const why = `the target claims openapi but ${t.bidderUrl}/swagger/json answers ${r ? `HTTP ${r.status}` : "nothing"}`;
      p.unusable.openapi = why;
      add("openapi", "skips", why);
    }
  }

  // Other provider applications: bids the suite sends must reach the suite's applications alone.
  await onlyApplication(t, status, p, add, stops);

  if (stops.length) p.stop = stops.join("; ");
  return p;
}

/**
 * With sim-control the suite mines the L1 itself, and settlement scenarios check that nothing else did: a devnet that
 * mines on its own (`--l1-block-time N`) is paused for the run and paced again at its end.
 */
async function soleMiner(
  t: Target,
  status: ControlStatus,
  p: Preflight,
  add: (check: string, outcome: CheckOutcome, detail: string) => void,
): Promise<void> {
  const seconds = status.l1?.blockTime;
  if (seconds === undefined) return;
  if (seconds === 0) {
    add("L1 mining", "ok", "the L1 is mined through the control API only");
    return;
  }
  const set = async (blockTime: number) => {
    const r = await call("POST", `${t.controlUrl}/sim/v1/l1`, { body: { blockTime }, timeoutMs: 30_000 });
    if (r.status !== 200)
      throw new PreflightError(`POST /sim/v1/l1 answered HTTP ${r.status}: ${r.text.slice(0, 200)}`);
  };
  try {
    noteArranged({ kind: "l1-block-time", blockTime: seconds });
    await set(0);
    const what = `the devnet's own L1 blocks (one every ${seconds} s): paused for the run, paced again at its end`;
    p.arranged.push({ what, undo: () => set(seconds) });
    add("L1 mining", "arranged", what);
  } catch (e) {
    const why = `the L1 is mined on its own every ${seconds} s and cannot be paused (${firstLine(e)}); start the devnet with --l1-block-time 0`;
    for (const c of ["sim-control", "sim-nodes", "sim-kill", "sim-faults"])
      if (t.capabilities.includes(c)) p.unusable[c] = why;
    add("L1 mining", "skips", why);
  }
}

async function onlyApplication(
  t: Target,
  status: ControlStatus | undefined,
  p: Preflight,
  add: (check: string, outcome: CheckOutcome, detail: string) => void,
  stops: string[],
): Promise<void> {
  if (!status?.nodes?.some((n) => n.receivers !== undefined)) {
    add(
      "provider applications",
      "unknown",
      "the target reports no attached applications (no control API with node counts): bids go to whatever reads them",
    );
    return;
  }
  let attached = attachedApps(status);
  const builtIn = status.builtInApplications;
  if (attached.length && builtIn?.attached && builtIn.detachable) {
    const set = async (on: boolean) => {
      const r = await call("POST", `${t.controlUrl}/sim/v1/responders`, {
        body: { attached: on },
        timeoutMs: 30_000,
      });
      if (r.status !== 200)
        throw new PreflightError(`POST /sim/v1/responders answered HTTP ${r.status}: ${r.text.slice(0, 200)}`);
    };
    try {
      noteArranged({ kind: "built-in-applications", count: builtIn.count });
      await set(false);
      p.arranged.push({
        what: `the devnet's built-in provider applications (${builtIn.count}): detached for the run, attached again at its end`,
        undo: () => set(true),
      });
      // A detached application's stream closes on the node a moment later.
      const total = (s: { receivers?: number }[]) => s.reduce((n, x) => n + (x.receivers ?? 0), 0);
      const left = total(attached) - builtIn.count;
      for (const until = Date.now() + 10_000; Date.now() < until; await Bun.sleep(200)) {
        attached = attachedApps(await controlStatus(t));
        if (total(attached) <= left) break;
      }
    } catch (e) {
      add("provider applications", "stops", firstLine(e));
    }
  }
  if (attached.length) {
    const list = attached.map((n) => `${n.name}: ${n.receivers}`).join(", ");
    add("provider applications", "stops", `attached: ${list}`);
    stops.push(
      `the providers have applications attached (${list}): start the devnet with --no-auto-accept, or detach them`,
    );
  } else {
    const detached = p.arranged.find((a) => a.what.includes("provider applications"));
    add(
      "provider applications",
      detached ? "arranged" : "ok",
      detached?.what ?? "none attached: the suite's are the only ones",
    );
  }
}

/** Puts back what the preflight arranged; answers one line per item. */
export async function undoPreflight(p: Preflight): Promise<string[]> {
  const lines: string[] = [];
  for (const a of p.arranged.splice(0).reverse()) {
    try {
      await a.undo();
      lines.push(`restored: ${a.what}`);
    } catch (e) {
      lines.push(`left changed: ${a.what} (${firstLine(e)})`);
    }
  }
  return lines;
}

/** The preflight lines printed before the first scenario. */
export function preflightText(p: Preflight): string {
  const mark: Record<CheckOutcome, string> = {
    ok: "ok",
    arranged: "arranged",
    skips: "skips",
    stops: "STOPS",
    unknown: "?",
  };
  return ["Preflight:", ...p.checks.map((c) => `  ${mark[c.outcome].padEnd(8)} ${c.check}: ${c.detail}`)].join("\n");
}

/** The preflight as the JSON result records it (docs/conformance-result.schema.json). */
export function preflightJson(p: Preflight) {
  return {
    checks: p.checks,
    stopped: p.stop ?? null,
    skipped: { ...p.unusable, ...p.unmet },
  };
}

let current: Preflight | undefined;

/** The preflight of this process's run (the CLI runs it once for both passes). */
export function preflight(): Preflight | undefined {
  return current;
}

export function setPreflight(p: Preflight | undefined): void {
  current = p;
}
