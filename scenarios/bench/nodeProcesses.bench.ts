/**
 * A node per process, or per thread: `npm run bench:processes -- [--nodes processes|threads] [--latency-bids L]
 * [--bids N] [--concurrency C]`.
 *
 * A devnet without nodes of its own (chains, contracts, oracle, L1 driver: `--no-nodes`) in this process, then two
 * providers (staked, each with the built-in accept-all application over its API) and a bidder (with a deposit for the
 * window of the bids' block, or on `--protocol v1.2` one with each provider), each a `--role` node (node/role) of its own. `--nodes processes` (default): each node a
 * process, meeting over libp2p around a bootnode, as separate machines would. `--nodes threads`: each node a Worker
 * of this process with its own event loop, meeting over MessagePorts (node/network/portNetwork.ts): the parallelism
 * of separate machines without libp2p's CPU. L bids one at a time (first-commitment p50 and p99), then N bids with C
 * in flight go to the bidder over HTTP; it prints commitments/s and the CPU each process used per commitment (from
 * /proc), with the load average, to compare with `npm run bench:bids` (every node on one event loop). The
 * benchmark's client runs on a thread of this process.
 */

import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { type Subprocess, spawn } from "bun";
import { parseEther } from "viem";
import { CliUsageError, exitOnCliErrors, numberOption, parseCliArgs } from "../../lib/cli.ts";
import { devAccount } from "../../node/chain/accounts.ts";
import { stopAllAnvils } from "../../node/chain/anvil.ts";
import { registerProvider } from "../../node/chain/deploy.ts";
import { DEFAULTS, type DevnetConfig } from "../../node/devnet/config.ts";
import { startDevnet } from "../../node/devnet/startDevnet.ts";
import { parseProtocolVersion, UnknownProtocolVersionError } from "../../node/protocol/protocolVersion.ts";
import { rulesOf } from "../../node/protocol/rules.ts";
import { windowOfBlock } from "../../node/protocol/windows.ts";
import { type RoleThread, startNodeThreads } from "../../node/role/roleThread.ts";
import { bidProviders } from "../../node/testing/bidProviders.ts";
import { stopProcesses } from "../../node/testing/stopProcesses.ts";
import { until } from "../../node/util/deadline.ts";
import { setLogLevel } from "../../node/util/log.ts";
import { freePort } from "../../node/util/ports.ts";
import { driveClosed, summarise, summaryLines } from "./bidPhase.ts";
import { type ThreadClient, threadBidSender } from "./clientThread.ts";
import { bidBodies, ms } from "./common.ts";
import { measureCryptoFloor } from "./cryptoFloor.ts";
import { cpuMsOf, mib, rssOf } from "./health.ts";

exitOnCliErrors({ cleanup: stopAllAnvils });
const { values: args } = parseCliArgs({
  options: {
    nodes: { type: "string", default: "processes" },
    protocol: { type: "string" },
    "latency-bids": { type: "string", default: "200" },
    bids: { type: "string", default: "2000" },
    concurrency: { type: "string", default: "32" },
    help: { type: "boolean", short: "h" },
  },
});
if (args.help) {
  console.log(`Usage: npm run bench:processes -- [options]
  --protocol VERSION  v1.1 | v1.2: the protocol of the devnet and its nodes (default v1.1)
  --nodes MODE        processes (default: a process per node, over libp2p) or threads (a thread per node of this
                      process, over MessagePorts)
  --latency-bids L    bids sent one at a time first (default 200; 0: none)
  --bids N            bids of the throughput phase (default 2000)
  --concurrency C     bids in flight in the throughput phase (default 32)`);
  process.exit(0);
}
const N = numberOption("--bids", args.bids, 2000, { min: 1 });
const C = numberOption("--concurrency", args.concurrency, 32, { min: 1 });
const L = numberOption("--latency-bids", args["latency-bids"], 200);
const THREADS = args.nodes === "threads";
const PROTOCOL = (() => {
  try {
    return parseProtocolVersion(args.protocol);
  } catch (e) {
    if (e instanceof UnknownProtocolVersionError) throw new CliUsageError(`--protocol: ${e.message}`);
    throw e;
  }
})();
const RULES = rulesOf(PROTOCOL);
if (!["processes", "threads"].includes(args.nodes!))
  throw new CliUsageError(`--nodes takes processes or threads, got "${args.nodes}"`);
