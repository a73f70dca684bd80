import { type Address, zeroAddress } from "viem";
import type { ChainClients } from "../../chain/clients.ts";
import { preconfManagerAbi } from "../../chain/contracts.ts";
import { transact } from "../../chain/transact.ts";
import { bytesToHex } from "../../protocol/bytes.ts";
import { UnavailableError } from "../../protocol/grpcCodes.ts";
import type { Commitment } from "../../protocol/types.ts";
import type { CommitmentStore } from "../../tracker/commitmentStore.ts";
import type { CommitmentRecord } from "../../tracker/record.ts";
import { toRecord } from "../../tracker/record.ts";
import { logger } from "../../util/log.ts";

/** First wait before a store transaction is sent again after the chain could not be reached; it doubles up to the max. */
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 15_000;

/**
 * Records each commitment the provider made and stores it on-chain with storeUnopenedCommitment, off the bid's
 * latency path (upstream answers the bidder first, then sends the transaction). Status: pending, then stored or
 * failed with `failed to store commitment: <err>`. A chain that cannot be reached fails nothing: the commitment stays
 * pending and its transaction is sent again (with back-off while the node runs, and by the next start's
 * reconciliation once it stopped).
 */
export class CommitmentStorer {
  private readonly log = logger("provider-store");
  private inflight = new Set<Promise<void>>();
  private stopped = false;
  private wake: () => void = () => {};
  private readonly stopSignal = new Promise<void>((resolve) => (this.wake = resolve));
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
    this.inBackground(() => Bun.sleep(0).then(() => this.store(commitment)), bytesToHex(commitment.digest));
  }

  /**
   * Sends the store transaction again for a recorded commitment the chain lost (restart reconciliation), in the
   * background: a start does not wait for the chain (drain waits for it).
   */
  restore(r: CommitmentRecord): void {
    this.inBackground(() => this.send(r.digest, r.commitmentSignature, r.dispatchTimestamp, r.txnHash), r.digest);
  }

  private inBackground(work: () => Promise<void>, digest: string): void {
    const p = work()
      .catch((e) => this.log.warn("store outcome not recorded", { commitment: digest, error: (e as Error).message }))
      .finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }

  private store(commitment: Commitment): Promise<void> {
    return this.send(
      bytesToHex(commitment.digest),
      bytesToHex(commitment.signature),
      commitment.dispatchTimestamp,
      commitment.signedBid.txnHash,
    );
  }

  private async send(digest: string, signature: string, dispatchTimestamp: bigint, txnHash: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
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
        return;
      } catch (e) {
        const msg = (e as Error).message.replace(/^waiting for receipt: /, "");
        if (e instanceof UnavailableError) {
          // Not the commitment's fault: it stays pending, and is sent again (a start sends every pending one).
          if (this.stopped)
            return this.log.info(
              "the settlement chain cannot be reached while stopping; the next start stores the commitment",
              { commitment: digest },
            );
          const waitMs = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (attempt - 1));
          this.log.warn("the settlement chain cannot be reached; storing the commitment again soon", {
            commitment: digest,
            attempt,
            waitMs,
          });
          if (!(await this.pause(waitMs))) return;
          if (await this.storedOnChain(digest).catch(() => false))
            return void (await this.commitments.setStatusSoon(digest, "stored", ""));
          continue;
        }
        // The chain holds this very commitment already (its index is its digest's): a transaction of this node's
        // that a restart's reconciliation did not see mined yet. Stored, not failed.
        if (/UnopenedCommitmentAlreadyExists/.test(msg)) {
          this.log.info("the chain already holds the commitment", { commitment: digest });
          return void (await this.commitments.setStatusSoon(digest, "stored", ""));
        }
        await this.commitments.setStatusSoon(digest, "failed", `failed to store commitment: ${msg}`);
        this.log.warn("store transaction failed", { commitment: digest, error: msg });
        this.onStoreFailed?.(digest, txnHash, msg);
        return;
      }
    }
  }

  /** Whether the chain holds the commitment already (a transaction whose receipt the outage hid may have been mined). */
  private async storedOnChain(digest: string): Promise<boolean> {
    const r = this.commitments.get(digest);
    if (!r) return false;
    const onChain = await this.c.publicClient.readContract({
      address: this.preconfManager,
      abi: preconfManagerAbi,
      functionName: "getUnopenedCommitment",
      args: [`0x${r.commitmentIndex}`],
    });
    return onChain.committer !== zeroAddress;
  }

  /** Waits `ms`, or less if the storer stops meanwhile; true if it still runs. */
  private async pause(ms: number): Promise<boolean> {
    await Promise.race([Bun.sleep(ms), this.stopSignal]);
    return !this.stopped;
  }

  /** No store transaction is sent again from now on (the node stops or dies): what is pending stays pending. */
  stop(): void {
    this.stopped = true;
    this.wake();
  }

  /** Waits for every store transaction in flight (tests, shutdown); one waiting to be sent again gives up at `stop`. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
  }
}
