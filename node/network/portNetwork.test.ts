import { describe, expect, test } from "bun:test";
import type { Address } from "viem";
import type { SignedBid } from "../protocol/types.ts";
import type { CommitmentReply, ProviderPeer } from "./network.ts";
import { PortNetwork } from "./portNetwork.ts";

const PROVIDER = "0x00000000000000000000000000000000000000aa" as Address;
const BIDDER = "0x00000000000000000000000000000000000000bb" as Address;
const bid = { digest: new Uint8Array([1, 2, 3]), bid: { amount: 10n } } as unknown as SignedBid;
const tick = () => new Promise((r) => setTimeout(r, 10));

function pair(): [PortNetwork, PortNetwork] {
  const { port1, port2 } = new MessageChannel();
  return [new PortNetwork([port1]), new PortNetwork([port2])];
}

function provider(handle: ProviderPeer["handleBid"]): ProviderPeer {
  return { address: PROVIDER, nikePublicKey: { x: 1n, y: 2n }, handleBid: handle };
}

describe("PortNetwork", () => {
  test("a provider announced on one side is a peer on the other, before or after the other side starts", async () => {
    const { port1, port2 } = new MessageChannel();
    const providerSide = new PortNetwork([port1]);
    providerSide.connectProvider(
      provider(async () => ({ digest: new Uint8Array(), signature: new Uint8Array(), dispatchTimestamp: 0n })),
    );
    await tick();
    const bidderSide = new PortNetwork([port2]); // joins late: its sync asks for what is there
    const events: string[] = [];
    bidderSide.onPeer((e, p) => events.push(`${e} ${p.type} ${p.address}`));
    await tick();
    expect(bidderSide.providers().map((p) => p.address)).toEqual([PROVIDER]);
    expect(bidderSide.providers()[0]!.nikePublicKey).toEqual({ x: 1n, y: 2n });
    expect(events).toEqual([`connected provider ${PROVIDER}`]);
    bidderSide.connectBidder(BIDDER);
    await tick();
    expect(providerSide.bidders()).toEqual([BIDDER]);
    providerSide.disconnectProvider(PROVIDER);
    await tick();
    expect(bidderSide.providers()).toEqual([]);
    expect(events).toEqual([`connected provider ${PROVIDER}`, `disconnected provider ${PROVIDER}`]);
    providerSide.close();
    bidderSide.close();
  });

  test("a bid crosses with its bigints and bytes and the reply comes back", async () => {
    const [providerSide, bidderSide] = pair();
    const seen: { bid: SignedBid; from: Address }[] = [];
    const reply: CommitmentReply = {
      digest: new Uint8Array([9]),
      signature: new Uint8Array([8, 7]),
      dispatchTimestamp: 123n,
    };
    providerSide.connectProvider(
      provider(async (b, from) => {
        seen.push({ bid: b, from });
        return reply;
      }),
    );
    await tick();
    const got = await bidderSide.providers()[0]!.handleBid(bid, BIDDER, new AbortController().signal);
    expect(got).toEqual(reply);
    expect(seen[0]!.from).toBe(BIDDER);
    expect(seen[0]!.bid.digest).toEqual(new Uint8Array([1, 2, 3]));
    expect(seen[0]!.bid.bid.amount).toBe(10n);
    providerSide.close();
    bidderSide.close();
  });

  test("a provider's refusal arrives with its name and message; an abort reaches the provider", async () => {
    const [providerSide, bidderSide] = pair();
    let aborted = false;
    providerSide.connectProvider(
      provider((b, _from, signal) => {
        if (b.bid.amount === 10n)
          return Promise.reject(Object.assign(new Error("no active receivers"), { name: "InternalError" }));
        return new Promise((_, reject) =>
          signal.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("aborted"));
          }),
        );
      }),
    );
    await tick();
    const peer = bidderSide.providers()[0]!;
    const refused = await peer.handleBid(bid, BIDDER, new AbortController().signal).catch((e: Error) => e);
    expect((refused as Error).name).toBe("InternalError");
    expect((refused as Error).message).toBe("no active receivers");
    const ctrl = new AbortController();
    const pending = peer
      .handleBid({ ...bid, bid: { amount: 11n } } as unknown as SignedBid, BIDDER, ctrl.signal)
      .catch((e: Error) => e);
    await tick();
    ctrl.abort();
    expect(((await pending) as Error).message).toBe("aborted");
    expect(aborted).toBe(true);
    providerSide.close();
    bidderSide.close();
  });

  test("a provider that leaves fails the bids still waiting for it at once", async () => {
    const [providerSide, bidderSide] = pair();
    providerSide.connectProvider(provider(() => new Promise(() => {})));
    await tick();
    const pending = bidderSide
      .providers()[0]!
      .handleBid(bid, BIDDER, new AbortController().signal)
      .catch((e: Error) => e);
    await tick();
    providerSide.disconnectProvider(PROVIDER);
    const failed = (await pending) as Error;
    expect(failed.name).toBe("PortPeerGoneError");
    expect(bidderSide.providers()).toEqual([]);
    providerSide.close();
    bidderSide.close();
  });
});
