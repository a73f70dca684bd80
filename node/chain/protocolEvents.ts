import type { PublicClient } from "viem";
import type { ProtocolRules } from "../protocol/rules.ts";
import type { NodeStore } from "../store/db.ts";
import type { ContractAddresses } from "./contracts.ts";
import { EventPoller } from "./eventPoller.ts";
import { protocolAbis } from "./protocolContracts.ts";

/**
 * An event follower over every protocol contract, its cursor kept in `store` under `cursorKey`. Events are decoded
 * with the ABIs of `rules`' version (v1.2: BidderDeposited per provider, NewL1Block without a window, FundsUnlocked, bid options
 * in OpenedCommitmentStored).
 */
export function protocolEventPoller(
  client: PublicClient,
  c: ContractAddresses,
  store: NodeStore | undefined,
  cursorKey: string | undefined,
  intervalMs: number | undefined,
  rules: ProtocolRules,
): EventPoller {
  const abis = protocolAbis(rules);
  return new EventPoller({
    client,
    contracts: [
      { address: c.blockTracker, abi: abis.blockTracker },
      { address: c.bidderRegistry, abi: abis.bidderRegistry },
      { address: c.providerRegistry, abi: abis.providerRegistry },
      { address: c.preconfManager, abi: abis.preconfManager },
      { address: c.oracle, abi: abis.oracle },
    ],
    store,
    cursorKey: cursorKey ?? "events.cursor",
    intervalMs,
  });
}
