/**
 * Judging `isCurrent` in an auto-deposit status table, whose `current` column says "yes", "no", "yes or stale" or
 * "any".
 *
 * "any": not judged. The spec makes `isCurrent` true for the window after the last one the auto-depositor saw, and
 * after a cancel that window stays where the auto-deposit stopped, so a window that is no longer current (a closed
 * window a scenario picks) may still be marked current on upstream's node.
 *
 * "yes or stale": the window must be marked current, but a node whose auto-depositor still holds the window of an
 * earlier auto-deposit of its process (upstream keeps a window event of the last one queued and takes it as the
 * latest when the next one starts) may mark an earlier window instead. That is reported as an observation, not
 * judged; a later window, or two windows, marked current still fail.
 */
import type { Observation } from "./observations.ts";

/** The race "yes or stale" reports, named as its docs/divergences.md entry. */
export const STALE_CURRENT = "AutoDepositStatus isCurrent";

export type CurrentExpectation = "yes" | "no" | "yes or stale" | "any";

export function parseCurrentCell(cell: string | undefined): CurrentExpectation {
  if (cell === "yes" || cell === "no" || cell === "yes or stale" || cell === "any") return cell;
  throw new Error(`current must be "yes", "no", "yes or stale" or "any", not "${cell}"`);
}

export interface CurrentVerdict {
  /** Why the status fails the expectation, or null. */
  problem: string | null;
  /** For "yes or stale": whether this try saw the stale current window. */
  observation: Observation | null;
}

export function judgeCurrent(
  balances: { windowNumber: string; isCurrent: boolean }[],
  window: bigint,
  want: CurrentExpectation,
): CurrentVerdict {
  const entry = balances.find((b) => BigInt(b.windowNumber) === window);
  if (!entry) return { problem: `window ${window} is not listed`, observation: null };
  if (want === "any") return { problem: null, observation: null };
  if (want !== "yes or stale") {
    const ok = entry.isCurrent === (want === "yes");
    return { problem: ok ? null : `window ${window}: isCurrent is ${entry.isCurrent}`, observation: null };
  }
  const current = balances.filter((b) => b.isCurrent).map((b) => BigInt(b.windowNumber));
  if (current.length > 1) return { problem: `windows ${current.join(", ")} are all marked current`, observation: null };
  const stale = !entry.isCurrent;
  if (stale && current.some((c) => c > window))
    return { problem: `window ${current[0]} is marked current, later than window ${window}`, observation: null };
  const detail = stale
    ? `window ${window} not marked current; marked current: ${current.length ? current.join(", ") : "no listed window"}`
    : `window ${window} marked current`;
  return { problem: null, observation: { what: STALE_CURRENT, observed: stale, detail } };
}
