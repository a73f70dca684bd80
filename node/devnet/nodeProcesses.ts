/**
 * A devnet's bidder and provider nodes as processes of their own (`npm run node -- --network processes|netns`):
 * each node is `bun node/main.ts --role … --admin-port …`, joined to the devnet's bootnode, optionally on a network
 * namespace host of its own (NetnsHosts). The devnet's control API reaches them through their admin API
 * (node/role/adminApi.ts) and through signals: stop is SIGTERM (a goodbye, peers see peer_disconnected), kill is
 * SIGKILL (a real one: nothing drained or flushed), start spawns the node again on its store, key and ports.
 */
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { resolve } from "node:path";
import { type Subprocess, spawn } from "bun";
import type { Address, Hex } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { call } from "../clients/http.ts";
import { type BidEvent, parseBidEvent } from "../explorer/bidEvents.ts";
import { FailedPreconditionError, GrpcCode, RpcError } from "../protocol/grpcCodes.ts";
import { privateKeyToAddress } from "../protocol/secp256k1.ts";
import type { AdminStatus } from "../role/adminApi.ts";
import type { NetnsHosts } from "../role/netnsHosts.ts";
import { DeadlineError, within } from "../util/deadline.ts";
import type { Fault } from "./nodeOps.ts";

const ROOT = resolve(import.meta.dir, "../..");

/** A node process did not start (its exit status and the end of its output), or its admin API did not answer. */
export class NodeProcessError extends MevCommitError {}

/** The node's admin API refused a call: its gRPC code and message, passed on as they came. */
export class NodeAdminError extends RpcError {}

export interface NodeProcessSpec {
  name: string;
  role: "bidder" | "provider";
  key: Hex;
  /** Where its HTTP, gRPC, admin and p2p listeners bind (its namespace host's address, or the devnet's host). */
  bindAddr: string;
  /** The ports of its first start (0: any free port); later starts reuse the ones it got. */
  ports: { http: number; rpc: number; p2p: number; admin: number };
  contractsFile: string;
  bootnodes: string[];
  dataDir: string;
  /** Extra `--role` options (timeouts, --auto-accept, …). */
  args: string[];
  /**
   * Options of the first start only: the devnet's start flags (auto-deposit) that a restart after a kill leaves to
   * what the node's store saved, as a node of the devnet's own process comes back.
   */
  firstStartArgs?: string[];
  /** Runs the node on this namespace host. */
  netns?: { hosts: NetnsHosts<string>; host: string };
  logFile: string;
  startTimeoutMs?: number;
  /**
   * A bidder's bid events (its admin API's GET /admin/v1/bid-events), for the devnet's explorer: followed from each
   * start until the process exits.
   */
  onBidEvent?: (e: BidEvent) => void;
}

/** One node of the devnet in a process of its own. */
export class NodeProcess {
  readonly address: Address;
  private proc: Subprocess<"ignore", "pipe", "pipe"> | undefined;
  private ports: NodeProcessSpec["ports"];
  url: string | null = null;
  rpcUrl: string | null = null;
  private adminUrl: string | null = null;
  private starts = 0;
  private readonly log: WriteStream;

  constructor(readonly spec: NodeProcessSpec) {
    this.address = privateKeyToAddress(spec.key);
    this.ports = { ...spec.ports };
    mkdirSync(spec.dataDir, { recursive: true });
    this.log = createWriteStream(spec.logFile, { flags: "a" });
  }

  get name(): string {
    return this.spec.name;
  }

  get role(): "bidder" | "provider" {
    return this.spec.role;
  }

