import type { Served } from "../api/serve.ts";
import { serve } from "../api/serve.ts";
import { networkFaultsApi } from "../control/networkFaultsApi.ts";
import { type SimControl, simApi } from "../control/simApi.ts";
import { devnetExplorer } from "../explorer/devnetExplorer.ts";
import { bidsApi, explorerPage } from "../explorer/explorerApi.ts";
import type { ExplorerHub } from "../explorer/explorerHub.ts";
import type { NetFaults } from "../faults/netFaults.ts";
import { beaconApi } from "../validators/beaconApi.ts";
import type { DevnetConfig } from "./config.ts";
import type { NodeHost, StopStep } from "./nodeHost.ts";
import type { ChainParts } from "./startChainsAndContracts.ts";
import type { OracleParts } from "./startOracle.ts";

export const NO_NET_FAULTS = "network faults need --network netns (each node on a host of its own)";

/** The control phase's result: the control API (/sim/v1, the explorer page) and the beacon API. */
export interface ControlParts {
  readonly control: Served;
  readonly beacon: Served;
  /** The explorer page's sources and live stream (`/explorer/` on the control port). */
  readonly explorer: ExplorerHub;
}

export interface ControlSources {
  config: DevnetConfig;
  /** The devnet the control API drives. */
  sim: SimControl;
  chain: ChainParts;
  oracle: OracleParts;
  nodes: NodeHost;
  netFaults: NetFaults | undefined;
}

/**
 * The control phase: the explorer (its handlers on the oracle's event follower, which starts after this phase), the
 * control API with the bids and network-fault routes and the explorer page, the beacon API of the simulated beacon
 * schedule (what other nodes' validator services call), then `--auto-accept`'s built-in provider applications.
 */
export async function startControl(s: ControlSources): Promise<ControlParts> {
  const explorer = devnetExplorer({
    events: s.oracle.events,
    bids: s.oracle.bidOutcomes,
    notifier: () => s.nodes.bidderFeed().notifier,
    bidderProcessUrl: () => s.nodes.bidderFeed().url,
    info: async () => ({ ...(await s.sim.status()) }),
  });
  const app = simApi(s.sim)
    .use(
      bidsApi(
        s.oracle.bidOutcomes,
        "the devnet runs no nodes of its own (--no-nodes): per-bid outcomes are recorded only for its own bidder",
      ),
    )
    .use(networkFaultsApi(s.netFaults, NO_NET_FAULTS))
    .use(explorerPage(explorer));
  const control = serve(app, s.config.host, s.config.controlPort, "control API");
  const beacon = serve(beaconApi(s.chain.validators), s.config.host, s.config.beaconPort, "beacon API");
  if (s.config.nodes && s.config.autoAccept) await s.nodes.attachResponders();
  return { control, beacon, explorer };
}

/** After the L1 driver stopped: the explorer's stream, then the control and beacon APIs. */
export async function stopControl(c: ControlParts | undefined, step: StopStep): Promise<void> {
  c?.explorer.stop();
  await step("the control API", () => c?.control.stop());
  await step("the beacon API", () => c?.beacon.stop());
}
