/**
 * After a run: reads what the nodes' APIs and the settlement chain say, computes the summary and writes the
 * report folder (index.html, summary.json, events.csv).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Address, createPublicClient } from "viem";
import { localHttp } from "../../../node/chain/localHttp.ts";
import type { SimEnvironment } from "../run/environment.ts";
import type { RunEvent, RunLog } from "../run/runLog.ts";
import { bidInfo, type RunResult } from "../run/simulation.ts";
import { readLedger } from "./chainLedger.ts";
import { renderHtml } from "./html.ts";
import { type Summary, summarise } from "./summary.ts";

const CSV_COLUMNS: (keyof RunEvent)[] = ["t", "step", "block", "kind", "actor", "amount", "detail"];

function csvCell(v: unknown): string {
  const text = String(v);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function eventsCsv(events: RunEvent[]): string {
  return `${[CSV_COLUMNS.join(","), ...events.map((e) => CSV_COLUMNS.map((c) => csvCell(e[c])).join(","))].join("\n")}\n`;
}

/** Gathers the nodes' and the chain's view of the run and computes its summary. */
export async function collect(run: RunResult, env: SimEnvironment, log: RunLog, file: string): Promise<Summary> {
  const settlement = createPublicClient({ transport: localHttp(env.target.settlementRpcUrl), cacheTime: 0 });
  const contracts = env.target.contracts as { bidderRegistry: Address; providerRegistry: Address };
  const ledger = await readLedger(
    settlement,
    contracts,
    run.before,
    run.nodes.providers.map((p) => p.address),
    run.nodes.bidders.slice(0, run.bidders.length).map((b) => b.address),
    env.rules,
  );
  const bidders = [];
  for (const b of run.bidders)
    bidders.push({
      name: b.name,
      address: b.address,
      deposits: b.deposits,
      withdrawals: b.withdrawals,
      providerDeposits: b.providerDeposits,
      bidInfo: await bidInfo(b.url),
    });
  return summarise({
    scenario: run.scenario,
    file,
    environment: run.environment,
    rules: env.rules,
    interrupted: run.interrupted,
    error: run.error,
    stepsDone: run.stepsDone,
    firstBlock: run.firstBlock,
    mined: run.mined,
    providers: run.scenario.providers.map((p, i) => ({ name: p.name, address: run.nodes.providers[i]!.address })),
    bidders,
    bids: log.bids,
    decisions: run.decisions,
    ledger,
    validators: run.validators,
    bots: run.bots,
    warnings: log.warnings,
    timing: { startedAt: new Date(log.started).toISOString(), durationMs: Date.now() - log.started },
  });
}

/** Writes index.html, summary.json and events.csv into `dir`. */
export function writeReport(dir: string, summary: Summary, log: RunLog): void {
  mkdirSync(dir, { recursive: true });
  const events = [...log.events];
  for (const c of summary.commitments)
    events.push({
      t: summary.timing.durationMs,
      step: "",
      block: c.block,
      kind: c.status === "slashed" ? "slashed" : c.status === "settled" ? "settled" : "failed",
      actor: c.provider,
      amount: c.status === "slashed" ? c.slashed : c.payment,
      detail: `${c.status}; bid ${c.bidAmount} from ${c.bidder}, dispatched at ${c.dispatchAt} of the decay window`,
    });
  writeFileSync(join(dir, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
  writeFileSync(join(dir, "events.csv"), eventsCsv(events));
  writeFileSync(join(dir, "index.html"), renderHtml(summary));
}
