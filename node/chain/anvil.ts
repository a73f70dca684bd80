import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { type Anvil, type CreateAnvilOptions, createAnvil } from "@viem/anvil";
import { MevCommitError } from "../../lib/errors.ts";
import { freePort } from "../util/ports.ts";
import { IntervalMiner } from "./intervalMiner.ts";

/** Options of one local Anvil chain. */
export interface AnvilOptions {
  /** Name used in logs and pid files ("l1", "settlement"). */
  name: string;
  port: number;
  chainId: number;
  host?: string;
  /**
   * "auto": every transaction is mined at once; "manual": blocks are mined only on request; or a block every
   * `intervalMs` (mined from this process: IntervalMiner), and with `idleIntervalMs`, no block at an interval with no
   * pending transaction unless the last one is that old.
   */
  mining: "auto" | "manual" | { intervalMs: number; idleIntervalMs?: number };
  /** File Anvil loads at start and dumps to every `stateIntervalS` seconds (0: only at a clean stop); survives SIGKILL minus that much. */
  statePath?: string;
  /** Seconds between state dumps (default 1). */
  stateIntervalS?: number;
  /**
   * Run as a fork of an empty chain (a second, idle Anvil this one starts and stops), keeping the states of the
   * last `keepStates` blocks (0: none). Anvil 1.7.1 in its default in-memory mode rebuilds the whole state trie for
   * every block (O(all storage): 230 ms a block at 128k storage slots) and copies the whole state for every block
   * it keeps; in fork mode it computes no state root, so a block costs the copies of the states it keeps (14 ms at
   * 128k slots with 64 kept, 1 ms with none). With none kept, calls at past blocks fail and a call at `latest` can
   * race the next block (BlockOutOfRangeError; localHttp in clients.ts asks again). docs/performance.md has the measurements.
   */
  emptyFork?: {
    keepStates: number /** Port of the empty chain; 0 or absent: a free one not in avoidPorts. */;
    port?: number;
  };
  /** Ports the empty chain of `emptyFork` must not take (others of the devnet, free now and bound later). */
  avoidPorts?: ReadonlySet<number>;
  /** Funded dev accounts (Anvil's default mnemonic); default 30 (roles up to 28: node/chain/accounts.ts). */
  accounts?: number;
  /** Folder for the pid file that lets a later start kill an Anvil orphaned by a SIGKILL. */
  pidDir?: string;
  /** Base fee of the genesis block (wei); Anvil's default is 1 gwei. */
  baseFeePerGas?: bigint;
  /** Number of the genesis block (Anvil's `--number`); default 0. */
  genesisNumber?: bigint;
  /** Gas limit of every block (Anvil's `--gas-limit`); default Anvil's 30,000,000. */
  blockGasLimit?: bigint;
  /** Blocks whose transactions and receipts Anvil keeps (`--transaction-block-keeper`); default all. */
  keepTxBlocks?: number;
  /** EVM hardfork (Anvil's `--hardfork`, e.g. "prague" for EIP-7702 transactions); default Anvil's latest. */
  hardfork?: "prague" | "cancun";
}

export interface AnvilChain {
  name: string;
  rpcUrl: string;
  chainId: number;
  port: number;
  stop(): Promise<void>;
}

export class AnvilStartError extends MevCommitError {
  constructor(
    readonly chain: string,
    readonly port: number,
    readonly logs: string[],
    cause: unknown,
  ) {
    super(
      `anvil (${chain}) failed to start on port ${port}: ${cause instanceof Error ? cause.message : String(cause)}` +
        (logs.length ? `\n  last output: ${logs.slice(-3).join(" | ")}` : ""),
      { cause, context: { chain, port, logs } },
    );
  }
}

/**
 * The real Anvil binary from the `@foundry-rs/anvil-<platform>` npm package. The `anvil` command in
 * node_modules/.bin is a Node wrapper: a SIGKILL of the wrapper would orphan the real binary, so we run the
 * binary itself.
 */
export function anvilBinaryPath(): string {
  const require = createRequire(import.meta.url);
  const pkg = `@foundry-rs/anvil-${process.platform}-${process.arch === "x64" ? "amd64" : process.arch}`;
  try {
    const manifest = require.resolve(`${pkg}/package.json`);
    const bin = join(dirname(manifest), "bin", "anvil");
    if (existsSync(bin)) return bin;
  } catch {
    // fall through to PATH
  }
  return "anvil";
}

