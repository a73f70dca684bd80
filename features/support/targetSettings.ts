/**
 * The settings of a target that scenarios change through its APIs, read before a run's first scenario and put back
 * after its last one: the bidder's auto-deposit (stopped for the run: scenarios deposit by hand), each provider's builder mode (settlement
 * scenarios set omit/reverse/gap, and their teardown sets honest), and the provider applications attached to each
 * provider node (counted; one that left cannot be attached again from here, so it is reported). What cannot be put
 * back is printed, so a target is never left changed without a word. The suite's own devnet is thrown away at the
 * end of the run and is not read.
 *
 * Over HTTP (every target serves its bidder's HTTP API, also in a gRPC run) and the control API where the target has
 * one (`sim-control`).
 */
import { call } from "./clients/http.ts";
import type { Target } from "./target.ts";

export interface AutoDepositSetting {
  enabled: boolean;
  /**
   * The amount per window to start it with again: upstream's AutoDepositStatus does not tell the amount, so this is
   * the largest deposit among the windows it lists (auto-deposit puts that amount into each). Undefined when none is
   * listed.
   */
  amountPerWindow?: bigint;
}

export interface BuilderSetting {
  provider: string;
  mode: string;
  every: number;
}

export interface TargetSettings {
  autoDeposit?: AutoDepositSetting;
  builders?: BuilderSetting[];
  /** Provider applications attached to each provider node (ReceiveBids readers), by node name. */
  receivers?: { name: string; receivers: number }[];
  /** Whether each of the devnet's provider nodes runs (`sim-nodes` stops and starts them), by node name. */
  running?: { name: string; running: boolean }[];
}

type Status = { isAutodepositEnabled?: boolean; windowBalances?: { depositedAmount?: string }[] };
type ControlStatus = {
  registeredProviders?: { address: string; builder?: string; builderEvery?: number }[];
  nodes?: {
    name: string;
    role: string;
    address?: string;
    running?: boolean;
    receivers?: number;
    builderEvery?: number;
  }[];
};

async function readAutoDeposit(t: Target): Promise<AutoDepositSetting | undefined> {
  // Auto-deposit exists in protocol v1.1 only (v1.2's bidder has no window calls).
  if (!t.rules.autoDeposit) return undefined;
  const r = await call("GET", `${t.bidderUrl}/v1/bidder/auto_deposit_status`, { timeoutMs: 10_000 }).catch(
    () => undefined,
  );
  const body = r?.status === 200 ? (r.json as Status) : undefined;
  if (typeof body?.isAutodepositEnabled !== "boolean") return undefined;
  const amounts = (body.windowBalances ?? []).map((w) => BigInt(w.depositedAmount ?? "0")).filter((a) => a > 0n);
  return {
    enabled: body.isAutodepositEnabled,
    amountPerWindow: amounts.length ? amounts.reduce((m, a) => (a > m ? a : m)) : undefined,
  };
}

async function readControl(t: Target): Promise<ControlStatus | undefined> {
  if (!t.controlUrl || !t.capabilities.includes("sim-control")) return undefined;
  const r = await call("GET", `${t.controlUrl}/sim/v1/status`, { timeoutMs: 10_000 }).catch(() => undefined);
  return r?.status === 200 ? (r.json as ControlStatus) : undefined;
}

/** What the target's settings are now (a part it does not answer for is left out). */
export async function readTargetSettings(t: Target): Promise<TargetSettings> {
  const [autoDeposit, control] = await Promise.all([readAutoDeposit(t), readControl(t)]);
  return {
    autoDeposit,
    builders: control?.registeredProviders
      ?.filter((p) => p.builder)
      .map((p) => {
        // The devnet's own provider nodes tell how often the mode applies (builderEvery); others apply it always.
        const node = control.nodes?.find((n) => n.address?.toLowerCase() === p.address.toLowerCase());
        return { provider: p.address, mode: p.builder!, every: p.builderEvery ?? node?.builderEvery ?? 1 };
      }),
    receivers: control?.nodes
      ?.filter((n) => n.role === "provider" && n.receivers !== undefined)
      .map((n) => ({ name: n.name, receivers: n.receivers! })),
    running: control?.nodes
      ?.filter((n) => n.role === "provider" && n.running !== undefined)
      .map((n) => ({ name: n.name, running: n.running! })),
  };
}

