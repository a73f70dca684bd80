import type { Address, Chain } from "viem";
import { bidderAccountIndex, devAccount, ROLES } from "../chain/accounts.ts";
import { stopAllAnvils } from "../chain/anvil.ts";
import { localChain } from "../chain/clients.ts";
import type { ProtocolContractAddresses } from "../chain/protocolContracts.ts";
import { shutdownStep } from "../util/deadline.ts";
import { logger } from "../util/log.ts";
import { L1ValidatorChain, optInValidators } from "../validators/optInRegistry.ts";
import { type PublishFn, ValidatorService } from "../validators/validatorService.ts";
import { type ChainEndpoint, startChains } from "./chains.ts";
import type { DevnetConfig } from "./config.ts";
import {
  ensureBidderDepositsV12,
  ensureContracts,
  ensureProvidersRegistered,
  ensureValidatorRegistry,
  installBlsVerifierStandIn,
} from "./contractsSetup.ts";
import type { DataDir } from "./dataDir.ts";

const log = logger("devnet");
/** How long the chains have to stop (the parts before them share 5 s of their own: startDevnet.ts). */
const STOP_CHAINS_MS = 4_000;

/** The chains phase's result: both chains, the protocol's contracts on them and the simulated beacon schedule. */
export interface ChainParts {
  readonly chains: { l1: ChainEndpoint; settlement: ChainEndpoint };
  readonly settlementChain: Chain;
  readonly contracts: ProtocolContractAddresses;
  /** The validator opt-in registry on the L1 chain. */
  readonly validatorRegistry: Address;
  /** The beacon schedule and opt-in states (the nodes' validator API, the beacon API); started once ready. */
  readonly validators: ValidatorService;
}

/**
 * The chains phase: the L1 and settlement chains, the protocol's contracts (reused from the data dir when they are
 * there), the devnet's providers registered and staked, v1.2's bidder deposits, and the validator opt-in registry
 * on the L1 with its beacon schedule (`publish`: where its notifications go).
 */
export async function startChainsAndContracts(
  cfg: DevnetConfig,
  dir: DataDir,
  publish: PublishFn,
  t0: number,
): Promise<ChainParts> {
  const chains = await startChains(cfg, dir);
  log.info("chains up", {
    l1: chains.l1.rpcUrl,
    settlement: chains.settlement.rpcUrl,
    ms: Math.round(performance.now() - t0),
  });
  const contracts = await deployContracts(cfg, dir, chains.settlement);
  const owner = devAccount(ROLES.deployer);
  const registry = await ensureValidatorRegistry(
    chains.l1,
    dir,
    { owner: owner.privateKey, deployer: devAccount(ROLES.l1Deployer).privateKey },
    Object.values(contracts),
  );
  const validators = new ValidatorService({
    chain: new L1ValidatorChain({ rpcUrl: chains.l1.rpcUrl, registry: registry.address }),
    slotSeconds: cfg.l1BlockTime > 0 ? cfg.l1BlockTime : undefined,
    publish,
  });
  if (registry.fresh)
    // Every 4th validator of the schedule starts opted in, so opt-in events happen on a fresh devnet.
    await optInValidators({
      rpcUrl: chains.l1.rpcUrl,
      registry: registry.address,
      privateKey: devAccount(ROLES.validatorOptIn).privateKey,
      keys: validators.schedule.validators.filter((_, i) => i % 4 === 0),
      wait: false,
    });
  const settlementChain = localChain(chains.settlement.chainId, chains.settlement.rpcUrl, "settlement");
  return { chains, settlementChain, contracts, validatorRegistry: registry.address, validators };
}

/**
 * Stops the chains the devnet started, bounded on its own (node/main.ts exits 10 s after Ctrl-C whatever happens,
 * and the chains save their state as they stop), then any Anvil still left.
 */
export async function stopChains(parts: ChainParts): Promise<void> {
  const { l1, settlement } = parts.chains;
  await shutdownStep(
    "the chains",
    STOP_CHAINS_MS,
    () => Promise.allSettled([l1.stop(), settlement.stop()]),
    (m) => log.warn(m),
  );
  await stopAllAnvils();
}

/** The protocol's contracts, the devnet's providers registered with their stake, and v1.2's bidder deposits. */
async function deployContracts(
  cfg: DevnetConfig,
  dir: DataDir,
  settlement: ChainEndpoint,
): Promise<ProtocolContractAddresses> {
  const owner = devAccount(ROLES.deployer);
  const providerAccounts = cfg.nodes
    ? Array.from({ length: cfg.providers }, (_, i) => devAccount(ROLES.firstProvider + i))
    : [];
  const { addresses, reused } = await ensureContracts(
    settlement,
    dir,
    owner.privateKey,
    devAccount(ROLES.oracle).address,
    {
      commitmentDispatchWindow: BigInt(cfg.dispatchWindowMs),
      bidderWithdrawalPeriodMs: BigInt(cfg.bidderWithdrawalPeriodMs),
    },
    cfg.rules,
  );
  if (reused) log.info("contracts reused from the data dir", { preconfManager: addresses.preconfManager });
  await installBlsVerifierStandIn(settlement);
  await ensureProvidersRegistered(settlement, addresses, owner.privateKey, providerAccounts, cfg.providerStake);
  // v1.2 has no window auto-deposit: the devnet's bidders deposit with each provider instead.
  if (cfg.rules.deposits === "provider" && cfg.nodes && cfg.autodepositAmount !== undefined)
    for (const j of Array.from({ length: cfg.bidders }, (_, i) => i))
      await ensureBidderDepositsV12(
        settlement,
        addresses.bidderRegistry,
        devAccount(j === 0 ? ROLES.bidder : bidderAccountIndex(j)).privateKey,
        providerAccounts.map((a) => a.address),
        cfg.autodepositAmount,
      );
  return addresses;
}
