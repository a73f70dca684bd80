/** A --port-base for a devnet started by a test or a tool: one whose every derived port is free now. */
import { createServer } from "node:net";
import { portsFromBase } from "../devnet/config.ts";

function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = createServer();
    s.once("error", () => done(false));
    s.listen(port, "127.0.0.1", () => s.close(() => done(true)));
  });
}

/** A base all of whose derived ports are free now, below the ephemeral range (the devnet's own dials use that). */
export async function freePortBase(providers: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 16_000 + 10 * Math.floor(Math.random() * 1_500);
    const p = portsFromBase(base, providers);
    const all = [
      p.controlPort,
      p.beaconPort,
      p.l1Port,
      p.settlementPort,
      p.settlementGenesisPort,
      p.bootnodePort,
      p.bidderP2pPort,
      p.bidderPort,
      p.bidderRpcPort,
      ...p.providerP2pPorts,
      ...p.providerPorts,
      ...p.providerRpcPorts,
    ];
    if ((await Promise.all(all.map(portFree))).every(Boolean)) return base;
  }
  throw new Error("no base with every derived port free");
}
