/**
 * Deploys and wires the protocol v1.2 contracts (node/chain/contracts/v1.2/) in upstream's order
 * (upstream-head-delta.md §4.2): BlockTracker → BidderRegistry (with the bidder withdrawal period) → ProviderRegistry →
 * PreconfManager (oracle contract 0) → ProviderRegistry.setPreconfManager → BidderRegistry.setPreconfManager → Oracle →
 * PreconfManager.updateOracleContract → BlockTracker.setProviderRegistry → DepositManager(bidderRegistry, minBalance)
 * → BidderRegistry.setDepositManagerImpl. Without the last step every openCommitment reverts DepositManagerNotSet().
 *
 * Like deployContracts (v1.1), the eleven transactions are signed locally with consecutive nonces and sent back to
 * back. Providers register with deploy.ts's registerProvider: registerAndStake and overrideAddBLSKey keep their ABI.
 */
import { type Address, encodeDeployData, encodeFunctionData, getAddress, getContractAddress, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { compileV12Contracts } from "./compileV12.ts";
import type { ContractAddresses } from "./contracts.ts";
import {
  bidderRegistryV12Abi,
  blockTrackerV12Abi,
  depositManagerV12Abi,
  oracleV12Abi,
  preconfManagerV12Abi,
  providerRegistryV12Abi,
} from "./contractsV12.ts";
import {
  DEFAULT_DEPLOY_PARAMS,
  DeployError,
  type DeployOptions,
  type DeployParams,
  publicClientFor,
  SETTER_GAS,
  sendAll,
  type TxRequest,
} from "./deploy.ts";

/** v1.2 deployment parameters: v1.1's plus the bidder withdrawal period and the deposit manager's minimum balance. */
export interface DeployV12Params extends DeployParams {
  /** BidderRegistry: time (ms) after a withdrawal request before the withdrawal (strictly after). */
  bidderWithdrawalPeriodMs: bigint;
  /** DepositManager: ether (wei) a delegated bidder EOA always keeps; top-ups never take it below this. */
  depositManagerMinBalance: bigint;
}

/** Upstream's DeployCore values at v1.2. */
export const DEFAULT_DEPLOY_V12_PARAMS: Readonly<DeployV12Params> = Object.freeze({
  ...DEFAULT_DEPLOY_PARAMS,
  bidderWithdrawalPeriodMs: 10n * 60n * 1000n,
  depositManagerMinBalance: parseEther("0.01"),
});

export interface V12ContractAddresses extends ContractAddresses {
  /** The EIP-7702 delegate implementation bidder EOAs point their code at. */
  depositManager: Address;
}

export interface DeployV12Options extends Omit<DeployOptions, "params"> {
  params?: Partial<DeployV12Params>;
}

export async function deployV12Contracts(opts: DeployV12Options): Promise<V12ContractAddresses> {
  const params: DeployV12Params = { ...DEFAULT_DEPLOY_V12_PARAMS, ...opts.params };
  const client = publicClientFor(opts.rpcUrl, opts.chainId);
  const account = privateKeyToAccount(opts.owner);
  const owner = account.address;
  const oracleAccount = getAddress(opts.oracle);
  const [compiled, remoteChainId, nonce] = await Promise.all([
    compileV12Contracts(),
    client.getChainId(),
    client.getTransactionCount({ address: owner, blockTag: "pending" }),
  ]);
  if (remoteChainId !== opts.chainId) {
    throw new DeployError(
      `chain id mismatch: RPC ${opts.rpcUrl} reports ${remoteChainId}, expected ${opts.chainId}`,
      "connect",
    );
  }
  const c = compiled.contracts;
  const at = (n: number) => getContractAddress({ from: owner, nonce: BigInt(nonce + n) });
  const addresses: V12ContractAddresses = {
    blockTracker: at(0),
    bidderRegistry: at(1),
    providerRegistry: at(2),
    preconfManager: at(3),
    oracle: at(6),
    depositManager: at(9),
  };
  const deployData = {
    blockTracker: encodeDeployData({
      abi: blockTrackerV12Abi,
      bytecode: c.BlockTracker.bytecode,
      args: [oracleAccount, owner],
    }),
    bidderRegistry: encodeDeployData({
      abi: bidderRegistryV12Abi,
      bytecode: c.BidderRegistry.bytecode,
      args: [
        params.protocolFeeRecipient ?? owner,
        params.protocolFeePercent,
        owner,
        addresses.blockTracker,
        params.feePayoutPeriod,
        params.bidderWithdrawalPeriodMs,
      ],
    }),
    providerRegistry: encodeDeployData({
      abi: providerRegistryV12Abi,
      bytecode: c.ProviderRegistry.bytecode,
      args: [
        params.minStake,
        params.penaltyFeeRecipient ?? owner,
        params.penaltyFeePercent,
        owner,
        params.withdrawalDelay,
        params.feePayoutPeriod,
      ],
    }),
    preconfManager: encodeDeployData({
      abi: preconfManagerV12Abi,
      bytecode: c.PreconfManager.bytecode,
      args: [
        addresses.providerRegistry,
        addresses.bidderRegistry,
        "0x0000000000000000000000000000000000000000",
        owner,
        addresses.blockTracker,
        params.commitmentDispatchWindow,
      ],
    }),
    oracle: encodeDeployData({
      abi: oracleV12Abi,
      bytecode: c.Oracle.bytecode,
      args: [addresses.preconfManager, addresses.blockTracker, oracleAccount, owner],
    }),
    depositManager: encodeDeployData({
      abi: depositManagerV12Abi,
      bytecode: c.DepositManager.bytecode,
      args: [addresses.bidderRegistry, params.depositManagerMinBalance],
    }),
  };
  // Constructors only store values, so every deployment can be estimated independently, in parallel.
  const keys = Object.keys(deployData) as (keyof typeof deployData)[];
  const gas = Object.fromEntries(
    await Promise.all(
      keys.map(
        async (k) => [k, ((await client.estimateGas({ account: owner, data: deployData[k] })) * 6n) / 5n] as const,
      ),
    ),
  ) as Record<keyof typeof deployData, bigint>;
  const call = (step: string, to: Address, data: `0x${string}`): TxRequest => ({ step, to, data, gas: SETTER_GAS });
  const txs: TxRequest[] = [
    { step: "deploy BlockTracker", data: deployData.blockTracker, gas: gas.blockTracker },
    { step: "deploy BidderRegistry", data: deployData.bidderRegistry, gas: gas.bidderRegistry },
    { step: "deploy ProviderRegistry", data: deployData.providerRegistry, gas: gas.providerRegistry },
    { step: "deploy PreconfManager", data: deployData.preconfManager, gas: gas.preconfManager },
    call(
      "ProviderRegistry.setPreconfManager",
      addresses.providerRegistry,
      encodeFunctionData({
        abi: providerRegistryV12Abi,
        functionName: "setPreconfManager",
        args: [addresses.preconfManager],
      }),
    ),
    call(
      "BidderRegistry.setPreconfManager",
      addresses.bidderRegistry,
      encodeFunctionData({
        abi: bidderRegistryV12Abi,
        functionName: "setPreconfManager",
        args: [addresses.preconfManager],
      }),
    ),
    { step: "deploy Oracle", data: deployData.oracle, gas: gas.oracle },
    call(
      "PreconfManager.updateOracleContract",
      addresses.preconfManager,
      encodeFunctionData({ abi: preconfManagerV12Abi, functionName: "updateOracleContract", args: [addresses.oracle] }),
    ),
    call(
      "BlockTracker.setProviderRegistry",
      addresses.blockTracker,
      encodeFunctionData({
        abi: blockTrackerV12Abi,
        functionName: "setProviderRegistry",
        args: [addresses.providerRegistry],
      }),
    ),
    { step: "deploy DepositManager", data: deployData.depositManager, gas: gas.depositManager },
    call(
      "BidderRegistry.setDepositManagerImpl",
      addresses.bidderRegistry,
      encodeFunctionData({
        abi: bidderRegistryV12Abi,
        functionName: "setDepositManagerImpl",
        args: [addresses.depositManager],
      }),
    ),
  ];
  const receipts = await sendAll(client, account, opts.chainId, txs, nonce);
  const landed = [0, 1, 2, 3, 6, 9].map((i) => receipts[i]?.contractAddress);
  const expected = [
    addresses.blockTracker,
    addresses.bidderRegistry,
    addresses.providerRegistry,
    addresses.preconfManager,
    addresses.oracle,
    addresses.depositManager,
  ];
  for (const [i, a] of landed.entries()) {
    if (!a || getAddress(a) !== expected[i])
      throw new DeployError(`contract landed at ${a}, expected ${expected[i]} (nonce used concurrently?)`, "verify");
  }
  return addresses;
}
