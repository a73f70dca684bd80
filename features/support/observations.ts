/**
 * Races a target may lose now and then, reported instead of judged. A scenario whose defect is a race the suite cannot
 * time from outside checks only what holds either way (its verdict) and reports the race as an observation: an
 * attachment the result collector reads into the scenario's `observations` and the result's per-race totals
 * ("observed in k of n tries"), so one build gives the same verdicts on every run.
 */

/** The attachment text that carries one observation (JSON after it). */
export const OBSERVATION_PREFIX = "observation: ";

export interface Observation {
  /** The race, named as its docs/divergences.md entry. */
  what: string;
  /** Whether this try saw the target lose it. */
  observed: boolean;
  /** What the try saw. */
  detail: string;
}

export function observationAttachment(o: Observation): string {
  return OBSERVATION_PREFIX + JSON.stringify(o);
}

/** The observation an attachment carries, or null for any other attachment. */
export function parseObservation(attachment: string): Observation | null {
  if (!attachment.startsWith(OBSERVATION_PREFIX)) return null;
  const o = JSON.parse(attachment.slice(OBSERVATION_PREFIX.length)) as Observation;
  return { what: String(o.what), observed: o.observed === true, detail: String(o.detail ?? "") };
}

/** Per race: in how many of its tries it was observed, over every scenario that reported it. */
export function observationTotals(
  scenarios: { uri: string; line: number; observations: Observation[] }[],
): { what: string; observed: number; tries: number; scenarios: string[] }[] {
  const by = new Map<string, { what: string; observed: number; tries: number; scenarios: string[] }>();
  for (const s of scenarios)
    for (const o of s.observations) {
      let t = by.get(o.what);
      if (!t) by.set(o.what, (t = { what: o.what, observed: 0, tries: 0, scenarios: [] }));
      t.tries++;
      if (o.observed) t.observed++;
      const where = `${s.uri}:${s.line}`;
      if (!t.scenarios.includes(where)) t.scenarios.push(where);
    }
  return [...by.values()];
}