const live = new Set<AnvilChain>();

type ExecaParameters = Extract<NonNullable<CreateAnvilOptions["execArgs"]>, readonly unknown[]>;

/** Where `setpriv` is (util-linux, Linux only), or undefined. */
const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p));

/**
 * Anvil runs in a process group of its own: a terminal's Ctrl-C signals its whole foreground group, and an Anvil in
 * ours would exit at once, before the nodes had stopped and sent what they still had for the chain (their store
 * transactions then fail with "the settlement chain cannot be reached"). Only our process hears the Ctrl-C; it stops
 * the nodes, then the chains. With `setpriv` (Linux) Anvil is sent SIGTERM when our process dies, however it dies (a
 * SIGKILL included), so it dumps its state and exits rather than outliving us; elsewhere the pid file lets the next
 * start stop an Anvil left behind.
 */
function ownGroup([bin, args, options]: ExecaParameters): ExecaParameters {
  const detached = { ...options, detached: true };
  return setpriv ? [setpriv, ["--pdeathsig", "TERM", "--", bin, ...args], detached] : [bin, args, detached];
}

/** Live Anvils are told to stop when this process exits (a detached child is not stopped by execa's cleanup). */
const livePids = new Set<number>();
process.on("exit", () => {
  for (const pid of livePids) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // gone already
    }
  }
});

/** Stops every Anvil this process started; safe to call more than once. */
export async function stopAllAnvils(): Promise<void> {
  await Promise.allSettled([...live].map((c) => c.stop()));
}

/** Where the Anvil of chain `name` leaves its pid in `pidDir` (a later start, the benchmarks and the soak read it). */
export function anvilPidFile(pidDir: string, name: string): string {
  return join(pidDir, `anvil-${name}.pid`);
}

function pidFile(opts: AnvilOptions): string | undefined {
  return opts.pidDir ? anvilPidFile(opts.pidDir, opts.name) : undefined;
}

/** The process's command line (its arguments), or undefined when it does not run. */
function commandLine(pid: number): string[] | undefined {
  if (process.platform === "linux") {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    } catch {
      return undefined;
    }
  }
  const ps = Bun.spawnSync(["ps", "-p", String(pid), "-o", "args="]);
  const line = ps.stdout.toString().trim();
  return ps.exitCode === 0 && line ? line.split(/\s+/) : undefined;
}

/** When process `pid` started, ms since the epoch to about 10 ms (Linux /proc), or undefined. */
function startedAt(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Clock ticks since boot (field 22; count from the last ")": the command name may hold spaces).
    const ticks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
    const uptimeS = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
    // USER_HZ: 100 on every Linux Bun runs on.
    return Number.isFinite(ticks) && Number.isFinite(uptimeS) ? Date.now() - uptimeS * 1000 + ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether process `pid` is the Anvil a pid file written at `writtenMs` names: its program is anvil (not a command
 * that only mentions it, such as a benchmark), and it started before the file was written. The file was written
 * while that Anvil ran with that pid, so a process with the pid that started later is another one the OS handed the
 * pid to since (the other checks are all there is without /proc).
 */
export function isOrphanAnvil(pid: number, writtenMs: number): boolean {
  const argv = commandLine(pid);
  if (!argv?.length || basename(argv[0]!) !== "anvil") return false;
  if (process.platform !== "linux") return true;
  const started = startedAt(pid);
  return started !== undefined && started <= writtenMs;
}

/**
 * Kills an Anvil left behind by an earlier run that died by SIGKILL (its pid file still names it), and only that:
 * the pid must still be that Anvil (isOrphanAnvil). The pid file goes either way.
 */
export function killOrphan(file: string | undefined): void {
  if (!file || !existsSync(file)) return;
  const pid = Number(readFileSync(file, "utf8").trim());
  const written = statSync(file).mtimeMs;
  rmSync(file, { force: true });
  if (!Number.isInteger(pid) || pid <= 1 || !isOrphanAnvil(pid, written)) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

async function waitForPortFree(host: string, port: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const s = await Bun.connect({ hostname: host, port, socket: { data() {} } });
      s.end();
      await Bun.sleep(100);
    } catch {
      return;
    }
  }
}

