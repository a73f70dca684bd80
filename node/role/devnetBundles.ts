/**
 * A `--role provider` node joined to a devnet hands its bundles to the devnet's block builder. The devnet builds the
 * blocks of every provider in its winner schedule, but reads the bundles only of the nodes it runs; a provider node
 * in a process of its own posts what it committed to (`POST /sim/v1/bundles` on the devnet's control API), as a
 * foreign provider's application does, so the blocks it wins hold its commitments' transactions and they settle.
 *
 * It follows the L1 head and posts each new bundle of the next few blocks once. A commitment made in the last moment
 * before its block is mined (less than one poll) misses the block, as it would a real builder's deadline.
 *
 * With each new L1 head it also posts a heartbeat (`POST /sim/v1/heartbeat`): the devnet takes a provider it does not
 * run out of the winner schedule when it hears nothing from it for a while (node/l1/providerLiveness.ts), so that a
 * provider whose node is gone wins no blocks nobody builds; the heartbeat keeps an idle node in.
 */
import type { Address, PublicClient } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { logger } from "../util/log.ts";

export class DevnetBundleError extends MevCommitError {}

export interface DevnetBundlesOptions {
  controlUrl: string;
  l1: Pick<PublicClient, "getBlockNumber">;
  provider: Address;
  /** The node's bundles for a block, best bid first (ProviderNode.bundlesFor). */
  bundlesFor(block: bigint): string[][];
  /** How often the head and the bundles are read (ms). */
  intervalMs?: number;
  /** How many blocks after the head are looked at. */
  ahead?: number;
}

export class DevnetBundles {
  private readonly posted = new Map<bigint, Set<string>>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<unknown> | undefined;
  private beatAt: bigint | undefined;
  private beatError: string | undefined;
  private readonly log = logger("devnet-bundles");

  constructor(private readonly o: DevnetBundlesOptions) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.tick()
        .catch((e) => this.log.warn("posting bundles to the devnet failed; trying again", { error: e }))
        .finally(() => {
          this.running = undefined;
        });
    }, this.o.intervalMs ?? 100);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Posts every bundle of the blocks after the head that was not posted yet. */
  async tick(): Promise<number> {
    const head = await this.o.l1.getBlockNumber({ cacheTime: 0 });
    for (const b of this.posted.keys()) if (b <= head) this.posted.delete(b);
    if (head !== this.beatAt) {
      this.beatAt = head;
      await this.heartbeat();
    }
    let sent = 0;
    for (let block = head + 1n; block <= head + BigInt(this.o.ahead ?? 4); block++) {
      const done = this.posted.get(block) ?? new Set<string>();
      for (const bundle of this.o.bundlesFor(block)) {
        const key = bundle.join(",");
        if (done.has(key)) continue;
        await this.post(block, bundle);
        done.add(key);
        sent++;
      }
      if (done.size) this.posted.set(block, done);
    }
    return sent;
  }

  /** Tells the devnet the node is there; a failure is logged (once per message) and does not stop the bundles. */
  private async heartbeat(): Promise<void> {
    try {
      await this.postToDevnet("/sim/v1/heartbeat", { provider: this.o.provider });
      this.beatError = undefined;
    } catch (e) {
      const message = (e as Error).message;
      if (message !== this.beatError)
        this.log.warn("the devnet did not take the heartbeat; its winner schedule may leave this provider out", {
          error: message,
          controlUrl: this.o.controlUrl,
        });
      this.beatError = message;
    }
  }

  private async post(block: bigint, rawTransactions: string[]): Promise<void> {
    const body = { provider: this.o.provider, blockNumber: block.toString(), rawTransactions };
    await this.postToDevnet("/sim/v1/bundles", body, { block });
    this.log.debug("bundle posted to the devnet", { block, transactions: rawTransactions.length });
  }

  /** POSTs JSON to the devnet's control API; an answer other than 2xx is a DevnetBundleError with its text. */
  private async postToDevnet(path: string, body: unknown, context: Record<string, unknown> = {}): Promise<void> {
    const res = await fetch(`${this.o.controlUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok)
      throw new DevnetBundleError(`POST ${path} answered HTTP ${res.status}: ${text}`, {
        context: { ...context, controlUrl: this.o.controlUrl },
      });
  }
}
