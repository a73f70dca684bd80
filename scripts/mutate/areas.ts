/**
 * Which part of the conformance suite exercises which part of the reference node: a mutant of a file is run against
 * the scenarios of its area's tags only (a whole-suite run per mutant would take many times longer). The longest
 * matching path wins; a path under no area runs the whole suite.
 */
export interface Area {
  /** A folder or file of the node, relative to the repository root. */
  path: string;
  /** The cucumber tag expression of the scenarios that exercise it. */
  tags: string;
}

export const AREAS: readonly Area[] = [
  { path: "node/query", tags: "@queries" },
  { path: "node/bidder/deposits", tags: "@deposits" },
  { path: "node/bidder", tags: "@bids or @deposits" },
  { path: "node/provider", tags: "@bids" },
  { path: "node/providerApp", tags: "@provider-app" },
  { path: "node/notify", tags: "@notifications" },
  { path: "node/oracle", tags: "@settlement or @decay" },
  { path: "node/protocol/bidValidation.ts", tags: "@bid-validation" },
  { path: "node/protocol/depositValidation.ts", tags: "@deposits" },
  { path: "node/protocol/decay.ts", tags: "@decay" },
  { path: "node/protocol/windows.ts", tags: "@deposits" },
];

/** Whether `path` is `area` or lies inside it (folders match whole path segments only). */
function within(path: string, area: string): boolean {
  return path === area || path.startsWith(`${area}/`);
}

/** The area of one path (normalised: no leading ./, no trailing /), or undefined when none covers it. */
export function areaOf(path: string): Area | undefined {
  const p = normalise(path);
  return AREAS.filter((a) => within(p, a.path)).sort((a, b) => b.path.length - a.path.length)[0];
}

/**
 * The tag expression that covers every path: the areas' expressions joined with "or", or undefined (the whole suite)
 * when a path lies under no area.
 */
export function tagsFor(paths: readonly string[]): string | undefined {
  const exprs: string[] = [];
  for (const p of paths) {
    const a = areaOf(p);
    if (!a) return undefined;
    if (!exprs.includes(a.tags)) exprs.push(a.tags);
  }
  if (exprs.length === 0) return undefined;
  return exprs.length === 1 ? exprs[0] : exprs.map((e) => `(${e})`).join(" or ");
}

export function normalise(path: string): string {
  return path.replace(/^\.\//, "").replace(/\/+$/, "");
}