export async function startAnvil(opts: AnvilOptions): Promise<AnvilChain> {
  const host = opts.host ?? "127.0.0.1";
  const file = pidFile(opts);
  killOrphan(file);
  await waitForPortFree(host, opts.port, 3000);
  if (opts.statePath) mkdirSync(dirname(opts.statePath), { recursive: true });
  // The empty chain a fork-mode Anvil forks from: never mined, only asked about accounts the fork has not seen.
  const genesis = opts.emptyFork
    ? await startAnvil({
        name: `${opts.name}-genesis`,
        host,
        port: opts.emptyFork.port || (await freePort(host, opts.avoidPorts)),
        chainId: opts.chainId,
        mining: "manual",
        accounts: opts.accounts,
        baseFeePerGas: opts.baseFeePerGas,
        pidDir: opts.pidDir,
        hardfork: opts.hardfork,
      })
    : undefined;
  const anvil: Anvil = createAnvil({
    anvilBinary: anvilBinaryPath(),
    host,
    port: opts.port,
    chainId: opts.chainId,
    accounts: opts.accounts ?? 30,
    // Deterministic chain: fixed mnemonic (Anvil's default dev accounts), FIFO order so bundles stay contiguous.
    order: "fifo",
    // Interval mining is ours (IntervalMiner says why), so the chain itself mines only on request.
    noMining: opts.mining !== "auto" ? true : undefined,
    blockBaseFeePerGas: opts.baseFeePerGas,
    gasLimit: opts.blockGasLimit,
    // @viem/anvil's type predates Prague; the value is passed through as the flag.
    hardfork: opts.hardfork as never,
    // @viem/anvil passes unknown options on as flags: --number.
    ...(opts.genesisNumber ? ({ number: opts.genesisNumber } as object) : {}),
    ...(opts.keepTxBlocks !== undefined ? ({ transactionBlockKeeper: opts.keepTxBlocks } as object) : {}),
    state: opts.statePath,
    // 0: only when Anvil stops.
    stateInterval: opts.statePath && opts.stateIntervalS !== 0 ? (opts.stateIntervalS ?? 1) : undefined,
    forkUrl: genesis?.rpcUrl,
    forkBlockNumber: genesis ? 0 : undefined,
    pruneHistory: opts.emptyFork ? opts.emptyFork.keepStates || true : undefined,
    // @viem/anvil learns that Anvil listens from its output.
    silent: false,
    startTimeout: 20_000,
    // @viem/anvil leaves this timer running after a clean stop, so keep it short.
    stopTimeout: 3_000,
    execArgs: ownGroup,
  });
  try {
    await anvil.start();
  } catch (e) {
    await genesis?.stop();
    throw new AnvilStartError(opts.name, opts.port, anvil.logs, e);
  }
  // Without setpriv, this process's exit stops the Anvil by its pid; the pid file needs it too.
  const pid = file || !setpriv ? await findPid(opts.port) : undefined;
  if (pid) livePids.add(pid);
  if (file && pid) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, String(pid));
  }
  const rpcUrl = `http://${host}:${opts.port}`;
  const miner =
    typeof opts.mining === "object"
      ? new IntervalMiner(rpcUrl, opts.mining.intervalMs, opts.name, opts.mining.idleIntervalMs)
      : undefined;
  miner?.start();
  const chain: AnvilChain = {
    name: opts.name,
    rpcUrl,
    chainId: opts.chainId,
    port: opts.port,
    async stop() {
      live.delete(chain);
      await miner?.stop();
      if (anvil.status === "listening" || anvil.status === "starting") {
        await anvil.stop().catch(() => {});
      }
      if (pid) livePids.delete(pid);
      if (file) rmSync(file, { force: true });
      await genesis?.stop();
    },
  };
  live.add(chain);
  return chain;
}

/** The pid of the process listening on a TCP port (Linux /proc), for the orphan guard. */
async function findPid(port: number): Promise<number | undefined> {
  if (process.platform !== "linux") return undefined;
  try {
    const hex = port.toString(16).toUpperCase().padStart(4, "0");
    const inodes = new Set<string>();
    for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      if (!existsSync(table)) continue;
      for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
        const cols = line.trim().split(/\s+/);
        if (cols[1]?.endsWith(`:${hex}`) && cols[3] === "0A") inodes.add(cols[9]!);
      }
    }
    const { readdirSync, readlinkSync } = await import("node:fs");
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) {
        try {
          const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
          const m = /^socket:\[(\d+)\]$/.exec(link);
          if (m && inodes.has(m[1]!)) return Number(pid);
        } catch {
          // fd closed meanwhile
        }
      }
    }
  } catch {
    // best effort
  }
  return undefined;
}
