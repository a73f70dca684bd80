/** One node of a given role in this process, joined to the network through its bootnodes (roleConfig.ts). */

import { existsSync, mkdirSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import { createPublicClient } from "viem";
import { type Served, serve } from "../api/serve.ts";
import { enableDepositManagerAtStart } from "../bidder/deposits/perProvider/depositManagerAtStart.ts";
import { localChain } from "../chain/clients.ts";
import { localHttp } from "../chain/localHttp.ts";
import { BidEventFeed } from "../explorer/bidEvents.ts";
import type { Network } from "../network/network.ts";
import { BidderNode } from "../nodes/bidderNode.ts";
import { ProviderNode } from "../nodes/providerNode.ts";
import type { Notifier } from "../notify/notifier.ts";
import { Libp2pNetwork } from "../p2p/libp2pNetwork.ts";
import { providerStakeCheck } from "../p2p/stakeCheck.ts";
import { UnavailableError } from "../protocol/grpcCodes.ts";
import { initCrypto } from "../protocol/initCrypto.ts";
import { acceptAll } from "../providerApp/policies.ts";
import { agentLog, ProviderAgent } from "../providerApp/providerAgent.ts";
import type { ValidatorsSource } from "../services/validatorApiService.ts";
import { logger } from "../util/log.ts";
import { L1ValidatorChain } from "../validators/optInRegistry.ts";
import { ValidatorService } from "../validators/validatorService.ts";
import { adminApi } from "./adminApi.ts";
import { DevnetBundles } from "./devnetBundles.ts";
import type { RoleConfig } from "./roleConfig.ts";
import { claimRoleDataDir, roleDataDir } from "./roleDataDir.ts";

const log = logger("role");

export interface RoleNode {
  readonly role: RoleConfig["role"];
  readonly network: Libp2pNetwork;
  /** The node's HTTP API (bidder and provider). */
  readonly url?: string;
  /** The node's gRPC API (bidder and provider). */
  readonly rpcUrl?: string;
  /** The admin API (--admin-port). */
  readonly adminUrl?: string;
  stop(): Promise<void>;
}

function multiaddrOf(host: string, port: number): string {
  const kind = isIP(host);
  return `/${kind === 6 ? "ip6" : kind === 4 ? "ip4" : "dns4"}/${host}/tcp/${port}`;
}

/** GET /v1/validator/get_validators of a node without an L1 to read. */
const noValidators: ValidatorsSource = {
  currentEpoch: () =>
    Promise.reject(new UnavailableError("this node has no L1 RPC (--l1-rpc-url) or validator opt-in router")),
  getValidators: () =>
    Promise.reject(new UnavailableError("this node has no L1 RPC (--l1-rpc-url) or validator opt-in router")),
};

/**
 * The node of `cfg`, once its data dir is claimed (roleDataDir.ts: a node already running on it, or a busy port,
 * refuses the start before anything is bound or written). It holds the data dir's lock until it stops.
 */
export async function startRoleNode(cfg: RoleConfig): Promise<RoleNode> {
  const lock = await claimRoleDataDir(cfg);
  try {
    const node = await startClaimed(cfg);
    if (node.url) lock.update({ role: cfg.role, dataDir: roleDataDir(cfg), url: node.url, p2pPort: cfg.p2pPort });
    return {
      ...node,
      async stop() {
        try {
          await node.stop();
        } finally {
          lock.release();
        }
      },
    };
  } catch (e) {
    lock.release();
    throw e;
  }
}

async function startClaimed(cfg: RoleConfig): Promise<RoleNode> {
  await initCrypto();
  const settlementClient = createPublicClient({ transport: localHttp(cfg.settlementRpcUrl) });
  const network = new Libp2pNetwork({
    nodeKey: cfg.nodeKey,
    peerType: cfg.role,
    listen: [multiaddrOf(cfg.p2pAddr, cfg.p2pPort)],
    announce: cfg.natAddr ? [multiaddrOf(cfg.natAddr.split(":")[0]!, Number(cfg.natAddr.split(":")[1]))] : [],
    bootnodes: cfg.bootnodes,
    isStaked: providerStakeCheck(settlementClient, cfg.contracts.providerRegistry),
    rules: cfg.rules,
  });
  if (cfg.role === "bootnode") {
    await network.start();
    return { role: cfg.role, network, stop: () => network.stop() };
  }
  return { role: cfg.role, network, ...(await startNodeOn(cfg, network)) };
}

/** What a bidder or provider node started by startNodeOn serves. */
export type StartedNode = Omit<RoleNode, "role" | "network">;

/**
 * A bidder or provider node of `cfg` on `network`: libp2p for `--role`, MessagePorts for the benchmark's nodes on
 * threads (scenarios/bench/nodeProcesses.bench.ts). The admin API (--admin-port) needs libp2p's mesh view.
 */
export async function startNodeOn(cfg: RoleConfig, network: Network): Promise<StartedNode> {
  await initCrypto();
  const chainId = await createPublicClient({ transport: localHttp(cfg.settlementRpcUrl) }).getChainId();
  const adminOf = (node: Parameters<typeof adminApi>[0]): Served | undefined =>
    cfg.adminPort === undefined || !(network instanceof Libp2pNetwork)
      ? undefined
      : serve(adminApi(node, network), cfg.httpAddr, cfg.adminPort, "admin API");
  const dataDir = roleDataDir(cfg);
  mkdirSync(dataDir, { recursive: true });
  const notifiers: Notifier[] = [];
  let validators: ValidatorsSource = noValidators;
  let unwatch = () => {};
  if (cfg.l1RpcUrl && cfg.validatorOptInRouter) {
    const service = new ValidatorService({
      chain: new L1ValidatorChain({ rpcUrl: cfg.l1RpcUrl, registry: cfg.validatorOptInRouter }),
      publish: (topic, value) => {
        for (const n of notifiers) n.publish(topic, value);
      },
    });
    validators = service;
    const l1 = createPublicClient({ transport: localHttp(cfg.l1RpcUrl) });
    unwatch = l1.watchBlocks({
      pollingInterval: 500,
      onBlock: (b) => void service.onL1Block({ number: b.number, timestamp: b.timestamp }),
      onError: () => {},
    });
  }
  const settlementChain = localChain(chainId, cfg.settlementRpcUrl, "settlement");
  const store = join(dataDir, "node.sqlite");
  const readyFile = cfg.readyFile;
  const readiness = readyFile
    ? async () => (existsSync(readyFile) ? undefined : `starting: ${readyFile} is not written yet`)
    : undefined;
  if (cfg.role === "bidder") {
    // Only with an admin API to stream them on (a devnet's bidder process).
    const bidEvents = cfg.adminPort !== undefined && network instanceof Libp2pNetwork ? new BidEventFeed() : undefined;
    const node = new BidderNode({
      privateKey: cfg.nodeKey,
      settlementChain,
      contracts: cfg.contracts,
      rules: cfg.rules,
      storePath: store,
      bidTimeoutMs: cfg.bidTimeoutMs,
      network,
      validators,
      streamKeepAliveMs: cfg.streamKeepAliveMs,
      cryptoWorkers: cfg.cryptoWorkers,
      outcomes: bidEvents,
    });
    notifiers.push(node.notifier);
    // Auto-deposit is per window: protocol v1.1 only (a v1.2 bidder deposits per provider through its API).
    const windows = cfg.rules.deposits === "window";
    if (windows && cfg.autodepositFromFlag) node.windowDeposits.auto.replaceSaved(cfg.autodepositAmount);
    const url = await node.start({ host: cfg.httpAddr, httpPort: cfg.httpPort, rpcPort: cfg.rpcPort, readiness });
    if (windows && cfg.autodepositAmount !== undefined && !node.windowDeposits.auto.running)
      await node.windowDeposits.startAutoDeposit(
        cfg.autodepositAmount,
        cfg.autodepositCurrentWindow ? { windowNumber: await node.windowDeposits.registry.currentWindow() } : {},
      );
    if (cfg.enableDepositManager && node.perProviderDeposits)
      await enableDepositManagerAtStart(node.perProviderDeposits, cfg.targetDepositAmount, log);
    const admin = adminOf({ role: "bidder", node, bidEvents });
    return {
      url,
      rpcUrl: node.rpcUrl,
      adminUrl: admin?.url,
      async stop() {
        unwatch();
        bidEvents?.close();
        await admin?.stop();
        await node.stop();
      },
    };
  }
  const node = new ProviderNode({
    index: 0,
    privateKey: cfg.nodeKey,
    settlementChain,
    contracts: cfg.contracts,
    rules: cfg.rules,
    storePath: store,
    decisionTimeoutMs: cfg.decisionTimeoutMs,
    network,
    validators,
    streamKeepAliveMs: cfg.streamKeepAliveMs,
    cryptoWorkers: cfg.cryptoWorkers,
  });
  notifiers.push(node.notifier);
  const url = await node.start({ host: cfg.httpAddr, httpPort: cfg.httpPort, rpcPort: cfg.rpcPort, readiness });
  let agent: ProviderAgent | undefined;
  if (cfg.autoAccept) {
    agent = new ProviderAgent(url, acceptAll(), {
      idleTimeoutMs: cfg.responderIdleTimeoutMs,
      decisions: "stream",
      log: agentLog(logger("responder")),
    });
    await agent.start();
    log.info("accept-all provider application attached");
  }
  const admin = adminOf({ role: "provider", node });
  let toDevnet: DevnetBundles | undefined;
  if (cfg.devnetControlUrl && cfg.l1RpcUrl) {
    toDevnet = new DevnetBundles({
      controlUrl: cfg.devnetControlUrl,
      l1: createPublicClient({ transport: localHttp(cfg.l1RpcUrl) }),
      provider: node.address,
      bundlesFor: (block) => node.bundlesFor(block),
    });
    toDevnet.start();
    log.info("posting the bundles it commits to to the devnet's builder", { control: cfg.devnetControlUrl });
  }
  return {
    url,
    rpcUrl: node.rpcUrl,
    adminUrl: admin?.url,
    async stop() {
      unwatch();
      await toDevnet?.stop();
      await admin?.stop();
      await agent?.stop();
      await node.stop();
    },
  };
}
