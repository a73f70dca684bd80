#!/usr/bin/env bun
import { describeCliError } from "../lib/cli.ts";
import { stopAllAnvils } from "./chain/anvil.ts";
import { banner, providerStakes } from "./devnet/banner.ts";
/** `bun run node`: starts a whole devnet and serves it until Ctrl-C; with `--role`, one node of a network. */
import { ConfigError, HELP, parseDevnetArgs, StartRefusedError } from "./devnet/config.ts";
import { type Devnet, startDevnet } from "./devnet/startDevnet.ts";
import { describeWrittenKey, newKeyRequest, writeNewKey } from "./role/newKey.ts";
import { parseRoleArgs, ROLE_HELP, RoleConfigError } from "./role/roleConfig.ts";
import { type RoleNode, startRoleNode } from "./role/startRoleNode.ts";
import { logger, setLogLevel } from "./util/log.ts";

const log = logger("main");

/**
 * Stops what the process runs, once, on Ctrl-C, SIGTERM, SIGHUP or an uncaught exception, then exits (`stop`
 * names what is running at that moment; 10 s at most). Returns the same shutdown for the caller's own failures.
 */
function handleShutdown(stop: () => Promise<void>): (why: string, code: number) => Promise<void> {
  let exiting = false;
  const shutdown = async (why: string, code: number) => {
    if (exiting) return;
    exiting = true;
    log.info(`stopping (${why})`);
    setTimeout(() => process.exit(code || 1), 10_000).unref();
    await stop().catch((e) => log.error("stop failed", { error: e }));
    process.exit(code);
  };
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(sig, () => void shutdown(sig, 0));
  process.on("uncaughtException", (e) => {
    log.error("uncaught exception", { error: e, stack: e.stack });
    void shutdown("crash", 1);
  });
  process.on("unhandledRejection", (e) => log.error("unhandled rejection", { error: e }));
  return shutdown;
}

/** `--parent-pid`: shuts down once that process is gone (a test or devnet that started this one died). */
function watchParent(parent: number | undefined, shutdown: (why: string, code: number) => Promise<void>): void {
  if (parent === undefined) return;
  setInterval(() => {
    try {
      process.kill(parent, 0);
    } catch {
      void shutdown(`parent process ${parent} is gone`, 0);
    }
  }, 1_000).unref();
}

async function main(): Promise<void> {
  let cfg;
  try {
    cfg = parseDevnetArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`error: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
  if (cfg === "help") {
    process.stdout.write(HELP);
    return;
  }
  setLogLevel(cfg.logLevel);
  let devnet: Devnet | undefined;
  const shutdown = handleShutdown(() => (devnet ? devnet.stop() : stopAllAnvils()));
  watchParent(cfg.parentPid, shutdown);
  try {
    devnet = await startDevnet(cfg);
  } catch (e) {
    // Refused before anything started (the data dir's devnet runs, a port is busy): one line, nothing to stop.
    if (e instanceof StartRefusedError) {
      console.error(`error: ${e.message}`);
      process.exit(2);
    }
    if (e instanceof ConfigError) console.error(`error: ${e.message}`);
    else
      console.error(
        describeCliError(e, {
          unreachable: "check --l1-rpc-url / --settlement-rpc-url, or leave them out to start local chains",
        }).line.replace(/^error: /, "error: the devnet failed to start: "),
      );
    await shutdown("start failed", e instanceof ConfigError ? 2 : 1);
    return;
  }
  process.stdout.write(
    `${banner(devnet, devnet.hasNodes ? await providerStakes(devnet).catch(() => undefined) : undefined)}\n`,
  );
}

/** `--role bidder|provider|bootnode`: one node in this process, until Ctrl-C. */
async function mainRole(argv: string[]): Promise<void> {
  let cfg;
  try {
    const newKey = newKeyRequest(argv);
    if (newKey) {
      process.stdout.write(describeWrittenKey(writeNewKey(newKey)));
      return;
    }
    cfg = parseRoleArgs(argv);
  } catch (e) {
    if (e instanceof RoleConfigError) {
      console.error(`error: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
  if (cfg === "help") {
    process.stdout.write(ROLE_HELP);
    return;
  }
  setLogLevel(cfg.logLevel);
  let node: RoleNode | undefined;
  const shutdown = handleShutdown(async () => node?.stop());
  watchParent(cfg.parentPid, shutdown);
  try {
    node = await startRoleNode(cfg);
  } catch (e) {
    // Refused before anything started (a node runs on its data dir, a port is busy): one line, nothing to stop.
    if (e instanceof StartRefusedError) {
      console.error(`error: ${e.message}`);
      process.exit(2);
    }
    console.error(
      describeCliError(e, {
        unreachable: "is the chain running? (--settlement-rpc-url / --l1-rpc-url, or the --contracts file's URLs)",
      }).line.replace(/^error: /, `error: the ${cfg.role} node failed to start: `),
    );
    await shutdown("start failed", 1);
    return;
  }
  const lines = [`${cfg.role} node ${node.network.address} (peer ${node.network.peerId.toString()})`];
  if (node.url) lines.push(`  API        ${node.url}`);
  if (node.rpcUrl) lines.push(`  gRPC       ${node.rpcUrl}`);
  if (node.adminUrl) lines.push(`  admin      ${node.adminUrl}`);
  for (const a of node.network.multiaddrs()) lines.push(`  libp2p     ${a}`);
  if (cfg.bootnodes.length) lines.push(`  bootnodes  ${cfg.bootnodes.join(" ")}`);
  process.stdout.write(`${lines.join("\n")}\n`);
}

if (process.argv.slice(2).some((a) => a === "--role" || a.startsWith("--role="))) await mainRole(process.argv.slice(2));
else await main();
