import { createPublicClient, http } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { type AnvilChain, startAnvil } from "../chain/anvil.ts";
import { logger } from "../util/log.ts";
import { keepLastGoodState } from "./chainStateFile.ts";
import { configuredPorts, type DevnetConfig, FOREIGN_L1_GENESIS_NUMBER } from "./config.ts";
import type { DataDir } from "./dataDir.ts";

const log = logger("devnet");

/** The chain's state file, checked before Anvil loads it (a torn dump gives way to the last good copy). */
function checkedState(dir: DataDir, name: "l1" | "settlement"): string {
  const path = dir.chainState(name);
  const check = keepLastGoodState(path);
  if (check.kind === "restored")
    log.warn(
      `the ${name} chain's state file was torn (Anvil was killed while dumping it): starting from the last good copy, taken at the previous start; the torn file is kept`,
      { torn: check.torn },
    );
  if (check.kind === "lost")
    log.error(
      `the ${name} chain's state file was torn (Anvil was killed while dumping it) and there is no good copy: the chain starts from genesis; the torn file is kept`,
      { torn: check.torn },
    );
  return path;
}

export interface ChainEndpoint {
  name: "l1" | "settlement";
  rpcUrl: string;
  chainId: number;
  /** Started by us (and stopped with the devnet), or an existing chain named by a flag. */
  owned: boolean;
  stop(): Promise<void>;
}

/**
 * Genesis base fee of the devnet's settlement chain: 1 mwei, like the mev-commit chain's, where transactions are cheap.
 * Upstream's node sends its transactions with a fixed fee cap (`--gas-fee-cap`, default 60 mwei): against Anvil's
 * default 1 gwei its first stake or deposit would be refused ("max fee per gas less than block base fee").
 */
export const SETTLEMENT_BASE_FEE = 1_000_000n;

/**
 * With no transaction pending, the settlement chain mines a block only when its last one is this old (not every
 * --settlement-block-time): blocks cost an in-memory Anvil memory for good (IntervalMiner says how much), and a
 * second keeps block timestamps, which the contracts read, as fresh as Anvil's one-second resolution.
 */
export const SETTLEMENT_IDLE_BLOCK_MS = 1_000;

/**
 * The settlement chain's block gas limit. A store transaction takes ~250k gas, so Anvil's default 30M holds ~120 of
 * them: at 300 commitments/s and a block every 200 ms the pool grew by ~100 a second (measured). 1G holds ~4,000.
 */
export const SETTLEMENT_BLOCK_GAS_LIMIT = 1_000_000_000n;

export class ChainUnreachableError extends MevCommitError {}

async function connect(name: "l1" | "settlement", rpcUrl: string): Promise<ChainEndpoint> {
  try {
    const chainId = await createPublicClient({ transport: http(rpcUrl, { retryCount: 1 }) }).getChainId();
    return { name, rpcUrl, chainId, owned: false, stop: async () => {} };
  } catch (e) {
    throw new ChainUnreachableError(
      `the ${name} chain at ${rpcUrl} does not answer eth_chainId: ${(e as Error).message}`,
    );
  }
}

function owned(c: AnvilChain, name: "l1" | "settlement"): ChainEndpoint {
  return { name, rpcUrl: c.rpcUrl, chainId: c.chainId, owned: true, stop: () => c.stop() };
}

/**
 * The two chains: L1 (manual mining, so the block driver decides each block's coinbase and contents) and the
 * settlement chain (interval mining, a block every --settlement-block-time ms as upstream's: the nodes' store, open
 * and settlement transactions share blocks; 0 = automine, a block per transaction; run as a fork of an empty chain,
 * node/chain/anvil.ts says why). Each is an Anvil we start, with its state dumped to the data dir (the L1 every
 * second, the settlement chain every --settlement-state-interval seconds; a torn dump gives way to the last good copy:
 * chainStateFile.ts), or an existing chain named by --l1-rpc-url / --settlement-rpc-url.
 */
export async function startChains(
  cfg: DevnetConfig,
  dir: DataDir,
): Promise<{ l1: ChainEndpoint; settlement: ChainEndpoint }> {
  const [l1, settlement] = await Promise.all([
    cfg.l1RpcUrl
      ? connect("l1", cfg.l1RpcUrl)
      : startAnvil({
          name: "l1",
          host: cfg.host,
          port: cfg.l1Port,
          chainId: cfg.l1ChainId,
          mining: "manual",
          genesisNumber: BigInt(cfg.l1GenesisNumber ?? (cfg.nodes ? 0 : FOREIGN_L1_GENESIS_NUMBER)),
          statePath: checkedState(dir, "l1"),
          pidDir: dir.pidDir,
        }).then((c) => owned(c, "l1")),
    cfg.settlementRpcUrl
      ? connect("settlement", cfg.settlementRpcUrl)
      : startAnvil({
          name: "settlement",
          host: cfg.host,
          port: cfg.settlementPort,
          chainId: cfg.settlementChainId,
          mining:
            cfg.settlementBlockTimeMs > 0
              ? { intervalMs: cfg.settlementBlockTimeMs, idleIntervalMs: SETTLEMENT_IDLE_BLOCK_MS }
              : "auto",
          emptyFork: { keepStates: cfg.settlementHistory, port: cfg.settlementGenesisPort },
          avoidPorts: configuredPorts(cfg),
          keepTxBlocks: cfg.settlementKeepBlocks || undefined,
          blockGasLimit: SETTLEMENT_BLOCK_GAS_LIMIT,
          stateIntervalS: cfg.settlementStateIntervalS,
          baseFeePerGas: SETTLEMENT_BASE_FEE,
          // v1.2's bidders delegate their accounts to the DepositManager with EIP-7702 (type-4) transactions.
          hardfork: cfg.rules.settlementHardfork,
          statePath: checkedState(dir, "settlement"),
          pidDir: dir.pidDir,
        }).then((c) => owned(c, "settlement")),
  ]);
  return { l1, settlement };
}
