import type { Address } from "viem";

/** Who a node sees over the network: the providers it can send bids to, the bidders it has a key from. */
export interface MeshView {
  address: Address;
  providers: Address[];
  bidders: Address[];
}

/** What a node's network sees (a Libp2pNetwork: its own address, the providers it reaches, the bidders it has keys from). */
export function meshViewOf(n: {
  address: Address;
  providers(): { address: Address }[];
  bidders(): Address[];
}): MeshView {
  return { address: n.address, providers: n.providers().map((p) => p.address), bidders: n.bidders() };
}

const has = (list: Address[], a: Address) => list.some((x) => x.toLowerCase() === a.toLowerCase());

/**
 * True once the bidder sees every `expected` provider and no stopped one, and each expected provider sees the
 * bidder, the other expected providers and no stopped one (running providers without stake are neither: every
 * peer refuses them). One rule for the in-process libp2p mesh and for nodes in processes of their own.
 */
export function meshSettled(
  bidder: MeshView,
  providers: { address: Address; expected: boolean; running: boolean; view?: MeshView }[],
): boolean {
  const up = providers.filter((p) => p.expected);
  const down = providers.filter((p) => !p.running);
  if (!up.every((p) => has(bidder.providers, p.address)) || down.some((p) => has(bidder.providers, p.address)))
    return false;
  return up.every(
    (n) =>
      n.view !== undefined &&
      has(n.view.bidders, bidder.address) &&
      up.every((m) => m === n || has(n.view!.providers, m.address)) &&
      !down.some((m) => has(n.view!.providers, m.address)),
  );
}
