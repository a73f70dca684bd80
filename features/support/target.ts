import { readFileSync } from "node:fs";
import { mkdtempSync, rmSync, appendFileSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import type { Target } from "../../node/devnet/target.ts";
import { DEFAULTS } from "../../node/devnet/config.ts";
import { startDevnet, type Devnet } from "../../node/devnet/startDevnet.ts";
import { freePort } from "../../node/util/ports.ts";
import { setLogSink } from "../../node/util/log.ts";

export type { Target };

export class TargetFileError extends Error {
  override name = "TargetFileError";
}

const REQUIRED: (keyof Target)[] = ["bidderUrl", "providerUrls", "l1RpcUrl", "settlementRpcUrl", "contracts", "capabilities"];

/** Reads and checks a target file (TARGET=path). */
export function loadTargetFile(path: string): Target {
  let t: Target;
  try {
    t = JSON.parse(readFileSync(path, "utf8")) as Target;
  } catch (e) {
    throw new TargetFileError(`cannot read target file ${path}: ${(e as Error).message}`);
  }
  const missing = REQUIRED.filter((k) => t[k] === undefined);
  if (missing.length) throw new TargetFileError(`target file ${path} lacks ${missing.join(", ")}`);
  return { ...t, name: t.name ?? path };
}

export interface StartedTarget {
  target: Target;
  devnet?: Devnet;
  stop(): Promise<void>;
}

/**
 * The target of this run: the file named by TARGET, or a reference devnet the suite starts itself (manual L1
 * mining, no auto-accept, no auto-deposit, every port picked free, state in a temp dir, logs in reports/).
 */
export async function startTarget(): Promise<StartedTarget> {
  const file = process.env.TARGET;
  if (file) return { target: loadTargetFile(resolve(file)), stop: async () => {} };
  mkdirSync("reports", { recursive: true });
  const logFile = join("reports", "devnet.log");
  rmSync(logFile, { force: true });
  setLogSink((line) => appendFileSync(logFile, line + "\n"));
  const dataDir = mkdtempSync(join(tmpdir(), "mev-commit-devnet-"));
  const devnet = await startDevnet({
    ...DEFAULTS,
    dataDir,
    fresh: true,
    bidderPort: 0,
    providerPorts: [0, 0],
    controlPort: 0,
    l1Port: await freePort(),
    settlementPort: await freePort(),
    l1BlockTime: 0,
    autoAccept: false,
    autodepositAmount: undefined,
    bidTimeoutMs: 5_000,
    decisionTimeoutMs: 5_000,
    logLevel: "debug",
  });
  return {
    target: devnet.target(),
    devnet,
    async stop() {
      await devnet.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
