/**
 * `npm run node -- --role bidder|provider|bootnode …`: one node in its own process, joined to a network of nodes
 * (ours or upstream's) through bootnodes, against existing chains and contracts (a devnet's target file, or a JSON
 * file of contract addresses).
 */
import { existsSync, readFileSync } from "node:fs";
import { type Address, getAddress, type Hex, isAddress } from "viem";
import { parseArgsOr } from "../../lib/cli.ts";
import { MevCommitError } from "../../lib/errors.ts";
import type { ContractAddresses } from "../chain/contracts.ts";
import {
  type ProtocolVersion,
  parseProtocolVersion,
  UnknownProtocolVersionError,
} from "../protocol/protocolVersion.ts";
import { type ProtocolRules, rulesOf } from "../protocol/rules.ts";

export type Role = "bidder" | "provider" | "bootnode";

export interface RoleConfig {
  role: Role;
  /** The node key (secp256k1, 0x-hex): its Ethereum account and its libp2p identity. */
  nodeKey: Hex;
  p2pAddr: string;
  p2pPort: number;
  /** Extra address to announce, host:port (upstream --nat-addr), for a node behind NAT or port mapping. */
  natAddr?: string;
  bootnodes: string[];
  httpAddr: string;
  httpPort: number;
  /** gRPC API port (upstream's services). */
  rpcPort: number;
  settlementRpcUrl: string;
  l1RpcUrl?: string;
  contracts: ContractAddresses;
  /**
   * The rules of the protocol of the contracts and the network (`--protocol`, else the --contracts file's, else
   * v1.1), built here once and handed to the node.
   */
  rules: ProtocolRules;
  validatorOptInRouter?: Address;
  dataDir: string;
  bidTimeoutMs: number;
  decisionTimeoutMs: number;
  /** Provider: attach the built-in accept-all application. */
  autoAccept: boolean;
  /** Bidder: auto-deposit this much per window at start. */
  autodepositAmount?: bigint;
  /** Bidder: --autodeposit-amount or --no-autodeposit was given; it replaces the setting the store saved. */
  autodepositFromFlag?: boolean;
  /** Bidder: auto-deposit starts at the current window (--autodeposit-current-window), not the one after it. */
  autodepositCurrentWindow?: boolean;
  /** Bidder, v1.2: enable the deposit manager once started (--enable-deposit-manager). */
  enableDepositManager?: boolean;
  /** Bidder, v1.2, with enableDepositManager: the target deposit toward every valid provider (--target-deposit-amount). */
  targetDepositAmount?: bigint;
  logLevel: "debug" | "info" | "warn" | "error";
  /**
   * Provider: the control API of the devnet it joined, where it posts its bundles for the devnet's builder
   * (node/role/devnetBundles.ts); undefined: none (no devnet, or one that reads them through --admin-port).
   */
  devnetControlUrl?: string;
  /** Serve the admin API (node/role/adminApi.ts) on this port of --http-addr (0: any free port); off when undefined. */
  adminPort?: number;
  /** Stop when this process is gone (a devnet of node processes passes its own pid: a SIGKILLed devnet leaves no nodes). */
  parentPid?: number;
  /** `/health` answers 503 until this file exists (a devnet of node processes passes its target file). */
  readyFile?: string;
  /** How often idle streams send a blank line, ms (0 = never); the node's default when undefined. */
  streamKeepAliveMs?: number;
  /** Idle timeout of the `--auto-accept` application's streams (ms); undefined: Bun's default. */
  responderIdleTimeoutMs?: number;
  /** Worker threads for bid signing and verification (0: on the main thread). */
  cryptoWorkers: number;
}

