/**
 * The fault soak's chain record: the settlement chain's protocol events from its first block (the soak's devnet keeps
 * every block's logs: `--settlement-keep-blocks 0`), read with the contracts' ABIs, independently of the nodes.
 */
import type { Address, PublicClient } from "viem";
import { type ProtocolContractAddresses, protocolAbis } from "../../node/chain/protocolContracts.ts";
import type { ProtocolRules } from "../../node/protocol/rules.ts";
import type { ChainRecord } from "./records.ts";

const lower = (v: unknown) => String(v).toLowerCase();

export async function readChainRecord(
  client: PublicClient,
  contracts: Pick<ProtocolContractAddresses, "preconfManager" | "bidderRegistry" | "blockTracker">,
  rules: ProtocolRules,
): Promise<ChainRecord> {
  const abis = protocolAbis(rules);
  const toBlock = await client.getBlockNumber({ cacheTime: 0 });
  const events = (address: string, abi: (typeof abis)[keyof typeof abis]) =>
    client.getContractEvents({ address: address as Address, abi, fromBlock: 0n, toBlock });
  const [preconf, registry, tracker] = await Promise.all([
    events(contracts.preconfManager, abis.preconfManager),
    events(contracts.bidderRegistry, abis.bidderRegistry),
    events(contracts.blockTracker, abis.blockTracker),
  ]);
  const record: ChainRecord = { stored: [], opened: [], rewarded: [], slashed: [], winners: {} };
  for (const e of preconf) {
    const a = e.args as Record<string, unknown>;
    if (e.eventName === "UnopenedCommitmentStored")
      record.stored.push({ digest: lower(a.commitmentDigest), provider: lower(a.committer) });
    else if (e.eventName === "OpenedCommitmentStored")
      record.opened.push({
        digest: lower(a.commitmentDigest),
        provider: lower(a.committer),
        bidder: lower(a.bidder),
        txnHash: `0x${lower(a.txnHash).replace(/^0x/, "")}`,
        blockNumber: String(a.blockNumber),
      });
  }
  for (const e of registry) {
    const a = e.args as Record<string, unknown>;
    if (e.eventName === "FundsRewarded")
      record.rewarded.push({
        digest: lower(a.commitmentDigest),
        provider: lower(a.provider),
        amount: String(a.amount),
      });
    else if (e.eventName === "FundsRetrieved" || e.eventName === "FundsUnlocked")
      record.slashed.push({ digest: lower(a.commitmentDigest) });
  }
  for (const e of tracker) {
    const a = e.args as Record<string, unknown>;
    if (e.eventName === "NewL1Block") record.winners[String(a.blockNumber)] = lower(a.winner);
  }
  return record;
}
