import { type Address, parseEventLogs } from "viem";
import type { ChainClients } from "../chain/clients.ts";
import { providerRegistryAbi } from "../chain/contracts.ts";
import { transact } from "../chain/transact.ts";
import { InternalError } from "../protocol/grpcCodes.ts";

/**
 * ClaimSlashedFunds (api-behaviour §7): withdraws what slashed providers owe this bidder
 * (ProviderRegistry.bidderSlashedAmount) with withdrawSlashedAmount, and answers the amount in wei. With nothing to
 * claim it answers 0 without sending a transaction (which would revert with BidderAmountIsZero).
 */
export async function claimSlashedFunds(c: ChainClients, providerRegistry: Address): Promise<bigint> {
  let owed: bigint;
  try {
    owed = await c.publicClient.readContract({
      address: providerRegistry,
      abi: providerRegistryAbi,
      functionName: "bidderSlashedAmount",
      args: [c.account.address],
    });
  } catch (e) {
    throw new InternalError(`getting slashed amount: ${(e as Error).message.split("\n")[0]}`, { cause: e });
  }
  if (owed === 0n) return 0n;
  const receipt = await transact(
    c,
    { address: providerRegistry, abi: providerRegistryAbi, functionName: "withdrawSlashedAmount" },
    "withdrawing slashed amount",
  );
  const log = parseEventLogs({
    abi: providerRegistryAbi,
    eventName: "BidderWithdrawSlashedAmount",
    logs: receipt.logs,
  })[0];
  if (!log) throw new InternalError("missing log for slashed amount withdrawal");
  return log.args.amount;
}