const ROOT = resolve(import.meta.dir, "../..");
const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const print = (line: string) => console.log(line);
setLogLevel("warn");

print(`machine: ${os.cpus().length} cores; Bun ${Bun.version}; load average ${loadavg()} at start`);
const floor = await measureCryptoFloor(2);
print(
  `crypto floor (no I/O, same run): ${floor.commitmentsPerSec.toFixed(0)} commitments/s on ${floor.cores} cores; load average ${loadavg()}`,
);

const dataDir = mkdtempSync(join(os.tmpdir(), "mev-commit-bench-processes-"));
const devnet = await startDevnet({
  ...DEFAULTS,
  rules: RULES,
  dataDir,
  fresh: true,
  nodes: false,
  bidderPort: 0,
  providerPorts: [0, 0],
  bidderRpcPort: 0,
  providerRpcPorts: [0, 0],
  controlPort: 0,
  beaconPort: 0,
  l1Port: await freePort(),
  settlementPort: await freePort(),
  l1BlockTime: 0,
  logLevel: "warn",
  bootnodePort: 0,
  bidderP2pPort: 0,
  providerP2pPorts: [0, 0],
} as DevnetConfig);

/** The nodes on threads (`--nodes threads`), the bidder first: the order they stop in. */
const threads: RoleThread[] = [];
let client: ThreadClient | undefined;
/**
 * The `--role` arguments every node of this benchmark shares. Nodes on threads log to this process's console, so only
 * their errors by default (ROLE_LOG_LEVEL to change it); processes' output is kept and shown if one fails.
 */
const roleArgs = (name: string, role: string, key: string) => [
  "--role",
  role,
  "--key",
  key,
  "--contracts",
  devnet.dir.targetFile,
  "--http-port",
  "0",
  "--rpc-port",
  "0",
  "--data-dir",
  join(dataDir, name),
  "--log-level",
  process.env.ROLE_LOG_LEVEL ?? (THREADS ? "error" : "warn"),
];

