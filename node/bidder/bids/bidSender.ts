import type { Address, Hex } from "viem";
import { MevCommitError } from "../../../lib/errors.ts";
import { type BidCrypto, inlineCrypto } from "../../crypto/bidCrypto.ts";
import { isNoActiveReceivers, type Network, type ProviderPeer } from "../../network/network.ts";
import { bytesToHex } from "../../protocol/bytes.ts";
import { commitmentIndex } from "../../protocol/digest.ts";
import { InternalError } from "../../protocol/grpcCodes.ts";
import type { Bid, Commitment, ProtocolDomains } from "../../protocol/types.ts";
import type { CommitmentStore } from "../../tracker/commitmentStore.ts";
import { toRecord } from "../../tracker/record.ts";
import { bidTracing, markBid } from "../../util/bidTrace.ts";
import { logger } from "../../util/log.ts";
import type { BidOutcomeSink } from "./outcomeSink.ts";
import { REFUSAL_TEXT, type RefusalReason, refusalMessage, refusalReason } from "./refusalReason.ts";

export interface BidSenderOptions {
  privateKey: Hex;
  address: Address;
  domains: ProtocolDomains;
  network: Network;
  commitments: CommitmentStore;
  timeoutMs: number;
  /** Where the bid is signed and commitments verified (default: this thread). */
  crypto?: BidCrypto;
  /** Told each bid's outcome at every provider (the devnet's explorer). */
  outcomes?: BidOutcomeSink;
}

/** A provider's answer to one bid: its commitment, or why there is none. */
type Answer = Commitment | { provider: Address; reason: RefusalReason };

class BidTimeoutError extends MevCommitError {}

/** How often, at most, the log repeats that a provider has no application attached. */
const NO_RECEIVER_LOG_EVERY_MS = 10_000;

/**
 * SendBid on the bidder node (api-behaviour §2.1): sign the bid with a fresh BN254 key, send it to every connected
 * provider at once, verify each commitment that comes back (digest recomputed from the bid's secret and the
 * provider's NIKE key, signer recovered), record it, and hand it on in arrival order. Each provider gets at most
 * `timeoutMs`; `signal` (the client leaving) cancels them all.
 */
export class BidSender {
  private readonly log = logger("bidder-bids");
  /** Providers that answered `no active receivers`: when that was last logged, and bids since. */
  private readonly withoutReceiver = new Map<string, { loggedAt: number; bids: number }>();

  constructor(private readonly o: BidSenderOptions) {}

  /** Fails at once (before any commitment) when no provider is connected. */
  send(bid: Bid, signal: AbortSignal): AsyncIterable<Commitment> {
    const receivedAt = bidTracing() ? performance.now() : 0; // the request read, parsed and validated
    const providers = this.o.network.providers();
    if (!providers.length) throw new InternalError("error sending bid: no providers available");
    const crypto = this.o.crypto ?? inlineCrypto;
    const ready: Commitment[] = [];
    let wake: (() => void) | undefined;
    let pending = providers.length;
    const answers: Answer[] = [];
    const settle = (digest: Uint8Array) => {
      if (--pending === 0) this.logAnswers(digest, answers);
      wake?.();
    };
    const signed = crypto.signBid(bid, this.o.privateKey, this.o.domains.bid).then((s) => {
      markBid(s.signedBid.digest, "bidder.received", receivedAt);
      markBid(s.signedBid.digest, "bidder.signed");
      this.o.outcomes?.bidSent(
        s.signedBid,
        this.o.address,
        providers.map((p) => p.address),
      );
      const sentAt = performance.now();
      for (const p of providers)
        this.ask(p, s.signedBid, s.nikeSecret, signal, crypto, sentAt)
          .then((a) => {
            answers.push(a);
            if ("digest" in a) ready.push(a);
          })
          .finally(() => settle(s.signedBid.digest));
    });
    signed.catch(() => {}); // the stream below rethrows it
    return (async function* () {
      await signed;
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

  private async ask(
    p: ProviderPeer,
    signedBid: Commitment["signedBid"],
    nikeSecret: bigint,
    signal: AbortSignal,
    crypto: BidCrypto,
    sentAt: number,
  ): Promise<Answer> {
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
      markBid(signedBid.digest, "bidder.reply");
      const verified = await crypto.verifyCommitment({
        signedBid,
        bidderNikeSecret: nikeSecret,
        providerNikePublicKey: p.nikePublicKey,
        digest: reply.digest,
        signature: reply.signature,
        commitmentDomain: this.o.domains.commitment,
      });
      markBid(signedBid.digest, "bidder.verified");
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
      await this.o.commitments.record(toRecord(commitment, this.o.address, "pending"));
      markBid(signedBid.digest, "bidder.recorded");
      this.o.outcomes?.committed(signedBid, p.address, commitment, performance.now() - sentAt);
      return commitment;
    } catch (e) {
      const message = refusalMessage(e);
      const reason = refusalReason(e);
      if (isNoActiveReceivers(e)) this.noteWithoutReceiver(p.address);
      this.log.debug("no commitment from provider", {
        provider: p.address,
        bid: bytesToHex(signedBid.digest),
        reason: message,
      });
      this.o.outcomes?.refused(signedBid, p.address, reason, message, performance.now() - sentAt);
      return { provider: p.address, reason };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** One info line per bid once every provider has answered: how many committed, and why the others did not. */
  private logAnswers(digest: Uint8Array, answers: readonly Answer[]): void {
    const refused = answers.filter((a): a is Exclude<Answer, Commitment> => !("digest" in a));
    this.log.info("bid answered", {
      bid: `0x${bytesToHex(digest)}`,
      commitments: answers.length - refused.length,
      providers: answers.length,
      ...(refused.length ? { refused: refused.map((a) => `${a.provider} ${REFUSAL_TEXT[a.reason]}`).join("; ") } : {}),
    });
  }

  /** Says in the log which provider has no application attached (bids get no commitment from it), at most every 10 s. */
  private noteWithoutReceiver(provider: string): void {
    const key = provider.toLowerCase();
    const now = Date.now();
    const seen = this.withoutReceiver.get(key);
    if (seen && now - seen.loggedAt < NO_RECEIVER_LOG_EVERY_MS) {
      seen.bids++;
      return;
    }
    this.log.warn("provider has no provider application attached (no active receivers): its bids get no commitment", {
      provider,
      bids: (seen?.bids ?? 0) + 1,
    });
    this.withoutReceiver.set(key, { loggedAt: now, bids: 0 });
  }
}
