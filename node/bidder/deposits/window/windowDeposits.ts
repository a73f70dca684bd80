import { FailedPreconditionError, InvalidArgumentError } from "../../../protocol/grpcCodes.ts";
import { windowBlockRange, windowOfBlock } from "../../../protocol/windows.ts";
import type { BidderDeposits } from "../bidderDeposits.ts";
import type { AutoDepositor } from "./autoDepositor.ts";
import type { DepositStore } from "./depositStore.ts";
import type { BidderRegistryClient, WindowAmount } from "./registry.ts";

/** Where a deposit goes: the explicit window, else the window of the block, else the window after the current. */
export interface WindowChoice {
  windowNumber?: bigint;
  blockNumber?: bigint;
}

export interface WindowBalance {
  window: bigint;
  deposited: bigint;
  isCurrent: boolean;
  startBlock: bigint;
  endBlock: bigint;
}

const RUNNING = "auto deposit is already running";

/**
 * The bidder's window deposits (protocol v1.1): its deposit operations with upstream's rules and error texts
 * (api-behaviour §1.3, §1.8–1.10, §4, §7). BidderService serves them on both transports.
 */
export class WindowDeposits implements BidderDeposits {
  readonly model = "window" as const;

  constructor(
    readonly registry: BidderRegistryClient,
    readonly store: DepositStore,
    readonly auto: AutoDepositor,
  ) {}

  /** Resumes auto-deposit when it ran before a restart. */
  resume(): Promise<void> {
    return this.auto.resume();
  }

  close(): void {
    this.auto.close();
  }

  async targetWindow(c: WindowChoice): Promise<bigint> {
    if (c.windowNumber !== undefined) return c.windowNumber;
    if (c.blockNumber !== undefined) return windowOfBlock(c.blockNumber);
    return (await this.registry.currentWindow()) + 1n;
  }

  async deposit(amount: bigint, c: WindowChoice): Promise<WindowAmount> {
    if (this.auto.running) throw new FailedPreconditionError(`${RUNNING}, stop and then deposit`);
    const window = await this.targetWindow(c);
    const result = await this.registry.depositForWindow(window, amount);
    this.store.addWindows([window]);
    return result;
  }

  async startAutoDeposit(amount: bigint, c: WindowChoice): Promise<{ startWindow: bigint; amount: bigint }> {
    if (this.auto.running) throw new FailedPreconditionError(RUNNING);
    const startWindow = await this.targetWindow(c);
    await this.auto.start(startWindow, amount);
    return { startWindow, amount };
  }

  async cancelAutoDeposit(withdraw: boolean): Promise<bigint[]> {
    if (!this.auto.running) throw new FailedPreconditionError("auto deposit is not running");
    return this.auto.stop(withdraw);
  }

  async status(): Promise<{ enabled: boolean; windows: WindowBalance[] }> {
    const current = await this.registry.currentWindow();
    const windows = await Promise.all(
      this.store.windows().map(async (w) => {
        const { start, end } = windowBlockRange(w);
        return {
          window: w,
          deposited: await this.registry.getDeposit(w),
          isCurrent: w === current + 1n,
          startBlock: start,
          endBlock: end,
        };
      }),
    );
    return { enabled: this.auto.running, windows };
  }

  async withdrawFromWindows(windows: bigint[]): Promise<WindowAmount[]> {
    if (this.auto.running) throw new FailedPreconditionError(`${RUNNING}, stop and then withdraw`);
    const results = await this.registry.withdrawFromWindows(windows);
    this.store.removeWindows(windows);
    return results;
  }

  async getDeposit(windowNumber?: bigint): Promise<WindowAmount> {
    const window = windowNumber ?? (await this.registry.currentWindow()) + 1n;
    return { window, amount: await this.registry.getDeposit(window) };
  }

  async withdraw(windowNumber?: bigint): Promise<WindowAmount> {
    if (this.auto.running) throw new FailedPreconditionError(`${RUNNING}, stop and then withdraw`);
    const window = windowNumber ?? (await this.registry.currentWindow()) - 1n;
    if (window < 1n) throw new InvalidArgumentError(`no closed window to withdraw from (window ${window})`);
    const result = await this.registry.withdrawFromWindow(window);
    this.store.removeWindows([window]);
    return result;
  }
}
