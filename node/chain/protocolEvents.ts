import type { Abi, PublicClient } from "viem";
import type { NodeStore } from "../store/db.ts";
import {
  bidderRegistryAbi,
  blockTrackerAbi,
  type ContractAddresses,
  oracleAbi,
  preconfManagerAbi,
  providerRegistryAbi,
} from "./contracts.ts";
import { EventPoller } from "./eventPoller.ts";

/** An event follower over every protocol contract, its cursor kept in `store` under `cursorKey`. */
export function protocolEventPoller(
  client: PublicClient,
  c: ContractAddresses,
  store: NodeStore | undefined,
  cursorKey = "events.cursor",
  intervalMs?: number,
): EventPoller {
  return new EventPoller({
    client,
    contracts: [
      { address: c.blockTracker, abi: blockTrackerAbi as Abi },
      { address: c.bidderRegistry, abi: bidderRegistryAbi as Abi },
      { address: c.providerRegistry, abi: providerRegistryAbi as Abi },
      { address: c.preconfManager, abi: preconfManagerAbi as Abi },
      { address: c.oracle, abi: oracleAbi as Abi },
    ],
    store,
    cursorKey,
    intervalMs,
  });
}