export const ROLE_HELP = `Usage: npm run node -- --role bidder|provider|bootnode [options]

Starts one node that joins a network of mev-commit nodes (ours or upstream's) over libp2p, against existing chains
and contracts. A devnet (\`npm run node\`) prints its bootnode multiaddr and writes its target file, which holds
everything but the key:

  npm run node -- --role provider --key-file provider.key --contracts .devnet/target.json \\
    --bootnodes /ip4/127.0.0.1/tcp/13510/p2p/16Uiu2HAm… --p2p-port 14022 --http-port 14023

A key for --key-file (64 hex digits; upstream's --priv-key-file reads it too), never over an existing file:

  npm run node -- --role provider --new-key provider.key                    # a new random key (unfunded)
  npm run node -- --role provider --new-key provider.key --dev-account 10   # dev account 10 (a devnet funds it)

Options:
  --role ROLE                 bidder, provider or bootnode
  --key HEX | --key-file F    the node's secp256k1 key (0x-hex, or a file holding it; env MEV_COMMIT_KEY): its
                              account on the settlement chain and its libp2p peer ID
  --contracts FILE            contract addresses: a devnet target file or {"blockTracker": …, "providerRegistry": …,
                              "bidderRegistry": …, "preconfManager": …, "oracle": …}; a target file also gives the
                              RPC URLs, the validator opt-in router and the protocol version
  --protocol VERSION          v1.1 | v1.2: the protocol of the contracts and the network (default: the --contracts
                              file's "protocol", else v1.1)
  --settlement-rpc-url URL    settlement chain RPC (where the contracts live)
  --l1-rpc-url URL            L1 RPC (the validator API's opt-in reads; optional)
  --bootnodes ADDR,…          bootnode multiaddrs, each ending in /p2p/<peer id> (repeatable)
  --p2p-addr ADDR             address the libp2p host binds (default 0.0.0.0)
  --p2p-port PORT             libp2p TCP port (default 13522)
  --nat-addr HOST:PORT        extra address to announce to peers
  --http-addr ADDR            address the HTTP API binds (default 127.0.0.1; bidder and provider)
  --http-port PORT            HTTP API port (default 13523)
  --rpc-port PORT             gRPC API port (default 13524; same address as HTTP)
  --data-dir DIR              the node's store and its lock: one node per data dir (default .node-<role>-<address>)
  --bid-timeout MS            bidder: how long SendBid waits for providers (default 30000)
  --decision-timeout MS       provider: how long to wait for the provider application (default 30000)
  --auto-accept               provider: attach a built-in accept-all provider application
  --autodeposit-amount WEI    bidder, v1.1: auto-deposit this much per window from the start (replaces a saved
                              setting; without either flag the bidder resumes the one its store saved)
  --autodeposit-current-window
                              bidder, with --autodeposit-amount: start at the current window (BlockTracker's), so
                              bids for the next blocks find a deposit at once (default: the window after the
                              current, as upstream's AutoDeposit without a window)
  --autodeposit-keep-saved    bidder, with --autodeposit-amount: a setting the store saved wins and resumes; the
                              amount starts only a bidder that saved none (as a devnet restarted with no flag)
  --no-autodeposit            bidder: no auto-deposit, even when the store saved it on
  --enable-deposit-manager    bidder, v1.2: once started, enable the deposit manager (already enabled is fine)
  --target-deposit-amount WEI bidder, v1.2, with --enable-deposit-manager: then set this target deposit toward every
                              valid provider, which tops each deposit up to it (ignored without that flag, as upstream)
  --log-level LEVEL           debug | info | warn | error (default info)
  --devnet-control URL        provider: post the bundles it commits to, and a heartbeat per L1 block, to this
                              devnet's control API, so that its builder builds the blocks it wins (default: the
                              target file's controlUrl, unless --admin-port is given; "none" for no devnet)
  --admin-port PORT           serve the admin API a devnet of node processes drives (status, faults, bundles) on
                              this port of --http-addr (0: any free port); not for production: it arms failing
                              transactions
  --stream-keepalive MS       idle streams send a blank line this often (default 15000; 0 = never)
  --responder-idle-timeout MS idle timeout of the --auto-accept application's streams (default 300000, Bun's)
  --crypto-workers N          worker threads for bid signing and verification (default 0: the main thread)
  --parent-pid PID            stop when process PID is gone (a devnet that runs its nodes as processes passes its own)
  --ready-file FILE           /health answers 503 until FILE exists (a devnet that runs its nodes as processes passes
                              its target file)
  -h, --help                  this text
`;

export class RoleConfigError extends MevCommitError {}

function int(name: string, v: string | undefined, min: number, max: number, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new RoleConfigError(`--${name} must be an integer from ${min} to ${max}, got "${v}"`);
  return n;
}

const CONTRACT_NAMES = ["blockTracker", "providerRegistry", "bidderRegistry", "preconfManager", "oracle"] as const;

function readContracts(file: string): {
  contracts: ContractAddresses;
  router?: Address;
  settlementRpcUrl?: string;
  l1RpcUrl?: string;
  protocol?: string;
  controlUrl?: string;
} {
  if (!existsSync(file)) throw new RoleConfigError(`--contracts: no file ${file}`);
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new RoleConfigError(`--contracts: ${file} is not JSON: ${(e as Error).message}`);
  }
  const src = (typeof json.contracts === "object" && json.contracts ? json.contracts : json) as Record<string, unknown>;
  const contracts = {} as Record<string, Address>;
  for (const name of CONTRACT_NAMES) {
    const a = src[name];
    if (typeof a !== "string" || !isAddress(a))
      throw new RoleConfigError(`--contracts: ${file} has no address for ${name}`);
    contracts[name] = getAddress(a);
  }
  const router = json.validatorOptInRouter;
  return {
    contracts: contracts as unknown as ContractAddresses,
    router: typeof router === "string" && isAddress(router) ? getAddress(router) : undefined,
    settlementRpcUrl: typeof json.settlementRpcUrl === "string" ? json.settlementRpcUrl : undefined,
    l1RpcUrl: typeof json.l1RpcUrl === "string" ? json.l1RpcUrl : undefined,
    protocol: typeof json.protocol === "string" ? json.protocol : undefined,
    controlUrl: typeof json.controlUrl === "string" ? json.controlUrl : undefined,
  };
}

