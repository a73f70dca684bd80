import type { Address } from "viem";
import type { ChainClients } from "../../chain/clients.ts";
import { preconfManagerAbi } from "../../chain/contracts.ts";
import { transact } from "../../chain/transact.ts";
import { bytesToHex, bytesToPrefixedHex } from "../../protocol/bytes.ts";
import type { Commitment } from "../../protocol/types.ts";
import type { CommitmentStore } from "../../tracker/commitmentStore.ts";
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
  /** Makes the next store transaction fail (control API fault injection). */
  failNext = false;
  onStoreFailed?: (digest: string, txnHash: string, error: string) => void;

  constructor(
    private readonly c: ChainClients,
    private readonly preconfManager: Address,
    private readonly commitments: CommitmentStore,
  ) {}

  /** Records the commitment durably now; the chain transaction follows in the background. */
  record(commitment: Commitment, bidder: Address): void {
    this.commitments.insert(toRecord(commitment, bidder, "pending"));
    const p = this.store(commitment).finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }

  private async store(commitment: Commitment): Promise<void> {
    const digest = bytesToHex(commitment.digest);
    try {
      if (this.failNext) {
        this.failNext = false;
        throw new Error("transaction failed: injected fault");
      }
      await transact(
        this.c,
        {
          address: this.preconfManager,
          abi: preconfManagerAbi,
          functionName: "storeUnopenedCommitment",
          args: [bytesToPrefixedHex(commitment.digest), bytesToPrefixedHex(commitment.signature), commitment.dispatchTimestamp],
        },
        "storing commitment",
      );
      this.commitments.setStatus(digest, "stored", "");
    } catch (e) {
      const msg = (e as Error).message.replace(/^waiting for receipt: /, "");
      this.commitments.setStatus(digest, "failed", `failed to store commitment: ${msg}`);
      this.log.warn("store transaction failed", { commitment: digest, error: msg });
      this.onStoreFailed?.(digest, commitment.signedBid.txnHash, msg);
    }
  }

  /** Waits for every store transaction in flight (tests, shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
  }
}
