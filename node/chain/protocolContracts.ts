/**
 * The settlement-chain contracts of each protocol version: their ABIs and how to deploy them. v1.1's
 * (contracts.ts, deploy.ts) keep window deposits; v1.2's (contractsV12.ts, deployV12.ts) have deposits per (bidder,
 * provider), the EIP-7702 deposit manager, bid options in the opened commitment and a BlockTracker without windows.
 *
 * Calls whose ABI is the same in both versions (storeUnopenedCommitment, getUnopenedCommitment, getBlockWinner,
 * recordL1Block, processBuilderCommitmentForBlockNumber, the provider registry's) keep v1.1's typed ABI wherever they
 * are made; what differs is chosen here by version.
 */
import type { Abi, Address } from "viem";
import type { ProtocolVersion } from "../protocol/protocolVersion.ts";
import type { ProtocolRules } from "../protocol/rules.ts";
import { ABI_BY_KEY, type ContractAddresses, V12_ABI_BY_KEY } from "./contracts.ts";
import { type DeployParams, deployContracts } from "./deploy.ts";
import { type DeployV12Params, deployV12Contracts } from "./deployV12.ts";

/** A deployment's addresses; v1.2's add the deposit manager that bidder accounts delegate to. */
export interface ProtocolContractAddresses extends ContractAddresses {
  /** v1.2 only: the DepositManager implementation (BidderRegistry.depositManagerImpl). */
  depositManager?: Address;
}

/** The ABIs of one version's five protocol contracts, keyed like `ContractAddresses`. */
export type ProtocolAbis = Readonly<Record<keyof ContractAddresses, Abi>>;

const ABIS_OF: Readonly<Record<ProtocolVersion, ProtocolAbis>> = { "v1.1": ABI_BY_KEY, "v1.2": V12_ABI_BY_KEY };

export function protocolAbis(rules: ProtocolRules): ProtocolAbis {
  return ABIS_OF[rules.version];
}

type Deploy = (opts: Omit<DeployProtocolOptions, "rules">) => Promise<ProtocolContractAddresses>;
const DEPLOY_OF: Readonly<Record<ProtocolVersion, Deploy>> = { "v1.1": deployContracts, "v1.2": deployV12Contracts };

export interface DeployProtocolOptions {
  rules: ProtocolRules;
  rpcUrl: string;
  chainId: number;
  owner: `0x${string}`;
  oracle: Address;
  /** v1.1's parameters; v1.2 adds the bidder withdrawal period and the deposit manager's minimum balance. */
  params?: Partial<DeployV12Params> & Partial<DeployParams>;
}

/** Deploys and wires one version's contracts (v1.2's end with BidderRegistry.setDepositManagerImpl). */
export function deployProtocolContracts(opts: DeployProtocolOptions): Promise<ProtocolContractAddresses> {
  const { rules, ...rest } = opts;
  return DEPLOY_OF[rules.version](rest);
}