const children: { proc: Subprocess<"ignore", "pipe", "pipe">; name: string; out: () => string }[] = [];
async function roleProcess(
  name: string,
  role: string,
  key: string,
  extra: string[],
  ready: RegExp,
): Promise<{ pid: number; match: RegExpExecArray }> {
  const proc = spawn(
    [
      process.execPath,
      "node/main.ts",
      ...roleArgs(name, role, key),
      "--p2p-addr",
      "127.0.0.1",
      "--p2p-port",
      "0",
      ...extra,
    ],
    {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  let text = "";
  children.push({ proc, name, out: () => text });
  const dec = new TextDecoder();
  void (async () => {
    for await (const c of proc.stdout) text += dec.decode(c);
  })();
  void (async () => {
    for await (const c of proc.stderr) text += dec.decode(c);
  })();
  let match: RegExpExecArray | null = null;
  await until(`${name} to start`, 90_000, () => {
    if (proc.exitCode !== null) throw new Error(`${name} exited (${proc.exitCode}):\n${text}`);
    return (match = ready.exec(text)) !== null;
  });
  return { pid: proc.pid, match: match! };
}

try {
  const providerKeys = [devAccount(11), devAccount(12)];
  const bidderKey = devAccount(13);
  for (const p of providerKeys)
    await registerProvider({
      rpcUrl: devnet.chains.settlement.rpcUrl,
      addresses: devnet.contracts,
      providerKey: p.privateKey,
      stake: parseEther("20"),
    });
  let url: string;
  let pids: Record<string, number> = {};
  if (THREADS) {
    const nodes = await startNodeThreads(
      providerKeys.map((p, i) => [...roleArgs(`provider-${i}`, "provider", p.privateKey), "--auto-accept"]),
      roleArgs("bidder", "bidder", bidderKey.privateKey),
    );
    threads.push(nodes.bidder, ...nodes.providers);
    url = nodes.bidder.url;
  } else {
    const boot = await roleProcess(
      "bootnode",
      "bootnode",
      devAccount(14).privateKey,
      [],
      /libp2p\s+(\/ip4\/127\.0\.0\.1\/\S+)/,
    );
    const bootAddr = boot.match[1]!;
    const providers = await Promise.all(
      providerKeys.map((p, i) =>
        roleProcess(
          `provider-${i}`,
          "provider",
          p.privateKey,
          ["--bootnodes", bootAddr, "--auto-accept"],
          /API\s+(http:\/\/\S+)/,
        ),
      ),
    );
    const bidder = await roleProcess(
      "bidder",
      "bidder",
      bidderKey.privateKey,
      ["--bootnodes", bootAddr],
      /API\s+(http:\/\/\S+)/,
    );
    url = bidder.match[1]!;
    pids = { bidder: bidder.pid, "provider 0": providers[0]!.pid, "provider 1": providers[1]!.pid, bootnode: boot.pid };
  }
  const block = (await devnet.driver.blockNumber()) + 1n;
  // Every bid goes for one block (L1 is not mined during the run): v1.1, a deposit into its window covers them all;
  // v1.2, a deposit with each provider.
  const deposits =
    RULES.deposits === "provider"
      ? providerKeys.map((p) => `${url}/v1/bidder/deposit/${parseEther("1000")}?provider=${p.address}`)
      : [`${url}/v1/bidder/deposit/${parseEther("1000")}?window_number=${windowOfBlock(block)}`];
  for (const to of deposits) {
    const dep = await fetch(to, { method: "POST" });
    if (!dep.ok) throw new Error(`the bidder's deposit answered ${dep.status}: ${await dep.text()}`);
  }
  let probe = 0;
  let last = "";
  await until(
    `the bidder to get commitments from both providers (${args.nodes})`,
    120_000,
    async () => {
      const got = await bidProviders(url, block, ++probe).catch((e) => String(e));
      last = JSON.stringify(got);
      return Array.isArray(got) && got.length === 2;
    },
    500,
  ).catch((e) => {
    throw new Error(
      `${(e as Error).message}; last answer: ${last}; processes said:\n${children.map((c) => `${c.name}:\n${c.out().slice(-1500)}`).join("\n")}`,
    );
  });

  const body = bidBodies({ seed: 0x7654321n, block: () => block });

  // The client on a thread of its own, as in bench:bids: the latency is the nodes', not the devnet's loop's.
  client = await threadBidSender("http", url);
  await driveClosed(client.send, body, 50, 8); // warm-up
  const where = THREADS ? "a thread per node over MessagePorts" : "a process per node over libp2p";
  if (L > 0) {
    print(`\nlatency: ${L} bids, one at a time, ${where}; load average ${loadavg()}`);
    const one = summarise(await driveClosed(client.send, body, L, 1), 2);
    for (const l of summaryLines(one, 2)) print(l);
  }
  const cpu0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMsOf(pid) ?? 0]));
  const self0 = process.cpuUsage();
  print(`\nthroughput: ${N} bids, ${C} in flight, ${where}; load average ${loadavg()}`);
  const run = await driveClosed(client.send, body, N, C);
  const s = summarise(run, 2);
  for (const l of summaryLines(s, 2)) print(l);
  print(
    `ratio to the floor:  ${(s.commitmentsPerSec / floor.commitmentsPerSec).toFixed(3)} (${s.commitmentsPerSec.toFixed(0)} of ${floor.commitmentsPerSec.toFixed(0)} commitments/s)`,
  );
  const selfCpu = process.cpuUsage(self0);
  const per = (msUsed: number) => `${(msUsed / Math.max(1, s.commitments)).toFixed(2)} ms`;
  const lines = Object.entries(pids).map(
    ([k, pid]) => `${k} ${per((cpuMsOf(pid) ?? 0) - cpu0[k]!)} (rss ${mib(rssOf(pid))})`,
  );
  lines.push(
    `${THREADS ? "this process (the nodes' threads, the devnet and the client)" : "devnet + client"} ${per((selfCpu.user + selfCpu.system) / 1000)}`,
  );
  print(`CPU per commitment:  ${lines.join(", ")}`);
  print(`first commitment p50 ${ms(s.first.p50)}, p99 ${ms(s.first.p99)}; load average ${loadavg()} at the end`);
} finally {
  await client?.close();
  for (const t of threads) await t.stop();
  await stopProcesses(children);
  await devnet.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
