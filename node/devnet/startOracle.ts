import { createPublicClient } from "viem";
import { devAccount, ROLES } from "../chain/accounts.ts";
import { chainClients } from "../chain/clients.ts";
import type { EventPoller } from "../chain/eventPoller.ts";
import { localHttp } from "../chain/localHttp.ts";
import { protocolEventPoller } from "../chain/protocolEvents.ts";
import { BidOutcomes } from "../explorer/bidOutcomes.ts";
import { L1BlockDriver } from "../l1/blockDriver.ts";
import { Builder } from "../l1/builder.ts";
import { BundleBook } from "../l1/bundleBook.ts";
import { ProviderDirectory } from "../l1/providerDirectory.ts";
import { ProviderLiveness } from "../l1/providerLiveness.ts";
import { Settler } from "../oracle/settler.ts";
import { WinnerRecorder } from "../oracle/winnerRecorder.ts";
import { NodeStore } from "../store/db.ts";
import { type DevnetConfig, FOREIGN_MIN_BLOCK_INTERVAL_MS, FOREIGN_SETTLE_DELAY_MS } from "./config.ts";
import type { DataDir } from "./dataDir.ts";
import type { NodeHost, StopStep } from "./nodeHost.ts";
import type { ChainParts } from "./startChainsAndContracts.ts";

/** The oracle phase's result: the L1 block driver and builder, the oracle and what it keeps of the chains. */
export interface OracleParts {
  readonly driver: L1BlockDriver;
  readonly store: NodeStore;
  readonly events: EventPoller;
  /** Every provider registered on-chain (ours and foreign ones): the winner schedule and their builder keys. */
  readonly directory: ProviderDirectory;
  readonly recorder: WinnerRecorder;
  readonly settler: Settler;
  readonly builder: Builder;
  /** Bundles posted by provider applications for future blocks (`POST /sim/v1/bundles`). */
  readonly bundles: BundleBook;
  /** Which registered providers have something answering for them (the others are skipped in the schedule). */
  readonly liveness: ProviderLiveness;
  /** Each bid's outcome at every provider, as the devnet's bidders tell it (none with --no-nodes). */
  readonly bidOutcomes: BidOutcomes | undefined;
}

/**
 * The oracle phase: the L1 block driver (no block is mined until the devnet is ready), the winner recorder and the
 * settler over the oracle's store, the provider directory (started: it knows every registration), liveness and the
 * builder, whose sources are the nodes' (`nodes`, started after this phase) and the posted bundles.
 */
export async function startOracle(
  cfg: DevnetConfig,
  dir: DataDir,
  chain: ChainParts,
  nodes: NodeHost,
): Promise<OracleParts> {
  const { chains, contracts } = chain;
  const l1 = () => createPublicClient({ transport: localHttp(chains.l1.rpcUrl) });
  const oracleKey = devAccount(ROLES.oracle).privateKey;
  const driver = new L1BlockDriver(chains.l1.rpcUrl, []);
  driver.minIntervalMs = cfg.minBlockIntervalMs ?? (cfg.nodes ? 0 : FOREIGN_MIN_BLOCK_INTERVAL_MS);
  const store = new NodeStore(dir.store("oracle"));
  const bidOutcomes = cfg.nodes ? new BidOutcomes() : undefined;
  // The explorer's bid list lives with the oracle's records, so a restart shows the bids sent before it.
  bidOutcomes?.keepIn(store);
  const events = protocolEventPoller(
    createPublicClient({ transport: localHttp(chains.settlement.rpcUrl) }),
    contracts,
    store,
    "oracle.events.cursor",
    50,
    cfg.rules,
  );
  const directory = new ProviderDirectory({
    owner: chainClients(chain.settlementChain, devAccount(ROLES.deployer).privateKey),
    providerRegistry: contracts.providerRegistry,
    events,
    store,
    onChange: (list) => driver.schedule.setProviders(list),
  });
  const recorder = new WinnerRecorder({
    settlement: chainClients(chain.settlementChain, oracleKey),
    l1: l1(),
    blockTracker: contracts.blockTracker,
    store,
    lag: cfg.oracleLag,
    firstBlock: (await l1().getBlock({ blockTag: "earliest" })).number,
    builderKeyOf: (coinbase) => directory.builderKeyOf(coinbase),
  });
  driver.onAfterMine(recorder.onBlock);
  driver.onAfterMine(chain.validators.onL1Block);
  const settler = new Settler({
    settlement: chainClients(chain.settlementChain, oracleKey),
    l1: l1(),
    blockTracker: contracts.blockTracker,
    preconfManager: contracts.preconfManager,
    oracle: contracts.oracle,
    events,
    store,
    rules: cfg.rules,
    bidOptionsSlash: cfg.bidOptionsSlash,
    delayMs: cfg.settleDelayMs ?? (cfg.nodes ? 0 : FOREIGN_SETTLE_DELAY_MS),
  });
  const bundles = new BundleBook();
  const liveness = new ProviderLiveness({ blocks: cfg.providerLivenessBlocks, nodeOf: (a) => nodes.providerName(a) });
  driver.schedule.setEligible((p) => liveness.isLive(p));
  driver.onAfterMine(async (b) => liveness.onBlock(b.number, directory.schedule()));
  const builder = new Builder(
    l1(),
    chains.l1.rpcUrl,
    () => [...nodes.bundleSources(), ...bundles.sources()],
    devAccount(ROLES.l1Filler).privateKey,
  );
  driver.onBeforeMine(builder.beforeMine);
  driver.onAfterMine(async (b) => bundles.forget(b.number));
  await directory.start();
  return { driver, store, events, directory, recorder, settler, builder, bundles, liveness, bidOutcomes };
}

/** Once the nodes and the control API are up: the oracle resumes where it stopped and follows the settlement chain. */
export async function followChains(o: OracleParts): Promise<void> {
  // A restart resumes recording where the oracle stopped (or where the chains' history now ends).
  await o.recorder.reconcile();
  await o.recorder.catchUp(await o.driver.blockNumber());
  await o.settler.reconcile();
  await o.events.start();
}

/** The first step of a stop: no more L1 blocks (the one being mined finishes). */
export async function stopBlocks(o: OracleParts, step: StopStep): Promise<void> {
  o.driver.stopInterval();
  await step("the L1 block driver", () => o.driver.drain());
}

/** After the nodes stopped: the oracle's followers, its last settlements, its store. */
export async function stopOracle(o: OracleParts, step: StopStep): Promise<void> {
  o.directory.stop();
  o.events.stop();
  await step("the oracle's settlements", () => o.settler.drain());
  o.store.close();
}
