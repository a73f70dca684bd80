import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Target } from "../../node/devnet/target.ts";
import type { Devnet } from "../../node/devnet/startDevnet.ts";
import { startLocalDevnet } from "../../node/devnet/localDevnet.ts";

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
  const { devnet, stop } = await startLocalDevnet(
    { autoAccept: false, autodepositAmount: undefined, bidTimeoutMs: 5_000, decisionTimeoutMs: 5_000 },
    join("reports", "devnet.log"),
  );
  return { target: devnet.target(), devnet, stop };
}
