import type { TlsFiles } from "../grpc/tls.ts";
import type { DevnetClaim } from "./claimDevnet.ts";
import type { NodeHost } from "./nodeHost.ts";
import type { ChainParts } from "./startChainsAndContracts.ts";
import type { OracleParts } from "./startOracle.ts";

/** Everything a running devnet is made of, one part per start phase (startDevnet builds them in this order). */
export interface DevnetParts {
  /** The data dir (locked) and, with netns, the nodes' hosts: claimDevnet. */
  readonly claim: DevnetClaim;
  /** The chains, the contracts and the beacon schedule: startChainsAndContracts. */
  readonly chain: ChainParts;
  /** The L1 block driver and builder, the oracle and the bid record: startOracle. */
  readonly oracle: OracleParts;
  /** Where the nodes run: startNodes. */
  readonly nodes: NodeHost;
  /** The nodes' gRPC certificate, with --rpc-tls. */
  readonly rpcTls: TlsFiles | undefined;
}
