import { type Address, createPublicClient, createTestClient, type Hex, http } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { chainClients, localChain } from "../chain/clients.ts";
import { providerRegistryAbi } from "../chain/contracts.ts";
import { bidderRegistryV12Abi } from "../chain/contractsV12.ts";
import {
  builderKeyFor,
  type ContractAddresses,
  type DeployParams,
  deployValidatorRegistry,
  registerProvider,
} from "../chain/deploy.ts";
import type { DeployV12Params } from "../chain/deployV12.ts";
import { deployProtocolContracts, type ProtocolContractAddresses } from "../chain/protocolContracts.ts";
import { transact } from "../chain/transact.ts";
import { DEFAULT_PROTOCOL_VERSION, type ProtocolVersion } from "../protocol/protocolVersion.ts";
import type { ProtocolRules } from "../protocol/rules.ts";
import { logger } from "../util/log.ts";
import type { ChainEndpoint } from "./chains.ts";
import { ConfigError } from "./config.ts";
import type { DataDir } from "./dataDir.ts";

const log = logger("devnet");

interface SavedContracts {
  chainId: number;
  /** Absent in a data dir of a v1.1 devnet. */
  protocol?: ProtocolVersion;
  addresses: ProtocolContractAddresses;
}

/** The data dir holds a devnet of the other protocol version: its chains and node stores do not fit this one. */
export class DataDirProtocolMismatchError extends ConfigError {}

/**
 * Deploys the protocol contracts of `rules`' version on the settlement chain, or reuses the ones a previous run deployed
 * there (when the chain state survived: the saved addresses still have code). A data dir of the other version is
 * refused (DataDirProtocolMismatchError): its stores hold that version's commitments and deposits.
 */
export async function ensureContracts(
  settlement: ChainEndpoint,
  dir: DataDir,
  ownerKey: Hex,
  oracle: Address,
  params: Partial<DeployParams & DeployV12Params>,
  rules: ProtocolRules,
): Promise<{ addresses: ProtocolContractAddresses; reused: boolean }> {
  const version = rules.version;
  const client = createPublicClient({ transport: http(settlement.rpcUrl) });
  const saved = dir.readJson<SavedContracts>(dir.contractsFile);
  // The contracts file of a v1.1 devnet names no protocol.
  const savedVersion = saved?.protocol ?? DEFAULT_PROTOCOL_VERSION;
  if (saved && savedVersion !== version)
    throw new DataDirProtocolMismatchError(
      `the data dir ${dir.root} holds a ${savedVersion} devnet, not ${version}: start with --fresh, or another --data-dir`,
      { context: { saved: savedVersion, wanted: version } },
    );
  if (saved && saved.chainId === settlement.chainId) {
    const code = await client.getCode({ address: saved.addresses.preconfManager });
    if (code && code !== "0x") return { addresses: saved.addresses, reused: true };
    log.warn("saved contract addresses have no code on the settlement chain; deploying again");
  }
  const started = performance.now();
  const addresses = await deployProtocolContracts({
    rules,
    rpcUrl: settlement.rpcUrl,
    chainId: settlement.chainId,
    owner: ownerKey,
    oracle,
    params,
  });
  dir.writeJson(dir.contractsFile, {
    chainId: settlement.chainId,
    protocol: version,
    addresses,
  } satisfies SavedContracts);
  log.info("contracts deployed", { ms: Math.round(performance.now() - started) });
  return { addresses, reused: false };
}

/** Registers and stakes each provider that is not registered yet, and maps its builder key to it. */
export async function ensureProvidersRegistered(
  settlement: ChainEndpoint,
  addresses: ContractAddresses,
  ownerKey: Hex,
  providers: { address: Address; privateKey: Hex }[],
  stake: bigint,
): Promise<void> {
  const client = createPublicClient({ transport: http(settlement.rpcUrl) });
  for (const p of providers) {
    const registered = await client.readContract({
      address: addresses.providerRegistry,
      abi: providerRegistryAbi,
      functionName: "providerRegistered",
      args: [p.address],
    });
    if (registered) continue;
    await registerProvider({
      rpcUrl: settlement.rpcUrl,
      chainId: settlement.chainId,
      addresses,
      providerKey: p.privateKey,
      ownerKey,
      stake,
      blsKey: builderKeyFor(p.address),
    });
    log.info("provider registered and staked", { provider: p.address, stake });
  }
}

