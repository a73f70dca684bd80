import { resolve } from "node:path";
import { type Subprocess, spawn } from "bun";
import type { Hex } from "viem";
import type { LocalDevnet } from "../devnet/localDevnet.ts";
import { runDevnetOnce } from "./devnetChild.ts";

const ROOT = resolve(import.meta.dir, "../..");

export type RoleChild = { proc: Subprocess<"ignore", "pipe", "pipe">; name: string };

export interface RoleProcess {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** The node's HTTP API, as its banner prints it. */
  url: string;
  /** Everything the process printed so far (stdout and stderr). */
  out(): string;
}

/**
 * A `--role` node (`bun node/main.ts --role …`) in a process of its own, joined to a test devnet through its target
 * file and its bootnode, on free ports; answers once the node prints its API. The process goes into `children` so
 * that the test's stopProcesses stops it.
 */
export async function startRoleProcess(
  d: LocalDevnet["devnet"],
  o: {
    role: "provider" | "bidder";
    key: Hex;
    dataDir: string;
    extra?: string[];
    children: RoleChild[];
    /** Also wait for this in its output (a flag handled at start), not only for its API. */
    ready?: RegExp;
    timeoutMs?: number;
  },
): Promise<RoleProcess> {
  const args = ["--role", o.role, "--key", o.key, "--contracts", d.dir.targetFile];
  args.push("--bootnodes", d.networks!.bootnodeAddrs()[0]!, "--p2p-addr", "127.0.0.1", "--p2p-port", "0");
  args.push("--http-port", "0", "--rpc-port", "0", "--data-dir", o.dataDir, ...(o.extra ?? []));
  // It stops by itself if this test process dies before its stopProcesses runs.
  args.push("--parent-pid", String(process.pid));
  const proc = spawn(["bun", "node/main.ts", ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  o.children.push({ proc, name: `${o.role} node ${o.key.slice(0, 10)}…` });
  let text = "";
  const dec = new TextDecoder();
  void (async () => {
    for await (const c of proc.stdout) text += dec.decode(c);
  })();
  void (async () => {
    for await (const c of proc.stderr) text += dec.decode(c);
  })();
  const until = Date.now() + (o.timeoutMs ?? 60_000);
  for (; Date.now() < until && proc.exitCode === null; await Bun.sleep(100)) {
    const m = /API\s+(http:\/\/\S+)/.exec(text);
    if (m && (!o.ready || o.ready.test(text))) return { proc, url: m[1]!, out: () => text };
  }
  throw new Error(`${o.role} node did not start (exit code ${proc.exitCode}):\n${text}`);
}

/**
 * `bun node/main.ts --role … ARGS…` expected to exit by itself (a refused start): its exit code and output. It
 * watches this process (`--parent-pid`), and is SIGKILLed if it has not exited within `timeoutMs`.
 */
export const runRoleOnce = runDevnetOnce;