/** Where a provider posts its bundles: the flag, else the target file's devnet unless that devnet reads its admin API. */
function devnetControlUrl(
  role: Role,
  flag: string | undefined,
  fromFile: string | undefined,
  admin: boolean,
): string | undefined {
  if (flag === "none") return undefined;
  if (flag !== undefined && !/^https?:\/\/[^/]+/.test(flag))
    throw new RoleConfigError(`--devnet-control must be an http(s) URL or "none", got "${flag}"`);
  if (role !== "provider") return undefined;
  return (flag ?? (admin ? undefined : fromFile))?.replace(/\/+$/, "");
}

function readKey(key: string | undefined, file: string | undefined): Hex {
  let raw = key ?? process.env.MEV_COMMIT_KEY;
  if (file !== undefined) {
    if (!existsSync(file)) throw new RoleConfigError(`--key-file: no file ${file}`);
    raw = readFileSync(file, "utf8").trim();
  }
  if (raw === undefined) throw new RoleConfigError("a node needs its key: --key, --key-file or MEV_COMMIT_KEY");
  const hex = raw.startsWith("0x") ? raw : `0x${raw}`;
  if (!/^0x[0-9a-fA-F]{64}$/.test(hex)) throw new RoleConfigError("the node key must be 32 bytes of hex");
  return hex.toLowerCase() as Hex;
}

