import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { nonceManager } from "viem/accounts";
import { devAccount } from "../chain/accounts.ts";
import type { ProtocolVersion } from "../protocol/protocolVersion.ts";
import { rulesOf } from "../protocol/rules.ts";
import { cannotMakeHosts } from "../role/netnsHosts.ts";
import { within } from "../util/deadline.ts";
import { setLogSink } from "../util/log.ts";
import { freePorts } from "../util/ports.ts";
import { DEFAULTS, type DevnetConfig } from "./config.ts";
import { type Devnet, startDevnet } from "./startDevnet.ts";

export interface LocalDevnet {
  devnet: Devnet;
  /** Stops the devnet and deletes its temporary data dir. */
  stop(): Promise<void>;
}

/**
 * What a throw-away devnet changes of DEFAULTS. The protocol is named, as on the command line (`protocol`, else
 * DEFAULTS' v1.1): this launcher is where its rules are built, and the conformance suite, which imports nothing else
 * of the node, names it too.
 */
export type LocalDevnetOverrides = Partial<Omit<DevnetConfig, "rules">> & { protocol?: ProtocolVersion };

/**
 * A throw-away devnet for tests, benchmarks and load runs: every port picked free, state in a fresh temp dir,
 * manual L1 mining, logs appended to `logFile` (the console stays readable). `overrides` change anything else.
 */
export async function startLocalDevnet(
  { protocol, ...overrides }: LocalDevnetOverrides,
  logFile: string,
): Promise<LocalDevnet> {
  mkdirSync(dirname(logFile), { recursive: true });
  rmSync(logFile, { force: true });
  setLogSink((line) => appendFileSync(logFile, `${line}\n`));
  const dataDir = mkdtempSync(join(tmpdir(), "mev-commit-devnet-"));
  const providers = overrides.providers ?? DEFAULTS.providers;
  const [l1Port, settlementPort] = await freePorts(2);
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  const devnet = await startDevnet({
    ...DEFAULTS,
    dataDir,
    fresh: true,
    bidderPort: 0,
    providerPorts: Array.from({ length: providers }, () => 0),
    bootnodePort: 0,
    bidderP2pPort: 0,
    providerP2pPorts: Array.from({ length: providers }, () => 0),
    bidderRpcPort: 0,
    providerRpcPorts: Array.from({ length: providers }, () => 0),
    controlPort: 0,
    beaconPort: 0,
    l1Port: l1Port!,
    settlementPort: settlementPort!,
    l1BlockTime: 0,
    logLevel: "debug",
    ...overrides,
    rules: protocol === undefined ? DEFAULTS.rules : rulesOf(protocol),
  }).catch((e: unknown) => {
    removeDataDir();
    throw e;
  });
  return {
    devnet,
    async stop() {
      try {
        await within("the devnet to stop", 45_000, devnet.stop());
      } finally {
        removeDataDir();
      }
      // viem's nonce manager is process-wide: the next devnet's fresh chains start every account at nonce 0 again.
      for (const chainId of [devnet.chains.l1.chainId, devnet.chains.settlement.chainId])
        for (let i = 0; i < 20; i++) nonceManager.reset({ address: devAccount(i).address, chainId });
    },
  };
}

/** Why this machine cannot start a `--network netns` devnet (root and iproute2 are needed), or undefined when it can. */
export const cannotStartNetnsDevnet = (): string | undefined => cannotMakeHosts();
