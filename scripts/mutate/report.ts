/**
 * Reads Stryker's JSON report (the mutation-testing-report-schema: files → source and mutants) and words it for a
 * terminal: per file the mutants killed, survived and timed out, the mutation score, and each survivor as a diff of
 * the lines it changed.
 */

export interface Position {
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

export interface MutantResult {
  id: string;
  mutatorName: string;
  replacement?: string;
  location: { start: Position; end: Position };
  status: string;
  statusReason?: string;
}

export interface MutationReport {
  files: Record<string, { source: string; mutants: MutantResult[] }>;
}

export interface FileCounts {
  file: string;
  killed: number;
  survived: number;
  timedOut: number;
  /** No coverage, compile or runtime errors: not part of the score. */
  other: number;
  /** Left out by the configuration (excluded mutators): not tested, not counted elsewhere. */
  ignored: number;
}

export interface Survivor {
  file: string;
  mutant: MutantResult;
  diff: string;
}

/** Killed and timed out over all that ran to a verdict (Stryker's "mutation score"); undefined when none did. */
export function score(c: Pick<FileCounts, "killed" | "survived" | "timedOut">): number | undefined {
  const detected = c.killed + c.timedOut;
  const total = detected + c.survived;
  return total === 0 ? undefined : (100 * detected) / total;
}

export function countFile(file: string, mutants: readonly MutantResult[]): FileCounts {
  const c: FileCounts = { file, killed: 0, survived: 0, timedOut: 0, other: 0, ignored: 0 };
  for (const m of mutants) {
    if (m.status === "Killed") c.killed++;
    else if (m.status === "Survived") c.survived++;
    else if (m.status === "Timeout") c.timedOut++;
    else if (m.status === "Ignored") c.ignored++;
    else c.other++;
  }
  return c;
}

/** The lines a mutant touches, before ("-") and after ("+"), each prefixed by its line number. */
export function mutantDiff(source: string, m: MutantResult): string {
  const lines = source.split("\n");
  const { start, end } = m.location;
  const before = lines.slice(start.line - 1, end.line);
  const head = (lines[start.line - 1] ?? "").slice(0, start.column - 1);
  const tail = (lines[end.line - 1] ?? "").slice(end.column - 1);
  const after = `${head}${m.replacement ?? ""}${tail}`.split("\n");
  const width = String(start.line + Math.max(before.length, after.length)).length;
  const num = (i: number) => String(start.line + i).padStart(width);
  return [...before.map((l, i) => `- ${num(i)} ${l}`), ...after.map((l, i) => `+ ${num(i)} ${l}`)].join("\n");
}

export interface Summary {
  files: FileCounts[];
  total: FileCounts;
  survivors: Survivor[];
}

export function summarise(report: MutationReport): Summary {
  const files = Object.entries(report.files)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([file, f]) => countFile(file, f.mutants));
  const total: FileCounts = { file: "total", killed: 0, survived: 0, timedOut: 0, other: 0, ignored: 0 };
  for (const f of files) {
    total.killed += f.killed;
    total.survived += f.survived;
    total.timedOut += f.timedOut;
    total.other += f.other;
    total.ignored += f.ignored;
  }
  const survivors: Survivor[] = [];
  for (const [file, f] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b)))
    for (const m of [...f.mutants].sort((a, b) => a.location.start.line - b.location.start.line))
      if (m.status === "Survived") survivors.push({ file, mutant: m, diff: mutantDiff(f.source, m) });
  return { files, total, survivors };
}

function percent(c: FileCounts): string {
  const s = score(c);
  return s === undefined ? "—" : `${s.toFixed(1)}%`;
}

/** The table of counts per file and the survivors' diffs, as printed at the end of a run. */
export function summaryText(s: Summary): string {
  const nameWidth = Math.max(5, ...s.files.map((f) => f.file.length));
  const row = (f: FileCounts) =>
    `${f.file.padEnd(nameWidth)}  ${[f.killed, f.survived, f.timedOut, f.other].map((n) => String(n).padStart(9)).join("  ")}  ${percent(f).padStart(6)}`;
  const out = [
    `${"file".padEnd(nameWidth)}  ${["killed", "survived", "timed out", "other"].map((h) => h.padStart(9)).join("  ")}  ${"score".padStart(6)}`,
    ...s.files.map(row),
    row(s.total),
  ];
  if (s.survivors.length) {
    out.push("", `${s.survivors.length} survivor(s):`);
    for (const v of s.survivors)
      out.push(
        "",
        `${v.file}:${v.mutant.location.start.line}:${v.mutant.location.start.column} ${v.mutant.mutatorName} (mutant ${v.mutant.id})`,
        v.diff,
      );
  }
  const t = s.total;
  out.push(
    "",
    `mutate: ${t.killed} killed, ${t.survived} survived, ${t.timedOut} timed out, ${t.other} other${t.ignored ? ` (${t.ignored} ignored)` : ""}; score ${percent(t)}`,
  );
  return out.join("\n");
}
