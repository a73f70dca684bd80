/**
 * libp2p records a stream's protocol in the peer store each time a stream is opened or accepted
 * (`peerStore.merge(peer, { protocols: [protocol] })`, on both sides): a read of the peer's record, a protobuf
 * decode and encode and a write behind a lock, ~15 % of the CPU of a bid's hop when every bid opens a stream. After
 * the first stream of a protocol the merge changes nothing. This skips a merge that only names protocols the
 * peer's record already lists, as the last record written for that peer says; any other write goes through and
 * refreshes what is known, and a deleted peer is forgotten.
 */
import type { Peer, PeerData, PeerId, PeerStore } from "@libp2p/interface";

export function skipKnownProtocolMerges(store: PeerStore): void {
  const known = new Map<string, Peer>();
  const remember = async (id: PeerId, write: Promise<Peer>): Promise<Peer> => {
    const peer = await write;
    known.set(id.toString(), peer);
    return peer;
  };
  const merge = store.merge.bind(store);
  const patch = store.patch.bind(store);
  const save = store.save.bind(store);
  const del = store.delete.bind(store);
  store.merge = (id, data, options) => {
    const last = known.get(id.toString());
    if (last && onlyKnownProtocols(data, last)) return Promise.resolve(last);
    return remember(id, merge(id, data, options));
  };
  store.patch = (id, data, options) => remember(id, patch(id, data, options));
  store.save = (id, data, options) => remember(id, save(id, data, options));
  store.delete = (id, options) => {
    known.delete(id.toString());
    return del(id, options);
  };
}

function onlyKnownProtocols(data: PeerData, last: Peer): boolean {
  const keys = Object.keys(data).filter((k) => data[k as keyof PeerData] !== undefined);
  return (
    keys.length === 1 && keys[0] === "protocols" && (data.protocols ?? []).every((p) => last.protocols.includes(p))
  );
}
