/**
 * What the bidder bot knows about upcoming proposers, from its node's notifications (as upstream's bidder bot):
 * `epoch_validators_opted_in` lists every slot of an epoch with its opt-in state, `validator_opted_in` announces
 * an opted-in proposer shortly before its slot. The epoch in progress when the bot starts comes from
 * GET /v1/validator/get_validators (its notification went out before the bot subscribed).
 */

import { MevCommitError } from "../../../lib/errors.ts";
import { call } from "../../../node/clients/http.ts";
import { type AgentLog, KeptStream, stderrLog } from "../../../node/clients/keptStream.ts";
import { NdjsonStream } from "../../../node/clients/ndjson.ts";

interface Notification {
  topic: string;
  value: Record<string, unknown>;
}

export class ValidatorWatchError extends MevCommitError {}

export class ValidatorWatch {
  private readonly kept: KeptStream<Notification>;
  private opened = 0;
  private readonly optedIn = new Map<number, boolean>();
  private readonly announced = new Set<number>();
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly bidderUrl: string,
    log: AgentLog = stderrLog("validator-watch"),
  ) {
    this.kept = new KeptStream(
      () => this.open(),
      (s) => this.read(s),
      { name: "subscribe", fields: () => ({ bidder: this.bidderUrl }), log },
    );
  }

  /** Subscribes to the announcements, and subscribes again whenever the stream ends (see KeptStream). */
  subscribe(): Promise<void> {
    return this.kept.start();
  }

  private async open(): Promise<NdjsonStream<Notification>> {
    const stream = await NdjsonStream.open<Notification>("POST", `${this.bidderUrl}/v1/subscribe`, {
      topics: ["validator_opted_in", "epoch_validators_opted_in"],
    });
    if (stream.status !== 200) {
      stream.close();
      throw new ValidatorWatchError(`subscribe answered HTTP ${stream.status}`);
    }
    // Notifications sent while the stream was down are lost: the epochs' opt-in states are read again.
    if (this.opened++ > 0) void this.readEpochs().catch(() => {});
    return stream;
  }

  /** Reads the epoch in progress and the next (their epoch notifications went out before the bot started). */
  async readEpochs(): Promise<void> {
    this.optedIn.clear();
    const current = await this.epoch();
    await this.epoch(current + 1);
  }

  /** Reads GET /v1/validator/get_validators (the current epoch when none is named); answers the epoch. */
  private async epoch(epoch?: number): Promise<number> {
    const r = await call(
      "GET",
      `${this.bidderUrl}/v1/validator/get_validators${epoch === undefined ? "" : `?epoch=${epoch}`}`,
    );
    if (r.status !== 200) throw new ValidatorWatchError(`get_validators answered HTTP ${r.status}: ${r.text}`);
    const items = (r.json as { items: Record<string, { isOptedIn: boolean }> }).items;
    const slots = Object.keys(items).map(Number);
    for (const s of slots) this.optedIn.set(s, items[String(s)]!.isOptedIn);
    this.wake();
    return Math.floor(Math.min(...slots) / 32);
  }

  /** Reads notifications until the stream ends; answers how many arrived. */
  private async read(stream: NdjsonStream<Notification>): Promise<number> {
    let lines = 0;
    for (let line = await stream.next(); line !== undefined; line = await stream.next()) {
      if ("error" in line) {
        stream.endReason = `error line: ${line.error.message}`;
        stream.close();
        break;
      }
      lines++;
      const { topic, value } = line.result;
      if (topic === "epoch_validators_opted_in") {
        for (const s of value.slots as { slot: number; opted_in: boolean }[])
          this.optedIn.set(Number(s.slot), s.opted_in);
      } else if (topic === "validator_opted_in") {
        this.announced.add(Number(value.slot));
      }
      this.wake();
    }
    return lines;
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  private async until(done: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const w = () => {
          this.waiters.delete(w);
          clearTimeout(t);
          resolve();
        };
        const t = setTimeout(w, left);
        this.waiters.add(w);
      });
    }
    return true;
  }

  /**
   * Whether the proposer of `slot` is opted in. For an opted-in slot it waits for the `validator_opted_in`
   * announcement (the node sends it once the previous block is mined); answers false, with `missing`, if the
   * announcement does not come.
   */
  async isOptedIn(slot: number, timeoutMs = 5_000): Promise<{ optedIn: boolean; missing?: string }> {
    if (!(await this.until(() => this.optedIn.has(slot) || this.announced.has(slot), timeoutMs)))
      return { optedIn: false, missing: `no epoch_validators_opted_in covering slot ${slot}` };
    if (this.optedIn.get(slot) === false && !this.announced.has(slot)) return { optedIn: false };
    if (await this.until(() => this.announced.has(slot), timeoutMs)) return { optedIn: true };
    return { optedIn: false, missing: `no validator_opted_in for slot ${slot}, although its epoch lists it opted in` };
  }

  /** How many slots from `from` to `to` were announced opted in (validator_opted_in). */
  announcedBetween(from: number, to: number): number {
    return [...this.announced].filter((s) => s >= from && s <= to).length;
  }

  async stop(): Promise<void> {
    await this.kept.stop();
    this.wake();
  }
}
