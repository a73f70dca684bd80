/**
 * The handshake's stake check (upstream StakeManager.CheckProviderRegistered): a provider may join when the
 * ProviderRegistry holds at least the minimum stake for it and no unstake request is pending. Our registry's
 * isProviderValid reverts otherwise; a failed read counts as "no" (upstream logs it and refuses too).
 */
import type { Address, PublicClient } from "viem";
import { providerRegistryAbi } from "../chain/contracts.ts";
import { logger } from "../util/log.ts";

const log = logger("p2p-stake");

export function providerStakeCheck(client: PublicClient, providerRegistry: Address): (provider: Address) => Promise<boolean> {
  return async (provider) => {
    try {
      await client.readContract({ address: providerRegistry, abi: providerRegistryAbi, functionName: "isProviderValid", args: [provider] });
      return true;
    } catch (e) {
      log.debug("provider not valid", { provider, reason: (e as Error).message.split("\n")[0] });
      return false;
    }
  };
}
