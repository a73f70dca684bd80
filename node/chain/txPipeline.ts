import {
  type Address,
  type Chain,
  createPublicClient,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from "viem";
import { getTransactionError } from "viem/utils";
import { privateKeyToAddress } from "../protocol/secp256k1.ts";
import { type KillSwitch, whileAlive } from "../util/killSwitch.ts";
import { logger } from "../util/log.ts";
import { localHttp } from "./localHttp.ts";
import { ReceiptWatcher } from "./receiptWatcher.ts";
import { signEip1559 } from "./signTransaction.ts";

/** A transaction to send: the fields a caller chooses; nonce, fees and chain are the pipeline's. */
export interface TxRequest {
  to: Address;
  data?: Hex;
  value?: bigint;
  gas: bigint;
}

/** After this long without a transaction the next one reads the account's nonce from the chain again. */
const IDLE_RESYNC_MS = 1_000;
/** Fees are read again at most this often. */
const FEE_REFRESH_MS = 2_000;
/** A transaction the chain has not mined after this long is looked into (StuckWatch below). */
const STUCK_AFTER_MS = 10_000;
/** The chain's answers that mean our idea of the account's nonce is wrong. */
const NONCE_TROUBLE =
  /nonce too (low|high)|already known|replacement transaction underpriced|nonce.*(lower|higher) than/i;

/**
 * One account's transactions on one chain, sent as fast as the chain takes them (issue 14): the nonce is kept
 * here, so transactions go out back to back without waiting for each other; each is signed with native secp256k1
 * (~0.1 ms; viem's own signer is pure JS); every transaction sent within SEND_WAIT_MS goes out in one JSON-RPC batch;
 * and the receipts come from the chain's blocks, one read per block for all of them (ReceiptWatcher).
 *
 * The nonce is read from the chain when the pipeline starts, after a second without transactions (something else
 * may have used the account), and after the chain refused a transaction; no nonce is handed out while it is read,
 * and a read never takes the nonce below what the chain already accepted from us (Anvil's `pending` count can lag
 * while a block is being mined). A refused transaction leaves a hole in the nonces the chain accepted after it; the
 * pipeline fills each such hole with a 0-value transfer to itself, so those later transactions are not stuck.
 */
export class TxPipeline {
  readonly address: Address;
  private next: number | undefined;
  private syncing: Promise<void> | undefined;
  private stale = true;
  private outstanding = 0;
  private lastSent = 0;
  /** The highest nonce the chain accepted from this pipeline (-1: none, or forgotten). */
  private highestAccepted = -1;
  /** Nonces handed out since the last read whose transaction the chain refused. */
  private readonly refused = new Set<number>();
  /** The next read takes the chain's nonce as it is, even if lower (the chain was reverted under us). */
  private trustChain = true;
  private readonly drainWaiters: (() => void)[] = [];
  private fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint; at: number } | undefined;
  private feeRefresh: Promise<void> | undefined;
  private readonly log = logger("txs");
  /** Transactions the chain accepted and has not mined yet, by nonce (what the stuck watch resends). */
  private readonly unmined = new Map<number, { hash: Hex; raw: Hex; sentAt: number }>();
  private stuckTimer: ReturnType<typeof setTimeout> | undefined;
  private stuckCheckFailures = 0;
  /** How long an accepted transaction may wait for a block before it is looked into; tests shorten it. */
  stuckAfterMs = STUCK_AFTER_MS;

  constructor(
    private readonly chain: Chain,
    private readonly privateKey: Hex,
    /** Sends: batches every request of a tick into one HTTP request. */
    private readonly rpc: PublicClient,
    readonly receipts: ReceiptWatcher,
  ) {
    this.address = privateKeyToAddress(privateKey);
  }

  /**
   * Signs and sends `req`; resolves with its hash once the chain accepted it (viem's errors, as sendTransaction's).
   * A sender whose `life` is killed sends nothing more and never hears back (the pipeline itself lives on, for the
   * node that restarts on the same account).
   */
  send(req: TxRequest, life?: KillSwitch): Promise<Hex> {
    return whileAlive(life, this.sendNow(req, life));
  }

  private async sendNow(req: TxRequest, life?: KillSwitch): Promise<Hex> {
    // A read of the nonce may have begun while this send waited for fees: hand out no nonce until it is done.
    do {
      if (this.syncing || this.stale || performance.now() - this.lastSent > IDLE_RESYNC_MS) await this.sync();
      await this.ensureFees();
    } while (this.syncing || this.stale);
    // Checked after the last wait and before the nonce is taken: a killed sender leaves no hole in the nonces.
    if (life?.killed) return new Promise<Hex>(() => {});
    this.lastSent = performance.now();
    const nonce = this.next!++;
    const raw = this.sign({ ...req, nonce });
    this.outstanding++;
    try {
      const hash = (await this.rpc.request({ method: "eth_sendRawTransaction", params: [raw] })) as Hex;
      this.highestAccepted = Math.max(this.highestAccepted, nonce);
      this.unmined.set(nonce, { hash, raw, sentAt: performance.now() });
      this.watchStuck();
      return hash;
    } catch (e) {
      this.refused.add(nonce);
      this.stale = true;
      // Fill the hole now rather than at the next send: with no next send, the accepted transactions after it
      // would wait forever.
      this.sync().catch((err: Error) =>
        this.log.warn("reading the nonce again failed; the next send tries again", {
          account: this.address,
          error: err.message.split("\n")[0],
        }),
      );
      const why = (e as { details?: string }).details || (e as Error).message.split("\n")[0];
      this.log.info(
        NONCE_TROUBLE.test(String((e as Error).message))
          ? "the chain refused our nonce; reading it again"
          : "the chain refused a transaction",
        { account: this.address, nonce, error: why },
      );
      throw getTransactionError(
        e as never,
        {
          account: { address: this.address, type: "json-rpc" },
          chain: this.chain,
          to: req.to,
          data: req.data,
          value: req.value,
          gas: req.gas,
        } as never,
      );
    } finally {
      this.lastSent = performance.now();
      if (--this.outstanding === 0) for (const w of this.drainWaiters.splice(0)) w();
    }
  }

  /** The next transaction reads the account's nonce from the chain again (after a test reverted the chain). */
  forgetNonce(): void {
    this.unmined.clear();
    this.stale = true;
    this.trustChain = true;
    this.highestAccepted = -1;
    this.refused.clear();
  }

  private watchStuck(): void {
    if (this.stuckTimer || !this.unmined.size) return;
    this.stuckTimer = setTimeout(
      () => {
        this.checkStuck()
          .then(() => (this.stuckCheckFailures = 0))
          .catch((e: Error) => {
            // A chain that stopped answering (a devnet that was shut down) is not watched for ever: its next send
            // reads the nonce again anyway.
            if (++this.stuckCheckFailures >= 5) this.unmined.clear();
            this.log.debug("looking into unmined transactions failed", {
              account: this.address,
              error: e.message.split("\n")[0],
              failures: this.stuckCheckFailures,
            });
          })
          .finally(() => {
            this.stuckTimer = undefined;
            this.watchStuck();
          });
      },
      Math.min(this.stuckAfterMs, 2_000),
    );
    this.stuckTimer.unref?.();
  }

  /**
   * Accepted is not mined: a chain may drop a transaction from its pool (a restart from a state dump, a pool
   * eviction, anvil_dropTransaction), and every later nonce of the account then waits behind the hole forever, which
   * no receipt timeout repairs. So the oldest unmined transaction, once it has waited `stuckAfterMs` while it is the
   * next nonce the chain expects, is looked up with those after it: unknown to the chain → sent again as they were (in
   * nonce order); still pending → logged
   * with its fees against the block's base fee. A hole with nothing of ours to resend (a refused transaction whose
   * filler was lost) gets a filler.
   */
  private async checkStuck(): Promise<void> {
    if (!this.unmined.size || this.syncing) return;
    const mined = await this.rpc.getTransactionCount({ address: this.address, blockTag: "latest" });
    for (const n of this.unmined.keys()) if (n < mined) this.unmined.delete(n);
    const oldest = Math.min(...this.unmined.keys());
    const tx = this.unmined.get(oldest);
    if (!tx || performance.now() - tx.sentAt < this.stuckAfterMs) return;
    tx.sentAt = performance.now(); // looked into once per stuckAfterMs
    if (oldest > mined) {
      this.log.warn("a nonce hole holds our transactions back; filling it", {
        account: this.address,
        from: mined,
        to: oldest - 1,
      });
      for (let n = mined; n < oldest; n++)
        await this.sendRaw(this.sign({ to: this.address, value: 0n, gas: 21_000n, nonce: n }));
      return;
    }
    // A pool that drops a transaction drops the ones queued behind it too (Anvil does): look them all up at once.
    const queue = [...this.unmined].sort(([a], [b]) => a - b);
    const known = await Promise.all(
      queue.map(([, t]) => this.rpc.request({ method: "eth_getTransactionByHash", params: [t.hash] })),
    );
    const lost = queue.filter((_, i) => known[i] === null);
    if (lost.length) {
      this.log.warn("the chain dropped transactions it had accepted; sending them again", {
        account: this.address,
        nonces: lost.map(([n]) => n).join(","),
        first: lost[0]![1].hash,
      });
      for (const [, t] of lost) await this.sendRaw(t.raw);
      return;
    }
    const block = await this.rpc.getBlock({ blockTag: "latest" });
    this.log.warn("a transaction waits for a block", {
      account: this.address,
      nonce: oldest,
      hash: tx.hash,
      waitedMs: Math.round(this.stuckAfterMs),
      maxFeePerGas: (known[0] as { maxFeePerGas?: string }).maxFeePerGas,
      baseFeePerGas: block.baseFeePerGas?.toString(),
      head: block.number?.toString(),
    });
  }

  /** Sends a signed transaction; an answer that the nonce is taken means it is there already. */
  private async sendRaw(raw: Hex): Promise<void> {
    await this.rpc.request({ method: "eth_sendRawTransaction", params: [raw] }).catch((e: Error) => {
      if (!NONCE_TROUBLE.test(e.message)) throw e;
    });
  }

  /** Resolves with the transaction's receipt once a block includes it; rejects after `timeoutMs` (never once `life` is killed). */
  receipt(hash: Hex, timeoutMs = 60_000, life?: KillSwitch): Promise<TransactionReceipt> {
    return whileAlive(life, this.receipts.wait(hash, timeoutMs));
  }

  private sign(tx: TxRequest & { nonce: number }): Hex {
    return signEip1559(
      {
        chainId: this.chain.id,
        ...tx,
        maxFeePerGas: this.fees!.maxFeePerGas,
        maxPriorityFeePerGas: this.fees!.maxPriorityFeePerGas,
      },
      this.privateKey,
    );
  }

  /** Reads the nonce again once nothing is being sent, and fills the holes a refused transaction left. */
  private sync(): Promise<void> {
    this.syncing ??= (async () => {
      try {
        while (this.outstanding > 0) await new Promise<void>((r) => this.drainWaiters.push(r));
        await this.receipts.init();
        await this.ensureFees();
        const pending = await this.rpc.getTransactionCount({ address: this.address, blockTag: "pending" });
        const highest = this.trustChain ? -1 : this.highestAccepted;
        for (const n of [...this.refused].filter((n) => n < highest).sort((a, b) => a - b)) {
          this.log.warn("filling a nonce hole left by a refused transaction", { account: this.address, nonce: n });
          // A nonce taken after all (a send that reached the chain although its answer was an error) is no hole.
          await this.sendRaw(this.sign({ to: this.address, value: 0n, gas: 21_000n, nonce: n }));
        }
        this.next = Math.max(pending, highest + 1);
        this.refused.clear();
        this.trustChain = false;
        this.stale = false;
      } finally {
        this.syncing = undefined;
      }
    })();
    return this.syncing;
  }

  /** maxFeePerGas = 2 × the latest base fee + the chain's suggested tip, read at most every 2 s. */
  private async ensureFees(): Promise<void> {
    const due = !this.fees || performance.now() - this.fees.at > FEE_REFRESH_MS;
    if (!due) return;
    this.feeRefresh ??= (async () => {
      try {
        const [block, tip] = await Promise.all([
          this.rpc.getBlock({ blockTag: "latest" }),
          this.rpc
            .request({ method: "eth_maxPriorityFeePerGas" })
            .then((v) => BigInt(v as string))
            .catch(() => 1_000_000_000n),
        ]);
        const base = block.baseFeePerGas ?? 0n;
        this.fees = { maxFeePerGas: 2n * base + tip, maxPriorityFeePerGas: tip, at: performance.now() };
      } finally {
        this.feeRefresh = undefined;
      }
    })();
    // A first read must finish; a refresh of known fees may finish in the background.
    if (!this.fees) await this.feeRefresh;
    else this.feeRefresh.catch(() => {});
  }
}

