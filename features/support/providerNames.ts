/**
 * How the suite names a target's providers: "provider N", numbered from 1 in the target file's order (the numbering
 * of every feature's steps). Where the target's control API names its provider nodes (the reference devnet's banner
 * and explorer say provider-0, provider-1, …), the suite's messages add that name: "provider 1 (provider-0)".
 */
import { call } from "./clients/http.ts";
import type { Target } from "./target.ts";

let nodeNames: (string | undefined)[] = [];

/** "provider 1 (provider-0)" where the node's own name is known, else "provider 1"; `index` counts from 0. */
export function providerLabel(index: number): string {
  const name = nodeNames[index];
  return name ? `provider ${index + 1} (${name})` : `provider ${index + 1}`;
}

/** The node's own name where the control API gave it ("provider-0"); `index` counts from 0. */
export function providerNodeName(index: number): string | undefined {
  return nodeNames[index];
}

/**
 * Reads the names the target's control API gives its provider nodes, matched by address (none without
 * sim-control, or for a provider the control API does not list).
 */
export async function learnProviderNames(t: Target): Promise<void> {
  if (!t.controlUrl || !t.capabilities.includes("sim-control")) return;
  const r = await call("GET", `${t.controlUrl}/sim/v1/status`, { timeoutMs: 10_000 }).catch(() => undefined);
  const nodes = (r?.status === 200 ? (r.json as { nodes?: { name: string; role: string; address?: string }[] }) : {})
    .nodes;
  if (!nodes) return;
  nodeNames = t.providerAddresses.map(
    (a) => nodes.find((n) => n.role === "provider" && n.address?.toLowerCase() === a.toLowerCase())?.name ?? undefined,
  );
}

/** The header line that says which provider is which: "provider 1 (provider-0) http://…, provider 2 …". */
export function providersLine(t: Target): string {
  return t.providerUrls.map((u, i) => `${providerLabel(i)} ${u}`).join(", ");
}