/**
 * v1.2: tops the bidder's deposit with each provider up to `amount` (BidderRegistry.depositAsBidder(provider), the
 * per-provider deposit that replaces v1.1's window auto-deposit), so that the devnet's bidder can bid at once.
 * A provider with a pending withdrawal request is left alone (the contract refuses deposits then).
 */
export async function ensureBidderDepositsV12(
  settlement: ChainEndpoint,
  bidderRegistry: Address,
  bidderKey: Hex,
  providers: readonly Address[],
  amount: bigint,
): Promise<void> {
  const c = chainClients(localChain(settlement.chainId, settlement.rpcUrl, "settlement"), bidderKey);
  const bidder = c.account.address;
  const read = (functionName: "getDeposit" | "withdrawalRequestExists", provider: Address) =>
    c.publicClient.readContract({
      address: bidderRegistry,
      abi: bidderRegistryV12Abi,
      functionName,
      args: [bidder, provider],
    });
  for (const provider of providers) {
    const [current, pending] = await Promise.all([
      read("getDeposit", provider),
      read("withdrawalRequestExists", provider),
    ]);
    if (pending || (current as bigint) >= amount) continue;
    await transact(
      c,
      {
        address: bidderRegistry,
        abi: bidderRegistryV12Abi,
        functionName: "depositAsBidder",
        args: [provider],
        value: amount - (current as bigint),
      },
      `depositing for provider ${provider}`,
    );
    log.info("bidder deposit per provider", { bidder, provider, amount });
  }
}

/** Code at 0xf0 that answers every call with the 32-byte word 1: PUSH1 1, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN. */
const ACCEPT_ALL_VERIFIER = "0x600160005260206000f3";
export const BLS_VERIFIER_PRECOMPILE = "0x00000000000000000000000000000000000000f0";

/**
 * The mev-commit chain verifies builder BLS signatures (`addVerifiedBLSKey`) with a precompile at 0xf0, which Anvil
 * lacks. The devnet puts code there that accepts every signature, so a provider node registering through its own
 * stake API with its BLS keys (upstream's does, and fails on a bare Anvil) gets them added; the oracle then records
 * that provider's blocks by its first key. Signatures are not checked (docs/contracts.md). A settlement chain that is
 * not Anvil keeps whatever it has (logged).
 */
export async function installBlsVerifierStandIn(settlement: ChainEndpoint): Promise<void> {
  try {
    await createTestClient({ mode: "anvil", transport: http(settlement.rpcUrl) }).setCode({
      address: BLS_VERIFIER_PRECOMPILE,
      bytecode: ACCEPT_ALL_VERIFIER,
    });
  } catch (e) {
    log.warn(
      "cannot install the BLS verifier stand-in at 0xf0 (not an Anvil chain?): addVerifiedBLSKey keeps failing",
      { error: e },
    );
  }
}

interface SavedValidatorRegistry {
  chainId: number;
  address: Address;
}

export class AddressCollisionError extends MevCommitError {}

/**
 * The validator opt-in registry on the L1 chain, deployed once and reused while the L1 state survives. It is deployed
 * by its own account (`ROLES.l1Deployer`), so its address is none of the settlement contracts' (`avoid`): upstream's
 * node keys contract ABIs by address across both chains. A saved registry at one of those addresses (a data dir from
 * before this rule) is replaced. The L1 mines only through the block driver, so the deployment is not awaited: it
 * lands in the next mined block.
 */
export async function ensureValidatorRegistry(
  l1: ChainEndpoint,
  dir: DataDir,
  keys: { owner: Hex; deployer: Hex },
  avoid: Address[],
): Promise<{ address: Address; fresh: boolean }> {
  const file = `${dir.root}/validator-registry.json`;
  const taken = (a: Address) => avoid.some((x) => x.toLowerCase() === a.toLowerCase());
  const saved = dir.readJson<SavedValidatorRegistry>(file);
  if (saved && saved.chainId === l1.chainId && !taken(saved.address)) {
    const client = createPublicClient({ transport: http(l1.rpcUrl) });
    const code = await client.getCode({ address: saved.address });
    if (code && code !== "0x") return { address: saved.address, fresh: false };
  }
  const address = await deployValidatorRegistry({
    rpcUrl: l1.rpcUrl,
    chainId: l1.chainId,
    owner: keys.owner,
    deployer: keys.deployer,
    wait: false,
  });
  if (taken(address))
    throw new AddressCollisionError(
      `the validator registry would sit at ${address} on the L1, an address a settlement contract already has`,
    );
  dir.writeJson(file, { chainId: l1.chainId, address } satisfies SavedValidatorRegistry);
  return { address, fresh: true };
}