/**
 * Sets what the scenarios assume of a target: the bidder's auto-deposit off (scenarios deposit and withdraw by hand,
 * which a running auto-deposit refuses). Answers what it changed, to be put back by restoreTargetSettings.
 */
export async function prepareTarget(t: Target, found: TargetSettings): Promise<string[]> {
  if (!found.autoDeposit?.enabled) return [];
  const r = await call("POST", `${t.bidderUrl}/v1/bidder/cancel_auto_deposit`, { timeoutMs: 30_000 }).catch(
    (e: Error) => ({ status: 0, text: e.message }),
  );
  if (r.status !== 200)
    return [
      `the bidder's auto-deposit is on and stopping it failed (${r.text.slice(0, 200)}); scenarios that deposit will fail`,
    ];
  return [
    `the bidder's auto-deposit was on: stopped for the run${found.autoDeposit.amountPerWindow === undefined ? "" : `, started again at its end (${found.autoDeposit.amountPerWindow} wei per window)`}`,
  ];
}

/**
 * Puts back every setting of `before` that differs now; answers one line per setting it restored or could not
 * ("left changed: …, to put it back: …").
 */
export async function restoreTargetSettings(t: Target, before: TargetSettings): Promise<string[]> {
  const now = await readTargetSettings(t);
  const lines: string[] = [];
  const post = async (url: string, body?: unknown) => {
    const r = await call("POST", url, { body, timeoutMs: 30_000 });
    if (r.status !== 200) throw new Error(`POST ${url} answered HTTP ${r.status}: ${r.text.slice(0, 200)}`);
  };

  const was = before.autoDeposit;
  if (was && now.autoDeposit && was.enabled !== now.autoDeposit.enabled) {
    const url = `${t.bidderUrl}/v1/bidder/${was.enabled ? `auto_deposit/${was.amountPerWindow}` : "cancel_auto_deposit"}`;
    if (was.enabled && was.amountPerWindow === undefined)
      lines.push(
        `left changed: the bidder's auto-deposit was on and is off (its amount is unknown); to put it back: POST ${t.bidderUrl}/v1/bidder/auto_deposit/<wei>`,
      );
    else
      try {
        await post(url);
        lines.push(
          `restored: the bidder's auto-deposit ${was.enabled ? `(on, ${was.amountPerWindow} wei per window)` : "(off)"}`,
        );
      } catch (e) {
        lines.push(
          `left changed: the bidder's auto-deposit is ${was.enabled ? "off" : "on"} (${(e as Error).message}); to put it back: POST ${url}`,
        );
      }
  } else if (was && !now.autoDeposit)
    lines.push(
      `left unknown: the bidder's auto-deposit (it was ${was.enabled ? "on" : "off"}; the bidder no longer answers auto_deposit_status)`,
    );

  for (const b of before.builders ?? []) {
    const cur = now.builders?.find((x) => x.provider.toLowerCase() === b.provider.toLowerCase());
    if (!cur || (cur.mode === b.mode && cur.every === b.every)) continue;
    try {
      await post(`${t.controlUrl}/sim/v1/builder`, { provider: b.provider, mode: b.mode, every: b.every });
      lines.push(
        `restored: provider ${b.provider}'s builder mode (${b.mode}${b.every > 1 ? ` every ${b.every}` : ""}; the run left ${cur.mode})`,
      );
    } catch (e) {
      lines.push(
        `left changed: provider ${b.provider}'s builder mode is ${cur.mode}, was ${b.mode} (${(e as Error).message})`,
      );
    }
  }

  for (const r of before.running ?? []) {
    const index = /^provider-(\d+)$/.exec(r.name)?.[1];
    if (!r.running || now.running?.find((x) => x.name === r.name)?.running !== false || index === undefined) continue;
    try {
      await post(`${t.controlUrl}/sim/v1/providers/${index}/start`);
      lines.push(`restored: ${r.name} runs again (the run left it stopped)`);
    } catch (e) {
      lines.push(
        `left changed: ${r.name} is stopped (${(e as Error).message}); to start it: POST ${t.controlUrl}/sim/v1/providers/${index}/start`,
      );
    }
  }

  for (const r of before.receivers ?? []) {
    const cur = now.receivers?.find((x) => x.name === r.name);
    if (cur && cur.receivers < r.receivers)
      lines.push(
        `left changed: ${r.name} had ${r.receivers} provider application(s) attached, now ${cur.receivers}; restart the application (or the devnet, whose --auto-accept attaches one)`,
      );
  }
  return lines;
}