export function parseRoleArgs(argv: string[]): RoleConfig | "help" {
  const parsed = parseArgsOr(
    {
      args: argv,
      allowPositionals: false,
      options: {
        help: { type: "boolean", short: "h" },
        role: { type: "string" },
        key: { type: "string" },
        "key-file": { type: "string" },
        contracts: { type: "string" },
        protocol: { type: "string" },
        "settlement-rpc-url": { type: "string" },
        "l1-rpc-url": { type: "string" },
        bootnodes: { type: "string", multiple: true },
        "p2p-addr": { type: "string" },
        "p2p-port": { type: "string" },
        "nat-addr": { type: "string" },
        "http-addr": { type: "string" },
        "http-port": { type: "string" },
        "rpc-port": { type: "string" },
        "data-dir": { type: "string" },
        "bid-timeout": { type: "string" },
        "decision-timeout": { type: "string" },
        "auto-accept": { type: "boolean" },
        "autodeposit-amount": { type: "string" },
        "no-autodeposit": { type: "boolean" },
        "autodeposit-current-window": { type: "boolean" },
        "autodeposit-keep-saved": { type: "boolean" },
        "enable-deposit-manager": { type: "boolean" },
        "target-deposit-amount": { type: "string" },
        "log-level": { type: "string" },
        "admin-port": { type: "string" },
        "devnet-control": { type: "string" },
        "parent-pid": { type: "string" },
        "ready-file": { type: "string" },
        "stream-keepalive": { type: "string" },
        "responder-idle-timeout": { type: "string" },
        "crypto-workers": { type: "string" },
      },
    },
    (message) => new RoleConfigError(`${message}; run with --role ROLE --help for the options`),
  );
  const o = parsed.values;
  if (o.help) return "help";
  const role = o.role as Role;
  if (!["bidder", "provider", "bootnode"].includes(role))
    throw new RoleConfigError(`--role must be bidder, provider or bootnode, got "${o.role}"`);
  if (!o.contracts) throw new RoleConfigError("--contracts FILE is required (a devnet's target.json will do)");
  const file = readContracts(o.contracts);
  const settlementRpcUrl = o["settlement-rpc-url"] ?? file.settlementRpcUrl;
  if (!settlementRpcUrl) throw new RoleConfigError("--settlement-rpc-url is required");
  const nodeKey = readKey(o.key, o["key-file"]);
  const level = o["log-level"] ?? "info";
  if (!["debug", "info", "warn", "error"].includes(level))
    throw new RoleConfigError("--log-level must be debug, info, warn or error");
  if (o["nat-addr"] !== undefined && !/^[^:]+:\d+$/.test(o["nat-addr"]))
    throw new RoleConfigError(`--nat-addr must be HOST:PORT, got "${o["nat-addr"]}"`);
  let protocol: ProtocolVersion;
  try {
    protocol = parseProtocolVersion(o.protocol ?? file.protocol);
  } catch (e) {
    if (!(e instanceof UnknownProtocolVersionError)) throw e;
    throw new RoleConfigError(
      `${o.protocol !== undefined ? "--protocol" : `--contracts ${o.contracts}`}: ${e.message}`,
      {
        cause: e,
      },
    );
  }
  if (o.protocol !== undefined && file.protocol !== undefined && file.protocol !== o.protocol)
    throw new RoleConfigError(
      `--protocol ${o.protocol} contradicts the --contracts file, whose contracts are "protocol": "${file.protocol}"`,
    );
  const rules = rulesOf(protocol);
  const amount = o["autodeposit-amount"];
  if (amount !== undefined && rules.deposits !== "window")
    throw new RoleConfigError(`--autodeposit-amount deposits per window, which protocol ${protocol} does not have`);
  if (amount !== undefined && !/^\d+$/.test(amount))
    throw new RoleConfigError(`--autodeposit-amount must be wei (digits), got "${amount}"`);
  if (amount !== undefined && o["no-autodeposit"])
    throw new RoleConfigError("--no-autodeposit and --autodeposit-amount contradict each other");
  const fromCurrentWindow = o["autodeposit-current-window"] === true;
  if (fromCurrentWindow && amount === undefined)
    throw new RoleConfigError("--autodeposit-current-window says where --autodeposit-amount starts; give both");
  const keepSaved = o["autodeposit-keep-saved"] === true;
  if (keepSaved && amount === undefined)
    throw new RoleConfigError(
      "--autodeposit-keep-saved says what --autodeposit-amount does to a saved setting; give both",
    );
  const enableDepositManager = o["enable-deposit-manager"] === true;
  if (enableDepositManager && !rules.depositManager)
    throw new RoleConfigError(`--enable-deposit-manager: protocol ${protocol} has no deposit manager (v1.2 has)`);
  // Upstream reads the target only with --enable-deposit-manager, and fails to start on one that is not a number.
  const target = enableDepositManager ? o["target-deposit-amount"] : undefined;
  if (target !== undefined && !/^\d+$/.test(target))
    throw new RoleConfigError(`failed to parse target deposit amount "${target}"`);
  return {
    role,
    nodeKey,
    p2pAddr: o["p2p-addr"] ?? "0.0.0.0",
    p2pPort: int("p2p-port", o["p2p-port"], 0, 65535, 13522),
    natAddr: o["nat-addr"],
    bootnodes: (o.bootnodes ?? [])
      .flatMap((b) => b.split(","))
      .map((b) => b.trim())
      .filter(Boolean),
    httpAddr: o["http-addr"] ?? "127.0.0.1",
    httpPort: int("http-port", o["http-port"], 0, 65535, 13523),
    rpcPort: int("rpc-port", o["rpc-port"], 0, 65535, 13524),
    settlementRpcUrl,
    l1RpcUrl: o["l1-rpc-url"] ?? file.l1RpcUrl,
    contracts: file.contracts,
    rules,
    validatorOptInRouter: file.router,
    dataDir: o["data-dir"] ?? "",
    bidTimeoutMs: int("bid-timeout", o["bid-timeout"], 1, 3_600_000, 30_000),
    decisionTimeoutMs: int("decision-timeout", o["decision-timeout"], 1, 3_600_000, 30_000),
    autoAccept: o["auto-accept"] ?? false,
    autodepositAmount: amount === undefined ? undefined : BigInt(amount),
    autodepositFromFlag: (amount !== undefined && !keepSaved) || o["no-autodeposit"] === true,
    autodepositCurrentWindow: fromCurrentWindow,
    enableDepositManager,
    targetDepositAmount: target === undefined ? undefined : BigInt(target),
    logLevel: level as RoleConfig["logLevel"],
    adminPort: o["admin-port"] === undefined ? undefined : int("admin-port", o["admin-port"], 0, 65535, 0),
    devnetControlUrl: devnetControlUrl(role, o["devnet-control"], file.controlUrl, o["admin-port"] !== undefined),
    streamKeepAliveMs:
      o["stream-keepalive"] === undefined ? undefined : int("stream-keepalive", o["stream-keepalive"], 0, 3_600_000, 0),
    responderIdleTimeoutMs:
      o["responder-idle-timeout"] === undefined
        ? undefined
        : int("responder-idle-timeout", o["responder-idle-timeout"], 1, 3_600_000, 1),
    cryptoWorkers: int("crypto-workers", o["crypto-workers"], 0, 64, 0),
    readyFile: o["ready-file"],
    parentPid: o["parent-pid"] === undefined ? undefined : int("parent-pid", o["parent-pid"], 1, 2 ** 22, 1),
  };
}
