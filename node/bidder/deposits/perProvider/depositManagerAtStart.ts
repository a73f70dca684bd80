import { MevCommitError } from "../../../../lib/errors.ts";
import { RpcError } from "../../../protocol/grpcCodes.ts";
import type { Logger } from "../../../util/log.ts";
import type { PerProviderDeposits } from "./perProviderDeposits.ts";

/** SetTargetDeposits set fewer targets than there are valid providers. */
export class TargetDepositsNotSetError extends MevCommitError {}

/**
 * A v1.2 bidder's `--enable-deposit-manager` (upstream v1.2.5, upstream-head-delta §4.1), run once the node serves:
 * EnableDepositManager (already enabled is fine), then with `--target-deposit-amount` a target of that amount toward
 * every valid provider (GetValidProviders, SetTargetDeposits), which tops each deposit up to it at once. As upstream,
 * a failure is logged and the node keeps running; answers whether every step succeeded.
 */
export async function enableDepositManagerAtStart(
  deposits: PerProviderDeposits,
  target: bigint | undefined,
  log: Pick<Logger, "info" | "error">,
): Promise<boolean> {
  try {
    try {
      await deposits.enableDepositManager();
      log.info("deposit manager enabled");
    } catch (e) {
      if (!(e instanceof RpcError && /deposit manager is already enabled/.test(e.message))) throw e;
      log.info("deposit manager already enabled");
    }
    if (target === undefined) return true;
    const { validProviders } = await deposits.getValidProviders();
    log.info("valid providers who'll be deposited to", { providers: validProviders });
    const set = await deposits.setTargetDeposits({
      targetDeposits: validProviders.map((provider) => ({ provider, targetDeposit: target.toString() })),
    });
    if (set.successfullySetDeposits.length < validProviders.length)
      throw new TargetDepositsNotSetError("failed to set target deposit amount for all valid providers", {
        context: { validProviders, set: set.successfullySetDeposits.length },
      });
    log.info("target deposit amount set for all valid providers", {
      amount: target.toString(),
      toppedUp: set.successfullyToppedUpProviders,
    });
    return true;
  } catch (e) {
    log.error("failed to handle the --enable-deposit-manager flag", { error: (e as Error).message });
    return false;
  }
}
