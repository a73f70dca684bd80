import type { EventPoller } from "../../../chain/eventPoller.ts";
import { logger } from "../../../util/log.ts";
import { SerialQueue } from "../../../util/serial.ts";
import type { DepositStore } from "./depositStore.ts";
import type { BidderRegistryClient } from "./registry.ts";

/**
 * Keeps the bidder's deposit ahead of the chain: on start it deposits into the start window and the next; on each
 * NewWindow(W) it withdraws every recorded window that has closed (≤ W−1) and deposits into W+1 and W+2 where
 * nothing is deposited yet (upstream deposits only W+2; filling W+1 too covers a start in the current window).
 * The setting is stored, so a restarted node resumes it. A failing deposit or withdrawal is logged and retried at
 * the next window instead of stopping the loop (upstream stops; see docs/divergences.md).
 */
export class AutoDepositor {
  private readonly queue = new SerialQueue();
  private readonly log = logger("autodeposit");
  private unsubscribe: (() => void) | undefined;
  private withdrawAfterCancel = false;
  /** The last window BlockTracker announced while this ran (upstream's `isCurrent` is relative to it). */
  lastSeenWindow: bigint | undefined;
  private followFrom = 0n;

  constructor(
    private readonly registry: BidderRegistryClient,
    private readonly store: DepositStore,
    private readonly events: EventPoller,
  ) {
    this.unsubscribe = this.events.on("NewWindow", (e) => this.onNewWindow(e.args.window as bigint));
  }

  get running(): boolean {
    return this.store.autoDeposit() !== undefined;
  }

  get amountPerWindow(): bigint | undefined {
    return this.store.autoDeposit()?.amountPerWindow;
  }

  /** Starts depositing `amount` per window from `startWindow` on. */
  start(startWindow: bigint, amount: bigint): Promise<void> {
    return this.queue.run(async () => {
      this.withdrawAfterCancel = false;
      this.followFrom = await this.registry.currentWindow();
      await this.ensureDeposited([startWindow, startWindow + 1n], amount);
      this.store.setAutoDeposit({ amountPerWindow: amount });
      this.log.info("auto-deposit started", { startWindow, amountPerWindow: amount });
    });
  }

  /**
   * A setting given at start (a flag) wins over the one a previous run saved: a saved setting that differs from
   * `wanted` (undefined: off) is forgotten, so resume() leaves auto-deposit off and the caller starts `wanted`.
   * Answers whether a saved setting was replaced. Call it before the node starts.
   */
  replaceSaved(wanted: bigint | undefined): boolean {
    const saved = this.store.autoDeposit();
    if (!saved || saved.amountPerWindow === wanted) return false;
    this.store.setAutoDeposit(undefined);
    this.log.info("saved auto-deposit setting replaced by the start flags", {
      saved: saved.amountPerWindow,
      wanted: wanted ?? "off",
    });
    return true;
  }

  /** After a restart: catch up with windows that passed while the node was down. */
  resume(): Promise<void> {
    return this.queue.run(async () => {
      const state = this.store.autoDeposit();
      if (!state) return;
      const current = await this.registry.currentWindow();
      this.followFrom = current;
      this.log.info("auto-deposit resumed", { currentWindow: current, amountPerWindow: state.amountPerWindow });
      await this.step(current, state.amountPerWindow);
    });
  }

  /** Stops; answers the windows still on record. With `withdraw`, they are withdrawn once all have closed. */
  stop(withdraw: boolean): Promise<bigint[]> {
    return this.queue.run(async () => {
      this.store.setAutoDeposit(undefined);
      this.withdrawAfterCancel = withdraw;
      this.log.info("auto-deposit stopped", { withdraw });
      if (withdraw) {
        void this.queue.run(() => this.withdrawIfAllClosed());
        return [];
      }
      return this.store.windows();
    });
  }

  close(): void {
    this.unsubscribe?.();
  }

  private onNewWindow(window: bigint): Promise<void> {
    // Like upstream's subscription, react only to windows that begin after the start: the event follower may
    // still be handing over older NewWindow events.
    if (window <= this.followFrom) return Promise.resolve();
    this.lastSeenWindow = window;
    return this.queue.run(async () => {
      const state = this.store.autoDeposit();
      if (state) await this.step(window, state.amountPerWindow);
      else if (this.withdrawAfterCancel) await this.withdrawIfAllClosed();
    });
  }

  private async step(current: bigint, amount: bigint): Promise<void> {
    const closed = this.store.windows().filter((w) => w < current);
    if (closed.length) {
      try {
        const results = await this.registry.withdrawFromWindows(closed);
        this.store.removeWindows(closed);
        this.log.info("withdrew closed windows", {
          windows: closed.join(","),
          amount: results.reduce((s, r) => s + r.amount, 0n),
        });
      } catch (e) {
        this.log.error("withdrawing closed windows failed; retrying at the next window", {
          windows: closed.join(","),
          error: e,
        });
      }
    }
    await this.ensureDeposited([current + 1n, current + 2n], amount).catch((e) =>
      this.log.error("deposit ahead failed; retrying at the next window", { error: e }),
    );
  }

  private async ensureDeposited(windows: bigint[], amount: bigint): Promise<void> {
    const missing: bigint[] = [];
    for (const w of windows) {
      if (this.store.hasWindow(w)) continue;
      if ((await this.registry.getDeposit(w)) > 0n) {
        this.store.addWindows([w]);
        continue;
      }
      missing.push(w);
    }
    if (!missing.length) return;
    await this.registry.depositForWindows(missing, amount);
    this.store.addWindows(missing);
    this.log.info("deposited", { windows: missing.join(","), amountPerWindow: amount });
  }

  private async withdrawIfAllClosed(): Promise<void> {
    const windows = this.store.windows();
    if (!windows.length) {
      this.withdrawAfterCancel = false;
      return;
    }
    const current = await this.registry.currentWindow();
    if (windows.some((w) => w >= current)) return;
    await this.registry.withdrawFromWindows(windows);
    this.store.removeWindows(windows);
    this.withdrawAfterCancel = false;
    this.log.info("withdrew every window after cancel", { windows: windows.join(",") });
  }
}
