/**
 * Bid-path crypto on worker threads (Bun Workers), behind the BidCrypto interface (bidCrypto.ts): each call goes
 * to the worker with the fewest calls waiting and its promise settles with the worker's answer. Errors come back
 * as the same named classes (BidVerificationError, CommitmentVerificationError), so callers cannot tell the pool
 * from `inlineCrypto`. The workers do not keep the process alive.
 */
import os from "node:os";
import type { Address } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { BidVerificationError, type SignedBidWithSecret } from "../protocol/bidSigning.ts";
import {
  CommitmentVerificationError,
  type SignCommitmentInput,
  type VerifiedCommitment,
  type VerifyCommitmentInput,
} from "../protocol/commitmentSigning.ts";
import type { Bid, Commitment, G1Point, SignedBid } from "../protocol/types.ts";
import { type BidCrypto, inlineCrypto } from "./bidCrypto.ts";

export type CryptoRequest = { id: number } & (
  | { op: "signBid"; args: [Bid, string, Uint8Array] }
  | { op: "verifyBid"; args: [SignedBid, Uint8Array] }
  | { op: "signCommitment"; args: [SignCommitmentInput] }
  | { op: "verifyCommitment"; args: [VerifyCommitmentInput] }
  | { op: "sharedKey"; args: [bigint, G1Point] }
);
export type CryptoResponse =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: { name: string; message: string } };

/** A worker of the pool died or the pool was closed with calls waiting. */
export class CryptoPoolError extends MevCommitError {}

const ERRORS: Record<string, new (message: string) => Error> = {
  BidVerificationError,
  CommitmentVerificationError,
};

function revive(e: { name: string; message: string }): Error {
  const Known = ERRORS[e.name];
  if (Known) return new Known(e.message);
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}

interface Slot {
  worker: Worker;
  waiting: Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>;
}

export class CryptoPool implements BidCrypto {
  private readonly slots: Slot[];
  private nextId = 1;
  private closed = false;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`a crypto pool needs at least one worker, got ${size}`);
    this.slots = Array.from({ length: size }, () => this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(new URL("./cryptoWorker.ts", import.meta.url).href);
    const slot: Slot = { worker, waiting: new Map() };
    worker.onmessage = (e: MessageEvent<CryptoResponse>) => {
      const w = slot.waiting.get(e.data.id);
      if (!w) return;
      slot.waiting.delete(e.data.id);
      if (e.data.ok) w.resolve(e.data.value);
      else w.reject(revive(e.data.error));
    };
    worker.onerror = (e) => this.fail(slot, new CryptoPoolError(`crypto worker failed: ${e.message}`));
    worker.unref();
    return slot;
  }

  private fail(slot: Slot, e: Error): void {
    for (const w of slot.waiting.values()) w.reject(e);
    slot.waiting.clear();
  }

  private call<T>(req: Omit<CryptoRequest, "id">): Promise<T> {
    if (this.closed) return Promise.reject(new CryptoPoolError("the crypto pool is closed"));
    let slot = this.slots[0]!;
    for (const s of this.slots) if (s.waiting.size < slot.waiting.size) slot = s;
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      slot.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      slot.worker.postMessage({ ...req, id });
    });
  }

  signBid(bid: Bid, bidderPrivateKey: string, bidDomain: Uint8Array): Promise<SignedBidWithSecret> {
    return this.call({ op: "signBid", args: [bid, bidderPrivateKey, bidDomain] });
  }

  verifyBid(signedBid: SignedBid, bidDomain: Uint8Array): Promise<Address> {
    return this.call({ op: "verifyBid", args: [signedBid, bidDomain] });
  }

  async signCommitment(input: SignCommitmentInput): Promise<Commitment> {
    const made = await this.call<Omit<Commitment, "signedBid">>({ op: "signCommitment", args: [input] });
    return { ...made, signedBid: input.signedBid };
  }

  verifyCommitment(input: VerifyCommitmentInput): Promise<VerifiedCommitment> {
    return this.call({ op: "verifyCommitment", args: [input] });
  }

  sharedKey(secret: bigint, point: G1Point): Promise<G1Point> {
    return this.call({ op: "sharedKey", args: [secret, point] });
  }

  /** Stops the workers; calls still waiting reject with CryptoPoolError. */
  close(): void {
    this.closed = true;
    for (const s of this.slots) {
      this.fail(s, new CryptoPoolError("the crypto pool is closed"));
      s.worker.terminate();
    }
  }
}

const pools = new Map<number, BidCrypto>();

/**
 * The process's bid-path crypto with `workers` worker threads, shared by every node of the process that asks for
 * the same number (the calling thread with 0).
 */
export function processCrypto(workers: number): BidCrypto {
  let c = pools.get(workers);
  if (!c) pools.set(workers, (c = workers > 0 ? new CryptoPool(workers) : inlineCrypto));
  return c;
}

/** Workers by default: one per core beyond the first (the event loop keeps one), at least one. */
export const defaultCryptoWorkers = (): number => Math.max(1, (os.availableParallelism?.() ?? os.cpus().length) - 1);
