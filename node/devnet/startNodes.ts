import { createPublicClient } from "viem";
import { localHttp } from "../chain/localHttp.ts";
import type { NetFaults } from "../faults/netFaults.ts";
import { devnetCertificate, readTlsFiles, type TlsFiles } from "../grpc/tls.ts";
import { providerStakeCheck } from "../p2p/stakeCheck.ts";
import { logger } from "../util/log.ts";
import type { NetnsParts } from "./claimDevnet.ts";
import type { DevnetConfig } from "./config.ts";
import type { DataDir } from "./dataDir.ts";
import { InProcessNodes } from "./inProcessNodes.ts";
import type { NodeHost, NodeStartContext } from "./nodeHost.ts";
import { NodeProcessHost } from "./nodeProcessHost.ts";
import { NoNodes } from "./noNodes.ts";

const log = logger("devnet");

/** Where the devnet's nodes run: nowhere (--no-nodes), in processes of their own (processes, netns), or here. */
export function nodeHostFor(cfg: DevnetConfig, netns: NetnsParts | undefined): NodeHost {
  if (!cfg.nodes) return new NoNodes();
  if (cfg.network === "processes" || cfg.network === "netns") return new NodeProcessHost(cfg, netns);
  return new InProcessNodes(cfg);
}

/**
 * The nodes phase: the gRPC certificate (--rpc-tls), then the nodes started on their host and met on their
 * network (their /health answers 503 until the devnet is ready).
 */
export async function startNodes(
  nodes: NodeHost,
  ctx: Omit<NodeStartContext, "rpcTls" | "isStaked">,
  netns: NetnsParts | undefined,
): Promise<{ rpcTls: TlsFiles | undefined }> {
  const rpcTls = await rpcCertificate(ctx.config, ctx.dir);
  const isStaked = providerStakeCheck(
    createPublicClient({ transport: localHttp(ctx.chain.chains.settlement.rpcUrl) }),
    ctx.chain.contracts.providerRegistry,
  );
  await nodes.start({ ...ctx, rpcTls, isStaked });
  if (netns) setNetFaults(ctx.config, netns.faults, ctx.chain.chains.settlement.rpcUrl, nodes);
  return { rpcTls };
}

/**
 * With netns, once the nodes serve: where the settlement chain and each node process's own APIs are (the
 * `settlement` and `clients` pseudo-hosts of a fault), then `--fault`'s faults.
 */
function setNetFaults(cfg: DevnetConfig, faults: NetFaults, settlementRpcUrl: string, nodes: NodeHost): void {
  faults.placeSettlement(settlementRpcUrl);
  const procs = nodes.processes;
  for (const p of procs ? [procs.bidder, ...procs.providers] : [])
    if (p.spec.netns && p.url && p.rpcUrl)
      faults.placeClients(p.spec.netns.host, [Number(new URL(p.url).port), Number(new URL(p.rpcUrl).port)]);
  for (const f of cfg.faults ?? []) faults.set(f);
  log.info("network faults", {
    ...faults.available(),
    set: (cfg.faults ?? []).map((f) => JSON.stringify(f)).join(" ") || "none",
  });
}

async function rpcCertificate(cfg: DevnetConfig, dir: DataDir): Promise<TlsFiles | undefined> {
  if (cfg.rpcTlsCert && cfg.rpcTlsKey) return readTlsFiles(cfg.rpcTlsCert, cfg.rpcTlsKey);
  return cfg.rpcTls ? devnetCertificate(dir.rpcTlsCert, dir.rpcTlsKey, cfg.host) : undefined;
}
