/**
 * Deploys the five core contracts in upstream's wiring order and registers providers; deploys the validator
 * opt-in registry on the L1 chain (`deployValidatorRegistry`).
 *
 * Order (crypto-contracts.md §3.8): BlockTracker → BidderRegistry → ProviderRegistry → PreconfManager (oracle
 * contract 0) → ProviderRegistry.setPreconfManager → BidderRegistry.setPreconfManager → Oracle →
 * PreconfManager.updateOracleContract → BlockTracker.setProviderRegistry.
 *
 * All nine transactions are signed locally with consecutive nonces (contract addresses are known in advance)
 * and submitted back to back; the receipts are awaited together at the end.
 */
import {
  type Address,
  concat,
  createPublicClient,
  defineChain,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  parseEther,
  stringToHex,
  type TransactionReceipt,
} from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { MevCommitError } from "../../lib/errors.ts";
import { compileContracts } from "./compile.ts";
import {
  bidderRegistryAbi,
  blockTrackerAbi,
  type ContractAddresses,
  decodeRevert,
  oracleAbi,
  preconfManagerAbi,
  providerRegistryAbi,
  validatorOptInRouterAbi,
} from "./contracts.ts";

export type { ContractAddresses } from "./contracts.ts";

/** Deployment parameters. Time values are Unix milliseconds, as upstream's. */
export interface DeployParams {
  /** ProviderRegistry minimum stake (wei). */
  minStake: bigint;
  /** BidderRegistry protocol fee on rewards, 1e18 = 100 %. */
  protocolFeePercent: bigint;
  /** ProviderRegistry penalty fee on slashes, 1e18 = 100 %. */
  penaltyFeePercent: bigint;
  /** PreconfManager: how far (ms) a dispatch timestamp may lie before the store transaction's block time. */
  commitmentDispatchWindow: bigint;
  /** ProviderRegistry: delay (ms) between unstake and withdraw. */
  withdrawalDelay: bigint;
  /** Fee payout period (ms) of both fee trackers. */
  feePayoutPeriod: bigint;
  /** Recipient of the protocol fee; default: the owner. */
  protocolFeeRecipient?: Address;
  /** Recipient of the penalty fee; default: the owner. */
  penaltyFeeRecipient?: Address;
}

/** Upstream's DeployCore values. */
export const DEFAULT_DEPLOY_PARAMS: Readonly<DeployParams> = Object.freeze({
  minStake: parseEther("10"),
  protocolFeePercent: 2n * 10n ** 16n,
  penaltyFeePercent: 5n * 10n ** 16n,
  commitmentDispatchWindow: 500n,
  withdrawalDelay: 24n * 60n * 60n * 1000n,
  feePayoutPeriod: 60n * 60n * 1000n,
});

export interface DeployOptions {
  rpcUrl: string;
  chainId: number;
  /** Private key of the deployer, who becomes owner of every contract. */
  owner: Hex;
  /** Oracle EOA (records L1 winners, calls the Oracle contract). */
  oracle: Address;
  params?: Partial<DeployParams>;
}

export class DeployError extends MevCommitError {
  constructor(
    message: string,
    readonly step: string,
    options?: { cause?: unknown },
  ) {
    super(message, { ...options, context: { step } });
  }
}

export const SETTER_GAS = 200_000n;

export interface TxRequest {
  step: string;
  to?: Address;
  data: Hex;
  value?: bigint;
  gas: bigint;
}

