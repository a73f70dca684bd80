/**
 * The handshake's stake check (upstream StakeManager.CheckProviderRegistered): a provider may join when the
 * ProviderRegistry holds at least the minimum stake for it and no unstake request is pending. Our registry's
 * isProviderValid reverts otherwise, and that revert is the only "no". A read that fails for another reason (the
 * chain busy, a call at `latest` racing the next block on a chain that keeps no past state) is tried again a few
 * times first: a refusal keeps the provider out for minutes (upstream's blocklist), so a passing hiccup must not
 * count as one. A read that still fails counts as "no" (upstream logs it and refuses too).
 */
import { type Address, BaseError, ContractFunctionRevertedError, type PublicClient } from "viem";
import { providerRegistryAbi } from "../chain/contracts.ts";
import { logger } from "../util/log.ts";

const log = logger("p2p-stake");
const TRIES = 5;
const RETRY_MS = 200;

function isRevert(e: unknown): boolean {
  return e instanceof BaseError && e.walk((x) => x instanceof ContractFunctionRevertedError) !== null;
}

export function providerStakeCheck(
  client: PublicClient,
  providerRegistry: Address,
): (provider: Address) => Promise<boolean> {
  return async (provider) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.readContract({
          address: providerRegistry,
          abi: providerRegistryAbi,
          functionName: "isProviderValid",
          args: [provider],
        });
        return true;
      } catch (e) {
        const reason = (e as Error).message.split("\n")[0];
        if (isRevert(e)) {
          log.debug("provider not valid", { provider, reason });
          return false;
        }
        if (attempt >= TRIES) {
          log.warn("cannot read the provider's stake; counted as not staked", { provider, tries: attempt, reason });
          return false;
        }
        await Bun.sleep(RETRY_MS * attempt);
      }
    }
  };
}
