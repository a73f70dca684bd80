import type { Address, Hex } from "viem";
import { signBid } from "../../protocol/bidSigning.ts";
import { verifyCommitment } from "../../protocol/commitmentSigning.ts";
import { commitmentIndex } from "../../protocol/digest.ts";
import { bytesToHex } from "../../protocol/bytes.ts";
import { InternalError } from "../../protocol/grpcCodes.ts";
import type { Bid, Commitment, ProtocolDomains } from "../../protocol/types.ts";
import type { Network, ProviderPeer } from "../../network/network.ts";
import type { CommitmentStore } from "../../tracker/commitmentStore.ts";
import { toRecord } from "../../tracker/record.ts";
import { logger } from "../../util/log.ts";

export interface BidSenderOptions {
  privateKey: Hex;
  address: Address;
  domains: ProtocolDomains;
  network: Network;
  commitments: CommitmentStore;
  timeoutMs: number;
}

class BidTimeoutError extends Error {
  override name = "BidTimeoutError";
}

/**
 * SendBid on the bidder node (api-behaviour §2.1): sign the bid with a fresh BN254 key, send it to every connected
 * provider at once, verify each commitment that comes back (digest recomputed from the bid's secret and the
 * provider's NIKE key, signer recovered), record it, and hand it on in arrival order. Each provider gets at most
 * `timeoutMs`; `signal` (the client leaving) cancels them all.
 */
export class BidSender {
  private readonly log = logger("bidder-bids");

  constructor(private readonly o: BidSenderOptions) {}

  /** Fails at once (before any commitment) when no provider is connected. */
  send(bid: Bid, signal: AbortSignal): AsyncIterable<Commitment> {
    const providers = this.o.network.providers();
    if (!providers.length) throw new InternalError("error sending bid: no providers available");
    const { signedBid, nikeSecret } = signBid(bid, this.o.privateKey, this.o.domains.bid);
    const ready: Commitment[] = [];
    let wake: (() => void) | undefined;
    let pending = providers.length;
    const settle = () => {
      pending--;
      wake?.();
    };
    for (const p of providers)
      this.ask(p, signedBid, nikeSecret, signal)
        .then((c) => {
          if (c) ready.push(c);
        })
        .finally(settle);
    return (async function* () {
      for (;;) {
        const c = ready.shift();
        if (c) {
          yield c;
          continue;
        }
        if (pending === 0) return;
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
    })();
  }

  private async ask(p: ProviderPeer, signedBid: Commitment["signedBid"], nikeSecret: bigint, signal: AbortSignal): Promise<Commitment | undefined> {
    const ctrl = new AbortController();
    const onAbort = () => ctrl.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const reply = await Promise.race([
        p.handleBid(signedBid, this.o.address, ctrl.signal),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            ctrl.abort();
            reject(new BidTimeoutError(`no answer within ${this.o.timeoutMs} ms`));
          }, this.o.timeoutMs);
        }),
      ]);
      const verified = verifyCommitment({
        signedBid,
        bidderNikeSecret: nikeSecret,
        providerNikePublicKey: p.nikePublicKey,
        digest: reply.digest,
        signature: reply.signature,
        commitmentDomain: this.o.domains.commitment,
      });
      const commitment: Commitment = {
        signedBid,
        digest: reply.digest,
        signature: reply.signature,
        sharedKey: verified.sharedKey,
        dispatchTimestamp: reply.dispatchTimestamp,
        providerAddress: verified.providerAddress,
        commitmentIndex: commitmentIndex(reply.digest, reply.signature),
      };
      // Recorded before it is streamed: nothing the client saw can be lost in a crash.
      this.o.commitments.insert(toRecord(commitment, this.o.address, "pending"));
      return commitment;
    } catch (e) {
      this.log.debug("no commitment from provider", { provider: p.address, bid: bytesToHex(signedBid.digest), reason: (e as Error).message });
      return undefined;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }
}
