/**
 * A bidder or provider node on a thread of its own (roleThread.ts): the `--role` arguments and the MessagePorts to
 * its peers come in a "start" message; it answers "ready" with its URLs (or "failed"), and "stopped" after "stop".
 */

import { PortNetwork } from "../network/portNetwork.ts";
import { setLogLevel } from "../util/log.ts";
import { parseRoleArgs } from "./roleConfig.ts";
import type { RoleThreadCommand, RoleThreadReport } from "./roleThread.ts";
import { type StartedNode, startNodeOn } from "./startRoleNode.ts";

declare const self: Worker;

let node: StartedNode | undefined;
let network: PortNetwork | undefined;
const report = (r: RoleThreadReport) => self.postMessage(r);

self.onmessage = async (e: MessageEvent<RoleThreadCommand>) => {
  const m = e.data;
  if (m.t === "start") {
    try {
      const cfg = parseRoleArgs(m.argv);
      if (cfg === "help" || cfg.role === "bootnode") throw new Error("a node thread runs a bidder or a provider");
      setLogLevel(cfg.logLevel);
      network = new PortNetwork(m.ports);
      node = await startNodeOn(cfg, network);
      report({ t: "ready", url: node.url!, rpcUrl: node.rpcUrl });
    } catch (err) {
      report({ t: "failed", message: (err as Error).message });
    }
    return;
  }
  await node?.stop();
  network?.close();
  report({ t: "stopped" });
};
