/**
 * What a run of the suite changed on a target that it did not start (the devnet's own L1 blocks paused, its built-in
 * provider applications detached, the bidder's auto-deposit stopped, and the settings scenarios change), recorded
 * in a file next to the target file for as long as the run lasts: `target.json` → `target.suite-changes.json`.
 *
 * The run puts everything back at its end, and on SIGINT or SIGTERM (features/cli/conformance.ts); a run killed
 * harder (SIGKILL, a crash, the machine) leaves the record, and the next run of the suite and `npm run bid` put back
 * what it lists before anything else (putBack). Putting back compares with what the target answers now, so it is
 * harmless on a target that a restart already reset.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { MevCommitError } from "../../lib/errors.ts";
import { call } from "./clients/http.ts";
import type { Target } from "./target.ts";
import { restoreTargetSettings, type TargetSettings } from "./targetSettings.ts";

export class TargetChangesError extends MevCommitError {}

/** A change the preflight makes, in words a later process can undo. */
export type ArrangedChange =
  /** The devnet mined an L1 block every `blockTime` s on its own; paused (0) for the run. */
  | { kind: "l1-block-time"; blockTime: number }
  /** The devnet's `count` built-in provider applications were attached; detached for the run. */
  | { kind: "built-in-applications"; count: number };

export interface ChangeRecord {
  /** The process of the run that wrote it: a record of a process that still runs belongs to a run in progress. */
  pid: number;
  startedAt: string;
  target: { name: string; bidderUrl: string; controlUrl?: string };
  arranged: ArrangedChange[];
  /** The settings as the run found them (auto-deposit, builder modes, provider nodes running); bigints as text. */
  settings?: TargetSettings;
}

/** Where a target file's record lives: next to it, `<name>.suite-changes.json`. */
export function recordPathFor(targetFile: string): string {
  return join(dirname(targetFile), `${basename(targetFile).replace(/\.json$/i, "")}.suite-changes.json`);
}

const toJson = (r: ChangeRecord) => `${JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? v.toString() : v), 2)}\n`;

/** The record next to a target file, or undefined when there is none. A record that does not parse is an error. */
export function readRecord(path: string): ChangeRecord | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const r = JSON.parse(readFileSync(path, "utf8")) as ChangeRecord;
    const amount = r.settings?.autoDeposit?.amountPerWindow as unknown;
    if (r.settings?.autoDeposit && typeof amount === "string") r.settings.autoDeposit.amountPerWindow = BigInt(amount);
    return r;
  } catch (e) {
    throw new TargetChangesError(`cannot read ${path} (${(e as Error).message.split("\n")[0]}); delete it`);
  }
}

/**
 * Whether the process that wrote a record still runs: its pid is alive and, where /proc tells, is still a run of the
 * suite (a pid the system gave to another program since is not).
 */
