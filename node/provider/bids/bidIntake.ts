import type { Address } from "viem";
import { MevCommitError } from "../../../lib/errors.ts";
import { type BidCrypto, inlineCrypto } from "../../crypto/bidCrypto.ts";
import type { CommitmentReply } from "../../network/network.ts";
import { bytesToHex } from "../../protocol/bytes.ts";
import { FailedPreconditionError, InvalidArgumentError } from "../../protocol/grpcCodes.ts";
import type { Commitment, G1Point, ProtocolDomains, SignedBid } from "../../protocol/types.ts";
import { Ahead } from "../../util/ahead.ts";
import { markBid } from "../../util/bidTrace.ts";
import { logger } from "../../util/log.ts";
import { afterThisTurnsWrites } from "../../util/queuedWrites.ts";
import type { BidderBalanceCheck } from "./balanceCheck.ts";
import type { BidDispatcher } from "./bidDispatcher.ts";

export interface BidIntakeOptions {
  privateKey: `0x${string}`;
  /** The provider's address (the signer of its commitments). */
  address: Address;
  nikeSecret: bigint;
  domains: ProtocolDomains;
  deposits: BidderBalanceCheck;
  dispatcher: BidDispatcher;
  decisionTimeoutMs: number;
  /** Where bids are verified and commitments signed (default: this thread). */
  crypto?: BidCrypto;
  /** Called with each commitment made; the reply goes to the bidder once it resolves (the commitment is durable). */
  onCommitted: (c: Commitment, bidder: Address) => Promise<void>;
}

/** A bid the provider node refused; the bidder node logs it and moves on (upstream drops it silently). */
export class BidRefusedError extends MevCommitError {}

/**
 * The provider node's handling of one bid (api-behaviour §2.2): verify the bidder's signature, reserve the bidder's
 * per-block allowance, ask the provider application, and on acceptance sign the commitment. The allowance is
 * released whenever the bid does not end in a commitment.
 */
export class BidIntake {
  private readonly log = logger("provider-bids");

  constructor(private readonly o: BidIntakeOptions) {}

  async handle(bid: SignedBid, signal: AbortSignal): Promise<CommitmentReply> {
    markBid(bid.digest, "provider.received");
    const crypto = this.o.crypto ?? inlineCrypto;
    let bidder: Address;
    try {
      bidder = await crypto.verifyBid(bid, this.o.domains.bid);
    } catch (e) {
      throw new InvalidArgumentError(`verifying bid: ${(e as Error).message}`);
    }
    markBid(bid.digest, "provider.verified");
    const release = await this.o.deposits.checkAndReserve(bidder, bid.bid.amount, bid.bid.blockNumber);
    markBid(bid.digest, "provider.reserved");
    let sharedKey: Ahead<G1Point> | undefined;
    try {
      const decided = this.o.dispatcher.process(bid, bidder, this.o.decisionTimeoutMs, signal);
      // While the application decides, the loop is free: the shared key's multiplication is done then.
      sharedKey = new Ahead(afterThisTurnsWrites(), () => crypto.sharedKey(this.o.nikeSecret, bid.bidderNikePublicKey));
      const decision = await decided;
      markBid(bid.digest, "provider.decided");
      if (!decision.accepted) throw new FailedPreconditionError("bid rejected");
      const commitment = await crypto.signCommitment({
        signedBid: bid,
        providerPrivateKey: this.o.privateKey,
        providerNikeSecret: this.o.nikeSecret,
        commitmentDomain: this.o.domains.commitment,
        dispatchTimestamp: decision.dispatchTimestamp,
        providerAddress: this.o.address,
        sharedKey: await sharedKey.take(),
      });
      markBid(bid.digest, "provider.signed");
      await this.o.onCommitted(commitment, bidder);
      markBid(bid.digest, "provider.recorded");
      this.log.debug("committed", { bid: bytesToHex(bid.digest), commitment: bytesToHex(commitment.digest), bidder });
      return {
        digest: commitment.digest,
        signature: commitment.signature,
        dispatchTimestamp: commitment.dispatchTimestamp,
      };
    } catch (e) {
      sharedKey?.drop();
      release();
      throw e;
    }
  }
}
