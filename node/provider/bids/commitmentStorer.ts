import type { Address } from "viem";
import type { ChainClients } from "../../chain/clients.ts";
import { preconfManagerAbi } from "../../chain/contracts.ts";
import { transact } from "../../chain/transact.ts";
import { bytesToHex } from "../../protocol/bytes.ts";
import type { Commitment } from "../../protocol/types.ts";
import type { CommitmentStore } from "../../tracker/commitmentStore.ts";
import type { CommitmentRecord } from "../../tracker/record.ts";
import { toRecord } from "../../tracker/record.ts";
import { logger } from "../../util/log.ts";

/**
 * Records each commitment the provider made and stores it on-chain with storeUnopenedCommitment, off the bid's
 * latency path (upstream answers the bidder first, then sends the transaction). Status: pending, then stored or
 * failed with `failed to store commitment: <err>`.
 */
export class CommitmentStorer {
  private readonly log = logger("provider-store");
  private inflight = new Set<Promise<void>>();
  /** Makes the next store transaction fail on-chain (control API fault injection). */
  failNext = false;
  onStoreFailed?: (digest: string, txnHash: string, error: string) => void;

  constructor(
    private readonly c: ChainClients,
    private readonly preconfManager: Address,
    private readonly commitments: CommitmentStore,
  ) {}

  /** Records the commitment durably (resolves once committed); the chain transaction follows in the background. */
  async record(commitment: Commitment, bidder: Address): Promise<void> {
    await this.commitments.record(toRecord(commitment, bidder, "pending"));
    // A node killed while the transaction is in flight (sim-kill, a crash test) has closed its store: the outcome
    // cannot be recorded, and the restart's reconciliation sends the transaction again. Nothing is left unhandled.
    // The transaction starts once the reply is on its way: a timer runs after the event loop has written the bytes
    // queued before it, so signing and sending it (~0.3 ms) is not on the first commitment's path.
    const p = Bun.sleep(0)
      .then(() => this.store(commitment))
      .catch((e) => this.log.warn("store outcome not recorded", { commitment: bytesToHex(commitment.digest), error: (e as Error).message }))
      .finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }

  /** Sends the store transaction again for a recorded commitment the chain lost (restart reconciliation). */
  async restore(r: CommitmentRecord): Promise<void> {
    await this.send(r.digest, r.commitmentSignature, r.dispatchTimestamp, r.txnHash);
  }

  private store(commitment: Commitment): Promise<void> {
    return this.send(bytesToHex(commitment.digest), bytesToHex(commitment.signature), commitment.dispatchTimestamp, commitment.signedBid.txnHash);
  }

  private async send(digest: string, signature: string, dispatchTimestamp: bigint, txnHash: string): Promise<void> {
    try {
      // Fault injection sends a real transaction that the chain rejects (a dispatch time of 0, as upstream's
      // provider emulator does): the failure path is the real one.
      const dispatch = this.failNext ? 0n : dispatchTimestamp;
      this.failNext = false;
      await transact(
        this.c,
        {
          address: this.preconfManager,
          abi: preconfManagerAbi,
          functionName: "storeUnopenedCommitment",
          args: [`0x${digest}`, `0x${signature}`, dispatch],
        },
        "storing commitment",
      );
      await this.commitments.setStatusSoon(digest, "stored", "");
    } catch (e) {
      const msg = (e as Error).message.replace(/^waiting for receipt: /, "");
      await this.commitments.setStatusSoon(digest, "failed", `failed to store commitment: ${msg}`);
      this.log.warn("store transaction failed", { commitment: digest, error: msg });
      this.onStoreFailed?.(digest, txnHash, msg);
    }
  }

  /** Waits for every store transaction in flight (tests, shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
  }
}
