/**
 * What the run's passes left on a target's chains that the suite cannot undo, kept for the run's result
 * (`leftOnTarget`). onChainLeftovers.ts adds the lines at the end of each pass; this module registers no hooks, so the
 * CLI can read it without loading cucumber's support code.
 */
const left: string[] = [];

export function recordLeftOnTarget(lines: string[]): void {
  left.push(...lines);
}

/** One line per thing left (empty: nothing, or the suite's own devnet, which is thrown away). */
export function leftOnTarget(): string[] {
  return [...left];
}