export function writerRuns(r: ChangeRecord): boolean {
  if (r.pid === process.pid) return false;
  try {
    process.kill(r.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  try {
    return /conformance|cucumber/.test(readFileSync(`/proc/${r.pid}/cmdline`, "utf8"));
  } catch {
    return true;
  }
}

/**
 * The changes a record lists, in a few words each ("L1 blocks paused", "auto-deposit off", …); builder modes and
 * stopped provider nodes, which scenarios change and put back themselves, are checked by putBack but not named.
 */
export function describeRecord(r: ChangeRecord): string[] {
  const words: string[] = r.arranged.map((c) =>
    c.kind === "l1-block-time" ? "L1 blocks paused" : "the built-in provider applications detached",
  );
  if (r.settings?.autoDeposit?.enabled) words.push("auto-deposit off");
  return words;
}

type ControlStatus = {
  l1?: { blockTime?: number };
  builtInApplications?: { attached: boolean; count: number };
  nodes?: { role: string; receivers?: number }[];
};

async function controlStatus(t: Pick<Target, "controlUrl">): Promise<ControlStatus> {
  const r = await call("GET", `${t.controlUrl}/sim/v1/status`, { timeoutMs: 10_000 });
  if (r.status !== 200) throw new TargetChangesError(`GET /sim/v1/status answered HTTP ${r.status}`);
  return r.json as ControlStatus;
}

async function post(url: string, body: unknown): Promise<void> {
  const r = await call("POST", url, { body, timeoutMs: 30_000 });
  if (r.status !== 200) throw new TargetChangesError(`POST ${url} answered HTTP ${r.status}: ${r.text.slice(0, 200)}`);
}

/**
 * Puts back what a record lists and the target does not show now; answers one line per item it restored or could
 * not ("left changed: …"). The built-in applications count as back once every provider node has one reading again.
 */
export async function putBack(t: Target, r: ChangeRecord): Promise<string[]> {
  const lines: string[] = [];
  for (const c of [...r.arranged].reverse()) {
    try {
      if (c.kind === "l1-block-time") {
        if ((await controlStatus(t)).l1?.blockTime === c.blockTime) continue;
        await post(`${t.controlUrl}/sim/v1/l1`, { blockTime: c.blockTime });
        lines.push(`restored: the devnet's own L1 blocks (one every ${c.blockTime} s)`);
      } else {
        if ((await controlStatus(t)).builtInApplications?.attached !== false) continue;
        await post(`${t.controlUrl}/sim/v1/responders`, { attached: true });
        for (const until = Date.now() + 15_000; Date.now() < until; await Bun.sleep(200)) {
          const providers = ((await controlStatus(t)).nodes ?? []).filter((n) => n.role === "provider");
          if (providers.every((n) => n.receivers === undefined || n.receivers > 0)) break;
        }
        lines.push(`restored: the devnet's built-in provider applications (${c.count}) attached`);
      }
    } catch (e) {
      const what =
        c.kind === "l1-block-time"
          ? `the devnet's own L1 blocks are paused; to put them back: POST ${t.controlUrl}/sim/v1/l1 {"blockTime":${c.blockTime}}`
          : `the devnet's built-in provider applications are detached; to put them back: POST ${t.controlUrl}/sim/v1/responders {"attached":true}`;
      lines.push(`left changed: ${what} (${(e as Error).message.split("\n")[0]})`);
    }
  }
  if (r.settings) {
    const restore = () =>
      restoreTargetSettings(t, r.settings!).catch((e: Error) => [
        `left unknown: the target's settings (${e.message.split("\n")[0]})`,
      ]);
    let settings = await restore();
    // A node busy with the run's last requests may not answer a read in time: once more, a moment later.
    if (settings.some((l) => l.startsWith("left unknown"))) settings = await Bun.sleep(2_000).then(restore);
    lines.push(...settings);
  }
  return lines;
}

/**
 * What an earlier run left changed on the target of `targetFile`, put back and its record removed: the lines say
 * what was restored; undefined when no record is there. A record of a run still in progress is a TargetChangesError
 * that says so (two runs on one target would undo each other's changes).
 */
export async function putBackLeftChanges(
  targetFile: string,
  t: Target,
): Promise<{ record: ChangeRecord; lines: string[] } | undefined> {
  const path = recordPathFor(targetFile);
  const record = readRecord(path);
  if (!record) return undefined;
  if (writerRuns(record))
    throw new TargetChangesError(
      `a run of the conformance suite (pid ${record.pid}, since ${record.startedAt}) is changing this target (${describeRecord(record).join(", ") || "nothing yet"}): wait for it to end, or stop it with Ctrl-C, which puts everything back`,
    );
  const lines = await putBack(t, record);
  if (!lines.some((l) => l.startsWith("left changed"))) rmSync(path, { force: true });
  return { record, lines };
}

// ------------------------------------------------------------------------------------------- this run's record

let interruptedBy: string | undefined;

/** The run is stopping on a signal: no scenario starts and nothing more is changed on the target. */
export function markInterrupted(signal: string): void {
  interruptedBy = signal;
}

/** The signal that is stopping the run, if one is. */
export function interrupted(): string | undefined {
  return interruptedBy;
}

let current: { path: string; record: ChangeRecord } | undefined;

function save(): void {
  if (current) writeFileSync(current.path, toJson(current.record));
}

/**
 * Starts this run's record for a target file, written at once (an empty one says a run is in progress). Answers a
 * line to print when it cannot be written where it belongs (the run goes on; a SIGKILL would then leave no record).
 */
export function startRecord(targetFile: string, t: Target): string | undefined {
  const path = recordPathFor(targetFile);
  current = {
    path,
    record: {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      target: { name: t.name, bidderUrl: t.bidderUrl, controlUrl: t.controlUrl },
      arranged: [],
    },
  };
  try {
    save();
    return undefined;
  } catch (e) {
    current = undefined;
    return `cannot write ${path} (${(e as Error).message.split("\n")[0]}): a run killed with SIGKILL would leave the target changed without a record`;
  }
}

/**
 * Before a run changes anything on the target of `targetFile`: puts back what an earlier run left changed (and says
 * so through `log`), then starts this run's record. A record it cannot put back in full is a TargetChangesError.
 */
export async function beginRecord(targetFile: string, t: Target, log: (line: string) => void): Promise<void> {
  const left = await putBackLeftChanges(targetFile, t);
  if (left) {
    log(
      `An earlier run of the suite was stopped before it put back what it changed on this target (${describeRecord(left.record).join(", ") || "nothing yet"}; ${recordPathFor(targetFile)}):${left.lines.length ? "" : " it is as it was"}`,
    );
    for (const line of left.lines) log(`  ${line}`);
    const stuck = left.lines.filter((l) => !l.startsWith("restored"));
    if (stuck.length)
      throw new TargetChangesError(
        `the target is still changed by an earlier run of the suite (${stuck.join("; ")}); put it back or restart the devnet, then delete ${recordPathFor(targetFile)}`,
      );
  }
  const warning = startRecord(targetFile, t);
  if (warning) log(warning);
}

/** Notes a change the preflight is about to make (written before the change, so that a kill cannot skip it). */
export function noteArranged(c: ArrangedChange): void {
  if (!current) return;
  current.record.arranged.push(c);
  save();
}

/** Notes the settings as the run found them, before the run changes any. The first noted wins. */
export function noteSettings(s: TargetSettings): void {
  if (!current || current.record.settings) return;
  current.record.settings = s;
  save();
}

/** This run's record, if it keeps one. */
export function currentRecord(): { path: string; record: ChangeRecord } | undefined {
  return current;
}

/** Ends this run's record: everything was put back (or said to be left changed). */
export function endRecord(): void {
  if (current) rmSync(current.path, { force: true });
  current = undefined;
}
