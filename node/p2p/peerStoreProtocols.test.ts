import { expect, test } from "bun:test";
import type { Peer, PeerData, PeerId, PeerStore } from "@libp2p/interface";
import { skipKnownProtocolMerges } from "./peerStoreProtocols.ts";
import { peerIdOf } from "./wire/peerIdentity.ts";

/** A peer store that keeps each peer's protocols and counts the writes that reach it. */
function countingStore(): { store: PeerStore; writes: string[] } {
  const protocols = new Map<string, string[]>();
  const writes: string[] = [];
  const peer = (id: PeerId): Peer => ({ id, protocols: protocols.get(id.toString()) ?? [] }) as unknown as Peer;
  const write = (kind: string, replace: boolean) => async (id: PeerId, data: PeerData) => {
    writes.push(`${kind} ${(data.protocols ?? []).join(",")}`);
    const had = replace ? [] : (protocols.get(id.toString()) ?? []);
    protocols.set(id.toString(), [...new Set([...had, ...(data.protocols ?? [])])]);
    return peer(id);
  };
  const store = {
    merge: write("merge", false),
    patch: write("patch", true),
    save: write("save", true),
    delete: async (id: PeerId) => {
      writes.push("delete");
      protocols.delete(id.toString());
    },
  } as unknown as PeerStore;
  return { store, writes };
}

test("a merge naming only protocols the peer's record lists is skipped; any other write goes through", async () => {
  const { store, writes } = countingStore();
  skipKnownProtocolMerges(store);
  const id = peerIdOf("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
  await store.merge(id, { protocols: ["/a"] });
  for (let i = 0; i < 5; i++) await store.merge(id, { protocols: ["/a"] });
  await store.merge(id, { protocols: ["/b"] });
  await store.merge(id, { protocols: ["/a", "/b"] });
  await store.merge(id, { protocols: ["/a"], metadata: new Map([["k", new Uint8Array(1)]]) });
  await store.patch(id, { protocols: ["/c"] });
  await store.merge(id, { protocols: ["/a"] }); // the patch replaced the list: /a is unknown again
  await store.delete(id);
  await store.merge(id, { protocols: ["/a"] }); // a deleted peer is forgotten
  expect(writes).toEqual(["merge /a", "merge /b", "merge /a", "patch /c", "merge /a", "delete", "merge /a"]);
});
