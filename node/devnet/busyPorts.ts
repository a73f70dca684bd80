/** Before a devnet starts anything: every port it will listen on must be free, else it names the busy one. */
import { portFree } from "../util/ports.ts";
import { type DevnetConfig, extraBidderPort, MAX_PORT_BASE, portsFromBase, StartRefusedError } from "./config.ts";

export interface NamedPort {
  port: number;
  /** The flag that sets it ("--l1-port"), or how it follows from one ("--bidder-port + 2"). */
  flag: string;
}

/** The fixed ports the devnet listens on with this config (0, chosen at listen time, is left out). */
export function namedPorts(cfg: DevnetConfig): NamedPort[] {
  const out: NamedPort[] = [];
  const add = (port: number, flag: string) => {
    if (port > 0) out.push({ port, flag });
  };
  add(cfg.controlPort, "--control-port");
  add(cfg.beaconPort, "--beacon-port");
  if (!cfg.l1RpcUrl) add(cfg.l1Port, "--l1-port");
  if (!cfg.settlementRpcUrl) {
    add(cfg.settlementPort, "--settlement-port");
    add(cfg.settlementGenesisPort, "--settlement-genesis-port");
  }
  if (!cfg.nodes) return out;
  const processes = cfg.network === "processes" || cfg.network === "netns";
  const libp2p = cfg.network !== "in-process";
  add(cfg.bidderPort, "--bidder-port");
  add(cfg.bidderRpcPort, "--bidder-rpc-port");
  if (processes && cfg.bidderPort > 0) add(cfg.bidderPort + 2, "--bidder-port + 2 (its admin API)");
  for (let j = 0; j < cfg.bidders - 1; j++) {
    add(extraBidderPort(cfg.bidderPort, j), `--bidder-port + ${10 * (j + 1)} (bidder ${j + 1})`);
    add(extraBidderPort(cfg.bidderRpcPort, j), `--bidder-rpc-port + ${10 * (j + 1)} (bidder ${j + 1})`);
  }
  if (libp2p) {
    add(cfg.bootnodePort, "--bootnode-port");
    add(cfg.bidderP2pPort, "--bidder-p2p-port");
  }
  for (let i = 0; i < cfg.providers; i++) {
    const http = cfg.providerPorts[i] ?? 0;
    add(http, `--provider-ports (provider ${i})`);
    add(cfg.providerRpcPorts[i] ?? 0, `--provider-rpc-ports (provider ${i})`);
    if (processes && http > 0) add(http + 2, `--provider-ports + 2 (provider ${i}'s admin API)`);
    if (libp2p) add(cfg.providerP2pPorts[i] ?? 0, `--provider-p2p-ports (provider ${i})`);
  }
  return out;
}

/** Some of the devnet's ports are taken: the first names its flag, and `--port-base` moves them all. */
export class PortsBusyError extends StartRefusedError {
  constructor(
    readonly busy: NamedPort[],
    readonly host: string,
    readonly freeBase: number | undefined,
  ) {
    const [first, ...more] = busy;
    const others = more.length ? ` (and ${more.length} more of its ports: ${more.map((p) => p.port).join(", ")})` : "";
    const base = freeBase === undefined ? "N" : String(freeBase);
    super(
      `port ${first!.port} (${first!.flag}) on ${host} is in use${others}: another devnet or program listens there; ` +
        `start this one on other ports with --port-base ${base}${freeBase === undefined ? "" : " (free now)"}, or stop what listens`,
      { context: { busy, host, freeBase } },
    );
  }
}

/** The first of a few --port-base values all of whose ports are free now, for the error's advice. */
async function freeBase(cfg: DevnetConfig): Promise<number | undefined> {
  for (let base = 20_000; base <= Math.min(MAX_PORT_BASE, 29_000); base += 1_000) {
    const ports = namedPorts({ ...cfg, ...portsFromBase(base, cfg.providers) });
    if ((await Promise.all(ports.map((p) => portFree(p.port, cfg.host)))).every(Boolean)) return base;
  }
  return undefined;
}

/** Throws PortsBusyError when a port the devnet will listen on is taken. */
export async function checkPortsFree(cfg: DevnetConfig): Promise<void> {
  const ports = namedPorts(cfg);
  const free = await Promise.all(ports.map((p) => portFree(p.port, cfg.host)));
  const busy = ports.filter((_, i) => !free[i]);
  if (busy.length) throw new PortsBusyError(busy, cfg.host, await freeBase(cfg));
}