const pipelines = new Map<string, TxPipeline>();
const watchers = new Map<string, ReceiptWatcher>();
const senders = new Map<string, PublicClient>();

/** Every pipeline on the chain at `rpcUrl` reads its nonce again before its next transaction (tests' evm_revert). */
export function forgetNonces(rpcUrl: string): void {
  for (const [key, p] of pipelines) if (key.startsWith(`${rpcUrl}|`)) p.forgetNonce();
}

/**
 * The pipeline of one account on the chain at the chain's RPC URL: one per account and URL in a process, so every
 * part of a node (and of a devnet in one process) that sends from the same account shares its nonces.
 */
/**
 * Requests per JSON-RPC batch. Anvil answered "JSON is not a valid request object" (most likely its request body
 * limit) when a tick opened ~2,000 commitments at once: the batch was refused whole, nonce reads with it, and every
 * one of those commitments was slashed. Batches of 100 were never refused.
 */
const SEND_BATCH = 100;
/**
 * How long a send waits for others to share its HTTP request. Within one tick only, the two providers of a devnet
 * rarely met (at 100 bids/s 2,000 sends took ~1,670 requests, each ~0.2 ms of the event loop through viem's batch
 * scheduler); 3 ms paired them (~1,000 requests; the loop's CPU per bid 6.8–6.9 → 6.4 ms); 20 ms sends ~7 at a time
 * with one bid in flight (the loop's CPU per bid 5.5–6.0 → 5.5–5.8 ms; at 100 bids/s 6.5–6.9 → 5.9–6.6 ms, three
 * alternating pairs). A store transaction is off the bid's path and blocks come every 200 ms, so the wait costs
 * nothing a bid sees.
 */
const SEND_WAIT_MS = 20;

export function txPipelineFor(chain: Chain, privateKey: Hex): TxPipeline {
  const url = chain.rpcUrls.default.http[0]!;
  const key = `${url}|${privateKeyToAddress(privateKey).toLowerCase()}`;
  let p = pipelines.get(key);
  if (!p) {
    let rpc = senders.get(url);
    if (!rpc)
      senders.set(
        url,
        (rpc = createPublicClient({
          chain,
          transport: localHttp(url, { retryCount: 0, batch: { batchSize: SEND_BATCH, wait: SEND_WAIT_MS } }),
          cacheTime: 0,
        })),
      );
    let w = watchers.get(url);
    if (!w)
      watchers.set(
        url,
        (w = new ReceiptWatcher(createPublicClient({ chain, transport: localHttp(url), cacheTime: 0 }))),
      );
    pipelines.set(key, (p = new TxPipeline(chain, privateKey, rpc, w)));
  }
  return p;
}