  get running(): boolean {
    return this.proc !== undefined && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Running and past its banner: its APIs answer (a process still starting is running, not serving). */
  get serving(): boolean {
    return this.running && this.adminUrl !== null;
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  /** Spawns the node and resolves once it serves (its banner names its API, gRPC and admin URLs). */
  async start(): Promise<string> {
    if (this.running) throw new FailedPreconditionError(`${this.name} is already running`);
    const s = this.spec;
    const argv = [
      process.execPath,
      "node/main.ts",
      "--role",
      s.role,
      "--key",
      s.key,
      "--contracts",
      s.contractsFile,
      "--bootnodes",
      s.bootnodes.join(","),
      "--p2p-addr",
      s.bindAddr,
      "--p2p-port",
      String(this.ports.p2p),
      "--http-addr",
      s.bindAddr,
      "--http-port",
      String(this.ports.http),
      "--rpc-port",
      String(this.ports.rpc),
      "--admin-port",
      String(this.ports.admin),
      "--data-dir",
      s.dataDir,
      "--parent-pid",
      String(process.pid),
      ...s.args,
      ...(this.starts++ === 0 ? (s.firstStartArgs ?? []) : []),
    ];
    const proc = spawn(s.netns ? s.netns.hosts.exec(s.netns.host, argv) : argv, {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
    });
    this.proc = proc;
    let text = "";
    const dec = new TextDecoder();
    for (const stream of [proc.stdout, proc.stderr])
      void (async () => {
        for await (const c of stream) {
          const part = dec.decode(c);
          if (text.length < 20_000) text += part;
          this.log.write(part);
        }
      })();
    const ready =
      /API\s+(http:\/\/\S+)[\s\S]*gRPC\s+(https?:\/\/\S+)[\s\S]*admin\s+(http:\/\/\S+)[\s\S]*libp2p\s+\/ip[46]\/\S+\/tcp\/(\d+)/;
    const deadline = Date.now() + (s.startTimeoutMs ?? 60_000);
    for (;;) {
      const m = ready.exec(text);
      if (m) {
        [this.url, this.rpcUrl, this.adminUrl] = [m[1]!, m[2]!, m[3]!];
        this.ports = {
          http: Number(new URL(m[1]!).port),
          rpc: Number(new URL(m[2]!).port),
          admin: Number(new URL(m[3]!).port),
          p2p: Number(m[4]),
        };
        if (s.onBidEvent) await this.followBidEvents(proc, s.onBidEvent);
        return this.url;
      }
      if (proc.exitCode !== null || proc.signalCode !== null || Date.now() > deadline) {
        if (this.running) proc.kill("SIGKILL");
        await proc.exited;
        this.proc = undefined;
        throw new NodeProcessError(
          `${this.name} did not start (exit ${proc.exitCode ?? proc.signalCode}):\n${text.slice(-2000)}`,
        );
      }
      await Bun.sleep(50);
    }
  }

  /**
   * Reads the bidder's bid events while `proc` runs: resolves once the stream is open (its first line, "hello"),
   * then follows it in the background, connecting again if the stream ends while the process still runs.
   */
  private async followBidEvents(proc: Subprocess, on: (e: BidEvent) => void): Promise<void> {
    const alive = () => this.proc === proc && this.running;
    const open = async (): Promise<ReadableStream<Uint8Array> | undefined> => {
      const admin = this.adminUrl;
      if (!admin || !alive()) return undefined;
      const r = await fetch(`${admin}/admin/v1/bid-events`);
      if (r.status !== 200 || !r.body) throw new NodeProcessError(`${this.name}'s bid events: HTTP ${r.status}`);
      return r.body;
    };
    const dec = new TextDecoder();
    let rest = "";
    let hello: () => void = () => {};
    const opened = new Promise<void>((res) => {
      hello = res;
    });
    void (async () => {
      while (alive()) {
        try {
          const body = await open();
          if (!body) break;
          for await (const value of body) {
            rest += dec.decode(value, { stream: true });
            const lines = rest.split("\n");
            rest = lines.pop()!;
            for (const line of lines) {
              if (line === '{"kind":"hello"}') hello();
              const e = line && parseBidEvent(line);
              if (e) on(e);
            }
          }
        } catch (e) {
          if (alive()) this.log.write(`devnet: ${this.name}'s bid events: ${(e as Error).message}; connecting again\n`);
        }
        rest = "";
        if (alive()) await Bun.sleep(250);
      }
      hello();
    })();
    await within(`${this.name}'s bid events to open`, 10_000, opened).catch((e: Error) => {
      this.log.write(`devnet: ${e.message}\n`);
    });
  }

  /** SIGTERM: the node says goodbye and drains; SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    const proc = this.proc;
    if (!proc || !this.running) return;
    proc.kill("SIGTERM");
    try {
      await within(`${this.name} to exit`, graceMs, proc.exited);
    } catch (e) {
      if (!(e instanceof DeadlineError)) throw e;
      proc.kill("SIGKILL");
      await proc.exited;
    }
    this.url = this.rpcUrl = this.adminUrl = null;
  }

  /** SIGKILL: no goodbye, nothing drained or flushed. */
  async kill(): Promise<void> {
    const proc = this.proc;
    if (!proc || !this.running) throw new FailedPreconditionError(`${this.name} is not running`);
    proc.kill("SIGKILL");
    await proc.exited;
    this.url = this.rpcUrl = this.adminUrl = null;
  }

  private admin(): string {
    if (!this.adminUrl || !this.running) throw new FailedPreconditionError(`${this.name} is not running`);
    return this.adminUrl;
  }

  /** Passes the admin API's error on as it came (its code and message), or NodeProcessError when unreachable. */
  private async request<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    const r = await call(method, `${this.admin()}${path}`, body === undefined ? {} : { body }).catch((e: Error) => {
      throw new NodeProcessError(`${this.name}'s admin API did not answer ${method} ${path}: ${e.message}`);
    });
    if (r.status !== 200) {
      const err = r.json as { code?: number; message?: string } | undefined;
      throw new NodeAdminError((err?.code ?? GrpcCode.Unknown) as GrpcCode, err?.message ?? `${this.name}: ${r.text}`);
    }
    return r.json as T;
  }

  status(): Promise<AdminStatus> {
    return this.request("GET", "/admin/v1/status");
  }

  async fault(fail: Fault): Promise<void> {
    await this.request("POST", "/admin/v1/faults", { fail });
  }

  async bundlesFor(block: bigint): Promise<string[][]> {
    // A node still starting (the builder asks at every L1 block) has no bundles yet, rather than failing the block.
    if (!this.serving) return [];
    return (await this.request<{ bundles: string[][] }>("GET", `/admin/v1/bundles/${block}`)).bundles;
  }

  close(): void {
    this.log.end();
  }
}
