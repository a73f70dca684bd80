import type { Address, PublicClient } from "viem";
import { blockTrackerAbi } from "../chain/contracts.ts";
import { bidderRegistryV12Abi } from "../chain/contractsV12.ts";
import { networkFaultsStatus } from "../control/networkFaultsApi.ts";
import type { BuiltInApplications, DevnetStatus, ProviderScheduleEntry } from "../control/simApi.ts";
import type { DevnetParts } from "./devnetParts.ts";
import { NO_NET_FAULTS } from "./startControl.ts";

/** What /sim/v1/status reads: the devnet's parts, its chain clients, and what it says of each provider. */
export interface StatusSource {
  readonly parts: DevnetParts;
  readonly l1Client: PublicClient;
  readonly settlementClient: PublicClient;
  scheduleEntry(provider: Address): ProviderScheduleEntry;
  builtInApplications(): BuiltInApplications;
}

/** The devnet's state as `GET /sim/v1/status` answers it. */
export async function devnetStatus(d: StatusSource): Promise<DevnetStatus> {
  const { claim, chain, oracle, nodes } = d.parts;
  const { config } = claim;
  const { chains, contracts } = chain;
  const { rules } = config;
  const [l1Block, settlementBlock, currentWindow, withdrawalPeriod] = await Promise.all([
    d.l1Client.getBlockNumber({ cacheTime: 0 }),
    d.settlementClient.getBlockNumber({ cacheTime: 0 }),
    !rules.windows
      ? null
      : d.settlementClient.readContract({
          address: contracts.blockTracker,
          abi: blockTrackerAbi,
          functionName: "getCurrentWindow",
        }),
    rules.withdrawalPeriod
      ? d.settlementClient.readContract({
          address: contracts.bidderRegistry,
          abi: bidderRegistryV12Abi,
          functionName: "bidderWithdrawalPeriodMs",
        })
      : null,
  ]);
  const { builder, directory } = oracle;
  return {
    protocol: rules.version,
    l1: {
      rpcUrl: chains.l1.rpcUrl,
      chainId: chains.l1.chainId,
      blockNumber: l1Block.toString(),
      blockTime: oracle.driver.intervalSeconds,
    },
    settlement: {
      rpcUrl: chains.settlement.rpcUrl,
      chainId: chains.settlement.chainId,
      blockNumber: settlementBlock.toString(),
    },
    currentWindow: currentWindow?.toString() ?? null,
    bidderWithdrawalPeriodMs: withdrawalPeriod?.toString() ?? null,
    bidOptionsSlash: rules.bidOptionsSlash ? config.bidOptionsSlash : null,
    lastRecordedBlock: oracle.recorder.lastRecorded().toString(),
    nextWinner: oracle.driver.schedule.peek() ?? null,
    settledCommitments: oracle.settler.settledCount,
    contracts: { ...contracts },
    validatorOptInRouter: chain.validatorRegistry ?? null,
    registeredProviders: directory.list().map((address) => ({
      address,
      builderKey: directory.builderKeyOf(address)!,
      ...d.scheduleEntry(address),
      builder: builder.modeOf(address),
      node: nodes.providerName(address) ?? null,
    })),
    postedBundles: oracle.bundles.size,
    builtInApplications: d.builtInApplications(),
    networkFaults: networkFaultsStatus(claim.netns?.faults, NO_NET_FAULTS),
    nodes: await nodes.status((p) => ({ builder: builder.modeOf(p), builderEvery: builder.everyOf(p) })),
  };
}