function chainFor(chainId: number, rpcUrl: string) {
  return defineChain({
    id: chainId,
    name: `chain-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

export function publicClientFor(rpcUrl: string, chainId: number): PublicClient {
  return createPublicClient({ chain: chainFor(chainId, rpcUrl), transport: http(rpcUrl), pollingInterval: 25 });
}

async function feeFields(client: PublicClient): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
  const block = await client.getBlock({ blockTag: "latest" });
  const base = block.baseFeePerGas ?? 1_000_000_000n;
  const tip = 1_000_000_000n;
  return { maxFeePerGas: base * 2n + tip, maxPriorityFeePerGas: tip };
}

/**
 * Signs `txs` with consecutive nonces, submits them in order and waits for all receipts. Throws a
 * DeployError naming the failed step (with the decoded revert if the node reports one).
 */
export async function sendAll(
  client: PublicClient,
  account: PrivateKeyAccount,
  chainId: number,
  txs: TxRequest[],
  firstNonce?: number,
): Promise<TransactionReceipt[]> {
  let nonce = firstNonce ?? (await client.getTransactionCount({ address: account.address, blockTag: "pending" }));
  const fees = await feeFields(client);
  const hashes: Hex[] = [];
  for (const tx of txs) {
    const raw = await account.signTransaction({
      type: "eip1559",
      chainId,
      nonce: nonce++,
      to: tx.to ?? null,
      data: tx.data,
      value: tx.value ?? 0n,
      gas: tx.gas,
      ...fees,
    });
    try {
      hashes.push(await client.sendRawTransaction({ serializedTransaction: raw }));
    } catch (e) {
      const revert = decodeRevert(e);
      throw new DeployError(`${tx.step}: ${revert?.text ?? (e as Error).message}`, tx.step, { cause: e });
    }
  }
  const receipts = await Promise.all(
    hashes.map((hash) => client.waitForTransactionReceipt({ hash, pollingInterval: 25 })),
  );
  for (const [i, r] of receipts.entries()) {
    if (r.status !== "success") {
      const step = txs[i]!.step;
      // Replay the call to learn why it reverted.
      let why = "reverted";
      try {
        await client.call({
          account: account.address,
          to: txs[i]!.to,
          data: txs[i]!.data,
          value: txs[i]!.value,
          blockNumber: r.blockNumber - 1n,
        });
      } catch (e) {
        why = decodeRevert(e)?.text ?? why;
      }
      throw new DeployError(`${step}: transaction ${r.transactionHash} failed: ${why}`, step);
    }
  }
  return receipts;
}

/** Deploys and wires BlockTracker, BidderRegistry, ProviderRegistry, PreconfManager and Oracle. */
export async function deployContracts(opts: DeployOptions): Promise<ContractAddresses> {
  const params: DeployParams = { ...DEFAULT_DEPLOY_PARAMS, ...opts.params };
  const client = publicClientFor(opts.rpcUrl, opts.chainId);
  const account = privateKeyToAccount(opts.owner);
  const owner = account.address;
  const oracleAccount = getAddress(opts.oracle);

  const [compiled, remoteChainId, nonce] = await Promise.all([
    compileContracts(),
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
  const addresses: ContractAddresses = {
    blockTracker: at(0),
    bidderRegistry: at(1),
    providerRegistry: at(2),
    preconfManager: at(3),
    oracle: at(6),
  };

  const deployData = {
    blockTracker: encodeDeployData({
      abi: blockTrackerAbi,
      bytecode: c.BlockTracker.bytecode,
      args: [oracleAccount, owner],
    }),
    bidderRegistry: encodeDeployData({
      abi: bidderRegistryAbi,
      bytecode: c.BidderRegistry.bytecode,
      args: [
        params.protocolFeeRecipient ?? owner,
        params.protocolFeePercent,
        owner,
        addresses.blockTracker,
        params.feePayoutPeriod,
      ],
    }),
    providerRegistry: encodeDeployData({
      abi: providerRegistryAbi,
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
      abi: preconfManagerAbi,
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
      abi: oracleAbi,
      bytecode: c.Oracle.bytecode,
      args: [addresses.preconfManager, addresses.blockTracker, oracleAccount, owner],
    }),
  };
  // Constructors only store values, so every deployment can be estimated independently, in parallel.
  const keys = Object.keys(deployData) as (keyof typeof deployData)[];
  const gas = Object.fromEntries(
    await Promise.all(
      keys.map(async (k) => {
        const est = await client.estimateGas({ account: owner, data: deployData[k] });
        return [k, (est * 6n) / 5n] as const;
      }),
    ),
  ) as Record<keyof typeof deployData, bigint>;

  const txs: TxRequest[] = [
    { step: "deploy BlockTracker", data: deployData.blockTracker, gas: gas.blockTracker },
    { step: "deploy BidderRegistry", data: deployData.bidderRegistry, gas: gas.bidderRegistry },
    { step: "deploy ProviderRegistry", data: deployData.providerRegistry, gas: gas.providerRegistry },
    { step: "deploy PreconfManager", data: deployData.preconfManager, gas: gas.preconfManager },
    {
      step: "ProviderRegistry.setPreconfManager",
      to: addresses.providerRegistry,
      data: encodeFunctionData({
        abi: providerRegistryAbi,
        functionName: "setPreconfManager",
        args: [addresses.preconfManager],
      }),
      gas: SETTER_GAS,
    },
    {
      step: "BidderRegistry.setPreconfManager",
      to: addresses.bidderRegistry,
      data: encodeFunctionData({
        abi: bidderRegistryAbi,
        functionName: "setPreconfManager",
        args: [addresses.preconfManager],
      }),
      gas: SETTER_GAS,
    },
    { step: "deploy Oracle", data: deployData.oracle, gas: gas.oracle },
    {
      step: "PreconfManager.updateOracleContract",
      to: addresses.preconfManager,
      data: encodeFunctionData({
        abi: preconfManagerAbi,
        functionName: "updateOracleContract",
        args: [addresses.oracle],
      }),
      gas: SETTER_GAS,
    },
    {
      step: "BlockTracker.setProviderRegistry",
      to: addresses.blockTracker,
      data: encodeFunctionData({
        abi: blockTrackerAbi,
        functionName: "setProviderRegistry",
        args: [addresses.providerRegistry],
      }),
      gas: SETTER_GAS,
    },
  ];
  const receipts = await sendAll(client, account, opts.chainId, txs, nonce);
  const deployed = [receipts[0], receipts[1], receipts[2], receipts[3], receipts[6]].map((r) => r?.contractAddress);
  const expected = [
    addresses.blockTracker,
    addresses.bidderRegistry,
    addresses.providerRegistry,
    addresses.preconfManager,
    addresses.oracle,
  ];
  for (const [i, a] of deployed.entries()) {
    if (!a || getAddress(a) !== expected[i]) {
      throw new DeployError(`contract landed at ${a}, expected ${expected[i]} (nonce used concurrently?)`, "verify");
    }
  }
  return addresses;
}

export interface DeployValidatorRegistryOptions {
  /** RPC of the L1 chain (the registry lives on L1, where the proposers are). */
  rpcUrl: string;
  chainId: number;
  /** Private key of the registry's owner (may opt any key out). */
  owner: Hex;
  /**
   * Private key that sends the deployment; default `owner`. The devnet deploys from an account that sends nothing on
   * the settlement chain, so the registry's address differs from every settlement contract's.
   */
  deployer?: Hex;
  /**
   * true (default): resolve once the deployment is mined (on a manual-mining chain someone must mine a block
   * meanwhile). false: resolve as soon as the node accepted the transaction; the registry exists from the next
   * block on (the devnet's L1 driver mines it with its first block).
   */
  wait?: boolean;
}

/**
 * Deploys the validator opt-in registry (`ValidatorOptInRouter`: upstream's `areValidatorsOptedIn` plus a built-in
 * stake-free vanilla registry) on the L1 chain and returns its address (one transaction).
 */
export async function deployValidatorRegistry(opts: DeployValidatorRegistryOptions): Promise<Address> {
  const client = publicClientFor(opts.rpcUrl, opts.chainId);
  const account = privateKeyToAccount(opts.deployer ?? opts.owner);
  const [compiled, remoteChainId, nonce] = await Promise.all([
    compileContracts(),
    client.getChainId(),
    client.getTransactionCount({ address: account.address, blockTag: "pending" }),
  ]);
  if (remoteChainId !== opts.chainId) {
    throw new DeployError(
      `chain id mismatch: RPC ${opts.rpcUrl} reports ${remoteChainId}, expected ${opts.chainId}`,
      "connect",
    );
  }
  const step = "deploy ValidatorOptInRouter";
  const data = encodeDeployData({
    abi: validatorOptInRouterAbi,
    bytecode: compiled.contracts.ValidatorOptInRouter.bytecode,
    args: [privateKeyToAccount(opts.owner).address],
  });
  const gas = ((await client.estimateGas({ account: account.address, data })) * 6n) / 5n;
  const expected = getContractAddress({ from: account.address, nonce: BigInt(nonce) });
  if (opts.wait === false) {
    const raw = await account.signTransaction({
      type: "eip1559",
      chainId: opts.chainId,
      nonce,
      to: null,
      data,
      value: 0n,
      gas,
      ...(await feeFields(client)),
    });
    try {
      await client.sendRawTransaction({ serializedTransaction: raw });
    } catch (e) {
      throw new DeployError(`${step}: ${decodeRevert(e)?.text ?? (e as Error).message}`, step, { cause: e });
    }
    return expected;
  }
  const [receipt] = await sendAll(client, account, opts.chainId, [{ step, data, gas }], nonce);
  if (!receipt?.contractAddress || getAddress(receipt.contractAddress) !== expected) {
    throw new DeployError(
      `contract landed at ${receipt?.contractAddress}, expected ${expected} (nonce used concurrently?)`,
      "verify",
    );
  }
  return expected;
}

export interface RegisterProviderOptions {
  rpcUrl: string;
  addresses: ContractAddresses;
  /** Provider's private key: sends registerAndStake. */
  providerKey: Hex;
  /**
   * Owner's private key: maps the builder key with overrideAddBLSKey. Leave it out against a running devnet, which
   * maps a key for every provider that registers (its owner transactions and ours would race for the nonce).
   */
  ownerKey?: Hex;
  /** Stake in wei (must be at least minStake). */
  stake: bigint;
  /** 48-byte builder BLS key; default builderKeyFor(provider). */
  blsKey?: Hex;
  /** Chain id; read from the RPC if omitted. */
  chainId?: number;
}

/** Registers and stakes a provider and, given the owner's key, maps its builder key to it (owner override, no BLS proof). */
export async function registerProvider(opts: RegisterProviderOptions): Promise<{ provider: Address; blsKey: Hex }> {
  const chainId = opts.chainId ?? (await createPublicClient({ transport: http(opts.rpcUrl) }).getChainId());
  const client = publicClientFor(opts.rpcUrl, chainId);
  const provider = privateKeyToAccount(opts.providerKey);
  const blsKey = opts.blsKey ?? builderKeyFor(provider.address);
  await Promise.all([
    sendAll(client, provider, chainId, [
      {
        step: "ProviderRegistry.registerAndStake",
        to: opts.addresses.providerRegistry,
        data: encodeFunctionData({ abi: providerRegistryAbi, functionName: "registerAndStake" }),
        value: opts.stake,
        gas: SETTER_GAS,
      },
    ]),
    opts.ownerKey &&
      sendAll(client, privateKeyToAccount(opts.ownerKey), chainId, [
        {
          step: "ProviderRegistry.overrideAddBLSKey",
          to: opts.addresses.providerRegistry,
          data: encodeFunctionData({
            abi: providerRegistryAbi,
            functionName: "overrideAddBLSKey",
            args: [provider.address, blsKey],
          }),
          gas: SETTER_GAS + 100_000n,
        },
      ]),
  ]);
  return { provider: provider.address, blsKey };
}

/**
 * Deterministic stand-in for a builder's 48-byte BLS public key: keccak256("mev-commit builder key" ‖ address)
 * followed by the first 16 bytes of keccak256 of that hash. The devnet maps an L1 block's coinbase to this key
 * when recording the block winner.
 */
export function builderKeyFor(address: Address): Hex {
  const h1 = keccak256(concat([stringToHex("mev-commit builder key"), getAddress(address)]));
  const h2 = keccak256(h1);
  return concat([h1, `0x${h2.slice(2, 34)}`]);
}
