/**
 * `--port-base`: every port the devnet opens, the idle chain its settlement chain forks included, comes from one
 * base (a port flag still wins), so that a user who fences ports can run it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Subprocess, spawn, spawnSync } from "bun";
import { freePortBase } from "../testing/freePortBase.ts";
import { ConfigError, DEFAULTS, type DevnetConfig, MAX_PORT_BASE, parseDevnetArgs, portsFromBase } from "./config.ts";

const ROOT = resolve(import.meta.dir, "../..");

function parse(argv: string[]): DevnetConfig {
  const c = parseDevnetArgs(argv);
  if (c === "help") throw new Error("help");
  return c;
}

describe("parsing --port-base", () => {
  test("every port from the base, laid out as the defaults are around 13500", () => {
    const c = parse(["--port-base", "20000", "--providers", "3"]);
    expect([c.controlPort, c.beaconPort, c.l1Port, c.settlementPort, c.settlementGenesisPort, c.bootnodePort]).toEqual([
      20000, 20001, 20002, 20003, 20004, 20010,
    ]);
    expect([c.bidderP2pPort, c.bidderPort, c.bidderRpcPort]).toEqual([20020, 20023, 20024]);
    expect(c.providerP2pPorts).toEqual([20120, 20220, 20320]);
    expect(c.providerPorts).toEqual([20123, 20223, 20323]);
    expect(c.providerRpcPorts).toEqual([20124, 20224, 20324]);
    const d = portsFromBase(13500, 2);
    expect([d.controlPort, d.beaconPort, d.bootnodePort, d.bidderP2pPort, d.bidderPort, d.bidderRpcPort]).toEqual([
      DEFAULTS.controlPort,
      DEFAULTS.beaconPort,
      DEFAULTS.bootnodePort,
      DEFAULTS.bidderP2pPort,
      DEFAULTS.bidderPort,
      DEFAULTS.bidderRpcPort,
    ]);
    expect([d.providerP2pPorts, d.providerPorts, d.providerRpcPorts]).toEqual([
      DEFAULTS.providerP2pPorts,
      DEFAULTS.providerPorts,
      DEFAULTS.providerRpcPorts,
    ]);
  });

  test("a port flag wins over the base", () => {
    const c = parse([
      "--port-base",
      "20000",
      "--bidder-port",
      "30000",
      "--provider-ports",
      "30001,30002",
      "--settlement-genesis-port",
      "30003",
    ]);
    expect([c.bidderPort, c.settlementGenesisPort, c.controlPort]).toEqual([30000, 30003, 20000]);
    expect(c.providerPorts).toEqual([30001, 30002]);
    expect(c.providerRpcPorts).toEqual([20124, 20224]);
  });

  test("without it the idle chain's port is free-picked (0) unless --settlement-genesis-port names one", () => {
    expect(parse([]).settlementGenesisPort).toBe(0);
    expect(parse(["--settlement-genesis-port", "18000"]).settlementGenesisPort).toBe(18000);
  });

  test("a base that leaves no room for the derived ports is refused", () => {
    expect(() => parse(["--port-base", String(MAX_PORT_BASE + 1)])).toThrow(ConfigError);
    expect(() => parse(["--port-base", "80"])).toThrow(ConfigError);
  });
});

/** The process and its descendants (walking /proc). */
function processTree(root: number): Set<number> {
  const parents = new Map<number, number>();
  for (const d of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      // "pid (comm) state ppid …": comm may hold spaces, so read after its closing parenthesis.
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      parents.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parents)
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
  }
  return tree;
}

/** TCP ports the given processes listen on (ss -ltnp). */
function listeningPorts(pids: Set<number>): Set<number> {
  const out = spawnSync(["ss", "-ltnpH"]).stdout.toString();
  const ports = new Set<number>();
  for (const line of out.split("\n")) {
    const owners = [...line.matchAll(/pid=(\d+)/g)].map((m) => Number(m[1]));
    if (!owners.some((p) => pids.has(p))) continue;
    const local = line.trim().split(/\s+/)[3]!;
    ports.add(Number(local.slice(local.lastIndexOf(":") + 1)));
  }
  return ports;
}

describe("a devnet started with --port-base", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "mev-commit-port-base-"));
  let proc: Subprocess | undefined;
  afterAll(async () => {
    if (proc) {
      proc.kill("SIGINT");
      await proc.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  test(
    "listens only on ports derived from it, the settlement chain's idle fork source included",
    async () => {
      const base = await freePortBase(2);
      const derived = portsFromBase(base, 2);
      proc = spawn(
        [
          "bun",
          "node/main.ts",
          "--data-dir",
          dataDir,
          "--port-base",
          String(base),
          "--l1-block-time",
          "0",
          "--log-level",
          "warn",
          "--parent-pid",
          String(process.pid),
        ],
        {
          cwd: ROOT,
          stdout: "pipe",
          stderr: "pipe",
        },
      );
      let up = false;
      for (const until = Date.now() + 150_000; !up && Date.now() < until && proc.exitCode === null; ) {
        up =
          existsSync(join(dataDir, "target.json")) &&
          (await fetch(`http://127.0.0.1:${derived.bidderPort}/health`).then(
            (r) => r.ok,
            () => false,
          ));
        if (!up) await Bun.sleep(500);
      }
      expect(up).toBe(true);
      const ports = listeningPorts(processTree(proc.pid));
      const allowed = new Set([
        ...Object.values(derived).flat(),
        derived.bidderPort + 2,
        ...derived.providerPorts.map((p) => p + 2),
      ]);
      expect([...ports].filter((p) => !allowed.has(p))).toEqual([]);
      // Every derived port the default libp2p devnet opens (admin ports belong to --network processes only).
      const opened = [
        derived.controlPort,
        derived.beaconPort,
        derived.l1Port,
        derived.settlementPort,
        derived.settlementGenesisPort,
        derived.bootnodePort,
      ];
      opened.push(
        derived.bidderP2pPort,
        derived.bidderPort,
        derived.bidderRpcPort,
        ...derived.providerP2pPorts,
        ...derived.providerPorts,
        ...derived.providerRpcPorts,
      );
      expect(opened.filter((p) => !ports.has(p))).toEqual([]);
    },
    { timeout: 180_000 },
  );
});
