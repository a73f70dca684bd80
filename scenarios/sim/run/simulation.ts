/**
 * Runs a scenario against an environment. Every actor is a client of the public API; the runner drives L1 time
 * through the control API, one block at a time, in a fixed order:
 *
 *   faults due before the bids → per-window deposits → every bidder's bids for the block (bidders in parallel,
 *   each bidder's bids in its own order) → wait until the providers stored the block's commitments → faults due
 *   before mining → mine the block with the scenario's winner → wait until the winner commitments whose turn it
 *   is are settled or slashed → withdraw windows that are fully settled.
 *
 * On protocol v1.2 there are no windows: at set-up each bidder tops its deposit with each provider up to its plan's
 * amount (Deposit per provider), and the deposits stay with the providers after the run (a v1.2 withdrawal waits
 * for the bidder withdrawal period).
 *
 * Decisions depend only on the bids and the seed, dispatch times only on the bids' decay windows, so a seed gives
 * the same bids, decisions, winners and amounts on every run (timestamps aside). A stop request (Ctrl-C) ends the
 * block loop after the current block; what ran is then drained (mined until settled) and reported.
 */
import { type Address, createPublicClient, type PublicClient, zeroAddress } from "viem";
import { MevCommitError } from "../../../lib/errors.ts";
import { devAccount, ROLES } from "../../../node/chain/accounts.ts";
import { bidderRegistryV12Abi } from "../../../node/chain/contractsV12.ts";
import { localHttp } from "../../../node/chain/localHttp.ts";
import { call } from "../../../node/clients/http.ts";
import { BLOCKS_PER_WINDOW, windowOfBlock } from "../../../node/protocol/windows.ts";
import { GrpcProviderAgent } from "../../../node/providerApp/grpcProviderAgent.ts";
import type { ProviderPolicy } from "../../../node/providerApp/policies.ts";
import { ProviderAgent } from "../../../node/providerApp/providerAgent.ts";
import { optInValidators, optOutValidators } from "../../../node/validators/optInRegistry.ts";
import { prng, seedFrom } from "../../util/prng.ts";
import { BidderAgent } from "../agents/bidderAgent.ts";
import { type BidderClient, GrpcBidderClient, HttpBidderClient } from "../agents/bidderClient.ts";
import { fundSenders, SIM_L1_ACCOUNT } from "../agents/l1Senders.ts";
import { simPolicy } from "../agents/providerPolicies.ts";
import { ValidatorWatch } from "../agents/validatorWatch.ts";
import { type ChainSnapshot, snapshot } from "../report/chainLedger.ts";
import type { FaultSpec, Scenario, Transport } from "../scenario/schema.ts";
import type { SimEnvironment, SimNode, SimNodes } from "./environment.ts";
import type { Progress } from "./progress.ts";
import type { BidRecord, RunLog } from "./runLog.ts";

/** The bidder opens a winner's commitment this many recorded blocks after its block (node/tracker). */
const BIDDER_OPEN_LAG = 2;
const FINAL = new Set(["settled", "slashed", "failed"]);
const STORE_WAIT_MS = 20_000;
const SETTLE_WAIT_MS = 30_000;

/** Set by the CLI: `stop` on the first Ctrl-C (finish the block, settle, report), `skipSettling` on the second. */
export interface StopSignal {
  stop: boolean;
  skipSettling: boolean;
}

/** A scenario's provider application: over HTTP (ProviderAgent) or gRPC (GrpcProviderAgent), as its `transport` says. */
export type SimProviderApp = { start(): Promise<void>; stop(): Promise<void>; policy: ProviderPolicy };

function rpcUrlOf(node: SimNode, who: string): string {
  if (!node.rpcUrl)
    throw new SimulationError(
      `${who} has transport grpc, but the target names no gRPC URL for its node (bidderRpcUrl/providerRpcUrls)`,
    );
  return node.rpcUrl;
}

function providerApp(transport: Transport, node: SimNode, who: string, policy: ProviderPolicy): SimProviderApp {
  return transport === "grpc"
    ? new GrpcProviderAgent(rpcUrlOf(node, who), policy)
    : new ProviderAgent(node.url, policy);
}

function bidderClient(transport: Transport, node: SimNode, who: string): BidderClient {
  return transport === "grpc" ? new GrpcBidderClient(rpcUrlOf(node, who)) : new HttpBidderClient(node.url);
}

export class SimulationError extends MevCommitError {}

export interface MinedBlock {
  step: number;
  block: bigint;
  /** Lower-case address of the block's winner; null when no provider won it. */
  winner: string | null;
  drain: boolean;
}

/** What a run did: the summary and report are computed from this, the nodes' APIs and the chain. */
export interface RunResult {
  scenario: Scenario;
  environment: string;
  nodes: SimNodes;
  firstBlock: bigint;
  stepsDone: number;
  interrupted: boolean;
  /** Why the run stopped early, when something failed (the report still shows what ran). */
  error?: string;
  mined: MinedBlock[];
  before: ChainSnapshot;
  bidders: BidderAgent[];
  providers: SimProviderApp[];
  decisions: { provider: number; block: bigint; txHashes: string[]; accepted: boolean; reason?: string }[];
  /** Per bot: the run's slots announced opted in (validator_opted_in) and the slots it bid for. */
  bots: { bidder: number; announcedSlots: number; slotsBidFor: number }[];
  validators?: { keys: number; optedIn: number };
}

interface SettleDue {
  block: bigint;
  winner: string;
  due: bigint;
}

export class Simulation {
  private readonly s: Scenario;
  private l1!: PublicClient;
  private nodes!: SimNodes;
  private bidders: BidderAgent[] = [];
  private providers: SimProviderApp[] = [];
  private readonly decisions: RunResult["decisions"] = [];
  private readonly mined: MinedBlock[] = [];
  private readonly settleDue: SettleDue[] = [];
  private readonly openFaultArmed = new Set<string>();
  /** `provider/txHashes` of commitments whose store transaction failed: they can never settle. */
  private readonly storeFailed = new Set<string>();
  private readonly running: boolean[] = [];
  private readonly winnerRnd: () => number;
  private readonly counts = { bids: 0, commitments: 0, settled: 0, slashed: 0 };
  private validators: RunResult["validators"];
  /** Opt-in state of each slot (L1 block) the run has looked up. */
  private readonly slotOptedIn = new Map<number, boolean>();
  /** Blocks won so far under the "opted-in" schedule (providers take turns). */
  private optedInWins = 0;

  constructor(
    private readonly env: SimEnvironment,
    scenario: Scenario,
    private readonly log: RunLog,
    private readonly progress: Progress,
    private readonly stop: StopSignal,
  ) {
    this.s = scenario;
    this.winnerRnd = prng(seedFrom(scenario.seed, "winners"));
  }

  private get control() {
    return this.env.control;
  }

  async run(): Promise<RunResult> {
    const t = this.env.target;
    this.l1 = createPublicClient({ transport: localHttp(t.l1RpcUrl), cacheTime: 0 });
    const settlement = createPublicClient({ transport: localHttp(t.settlementRpcUrl), cacheTime: 0 });
    this.nodes = await this.env.nodes();
    const before = await snapshot(settlement, t.contracts as never, {
      providers: this.nodes.providers.map((p) => p.address),
      bidders: this.nodes.bidders.slice(0, this.s.bidders.length).map((b) => b.address),
      rules: this.env.rules,
    });
    await this.setUp();
    const firstBlock = (await this.l1.getBlockNumber({ cacheTime: 0 })) + 1n;
    let step = 0;
    let interrupted = false;
    let error: string | undefined;
    const failed = (what: string, e: unknown) => {
      error ??= `${what}: ${(e as Error).message?.split("\n")[0] ?? e}`;
      this.log.warn("runner", `stopped: ${error}`);
      this.progress.note(`stopped: ${error}; settling what ran and writing the report`);
    };
    for (; step < this.s.l1.blocks; step++) {
      if (this.stop.stop) {
        interrupted = true;
        this.progress.note(
          `stopping after ${step} of ${this.s.l1.blocks} blocks; settling what ran and writing the report (Ctrl-C again to skip settling)`,
        );
        break;
      }
      try {
        await this.runBlock(step, firstBlock + BigInt(step));
      } catch (e) {
        failed(`block ${step + 1} (L1 ${firstBlock + BigInt(step)})`, e);
        break;
      }
      this.show("blocks", step + 1);
    }
    // After a failure the block may or may not have been mined: go on from the chain's head.
    await this.drain((await this.l1.getBlockNumber({ cacheTime: 0 })) + 1n, step).catch((e) => failed("settling", e));
    return {
      scenario: this.s,
      environment: this.env.name,
      nodes: this.nodes,
      firstBlock,
      stepsDone: step,
      interrupted,
      error,
      mined: this.mined,
      before,
      bidders: this.bidders,
      providers: this.providers,
      decisions: this.decisions,
      bots: this.bidders
        .filter((b) => b.bot)
        .map((b) => ({
          bidder: b.index,
          // Only the run's slots: announcements for the blocks mined while settling may or may not have arrived.
          announcedSlots: b.bot!.announcedBetween(Number(firstBlock), Number(firstBlock) + step - 1),
          slotsBidFor: new Set(this.log.bids.filter((x) => x.bidder === b.index).map((x) => x.block)).size,
        })),
      validators: this.validators,
    };
  }

  private show(phase: string, done: number): void {
    this.progress.update({ phase, done, total: this.s.l1.blocks, ...this.counts });
  }

  // ------------------------------------------------------------------------------------------ set-up

  private async setUp(): Promise<void> {
    const t = this.env.target;
    this.providers = this.s.providers.map((spec, i) => {
      const agent = providerApp(
        spec.transport,
        this.nodes.providers[i]!,
        spec.name,
        simPolicy(spec, this.s.seed, i, (bid, accepted, reason) => {
          this.decisions.push({
            provider: i,
            block: BigInt(bid.blockNumber),
            txHashes: bid.txHashes,
            accepted,
            reason,
          });
          this.log.add({
            kind: "decision",
            actor: spec.name,
            block: BigInt(bid.blockNumber),
            detail: accepted ? "accepted" : (reason ?? "rejected"),
          });
        }),
      );
      this.running.push(true);
      return agent;
    });
    for (const p of this.providers) await p.start();
    for (const [i, spec] of this.s.providers.entries())
      if (spec.builder.mode !== "honest") {
        await this.control!.setBuilder(this.nodes.providers[i]!.address, spec.builder.mode, spec.builder.every);
        this.log.add({
          kind: "setup",
          actor: spec.name,
          detail: `builder ${spec.builder.mode}${spec.builder.every > 1 ? ` every ${spec.builder.every} bundles` : ""}`,
        });
      }
    this.bidders = this.s.bidders.map(
      (spec, i) =>
        new BidderAgent(
          i,
          spec,
          this.nodes.bidders[i]!.url,
          bidderClient(spec.transport, this.nodes.bidders[i]!, spec.name),
          this.nodes.bidders[i]!.address,
          this.l1,
          t.l1ChainId,
          this.s.seed,
          this.log,
          spec.strategy.type === "bot" ? new ValidatorWatch(this.nodes.bidders[i]!.url) : undefined,
        ),
    );
    // Bots listen from before the set-up blocks, so that they hear the announcement of the first slot they bid for.
    for (const b of this.bidders) await b.bot?.subscribe();
    const funded = await fundSenders(
      t.l1RpcUrl,
      t.l1ChainId,
      this.bidders.map((b) => b.senders),
    );
    // The block also lands what else waits in the L1 pool (a fresh devnet's own validator opt-ins).
    await this.mineSetupBlock();
    this.log.add({ kind: "setup", actor: "runner", detail: `funded ${funded} L1 sender accounts` });
    if (this.s.l1.optedIn !== undefined && (await this.setOptIns(this.s.l1.optedIn))) await this.mineSetupBlock();
    for (const b of this.bidders) await b.bot?.readEpochs();
    if (!this.windows) {
      const settlement = createPublicClient({ transport: localHttp(t.settlementRpcUrl), cacheTime: 0 });
      const providers = this.nodes.providers.map((p) => p.address);
      for (const b of this.bidders)
        await b.depositWithProviders(providers, (provider) =>
          settlement.readContract({
            address: (t.contracts as { bidderRegistry: Address }).bidderRegistry,
            abi: bidderRegistryV12Abi,
            functionName: "getDeposit",
            args: [b.address as Address, provider as Address],
          }),
        );
      return;
    }
    const first = (await this.l1.getBlockNumber({ cacheTime: 0 })) + 1n;
    for (const b of this.bidders) if (b.spec.deposit.type === "auto") await b.startAutoDeposit(windowOfBlock(first));
  }

  /** Whether deposits sit in windows (v1.1) or with providers (v1.2). */
  private get windows(): boolean {
    return this.env.rules.deposits === "window";
  }

  private async mineSetupBlock(): Promise<void> {
    if (this.control) {
      await this.control.mine(1, zeroAddress);
      return;
    }
    const head = await this.l1.getBlockNumber({ cacheTime: 0 });
    await this.untilL1(head + 1n);
  }

  /**
   * Opts validators in or out on the L1 registry so that `fraction` of the proposers of the current and the next
   * epoch are opted in (chosen by the seed). Opt-ins are sent by dev account 17, opt-outs by the registry owner.
   */
  private async setOptIns(fraction: number): Promise<boolean> {
    const registry = this.env.target.validatorOptInRouter;
    if (!registry)
      throw new SimulationError("l1.optedIn needs the target's validatorOptInRouter (the L1 opt-in registry)");
    const current = Math.floor(Number(await this.l1.getBlockNumber({ cacheTime: 0 })) / 32);
    const state = new Map([...(await this.readEpoch(current)), ...(await this.readEpoch(current + 1))]);
    const rnd = prng(seedFrom(this.s.seed, "validators"));
    const keys = [...state.keys()].sort();
    const ranked = keys.map((k) => ({ k, r: rnd() })).sort((a, b) => a.r - b.r);
    const want = new Set(ranked.slice(0, Math.round(fraction * keys.length)).map((x) => x.k));
    const optIn = keys.filter((k) => want.has(k) && !state.get(k)) as `0x${string}`[];
    const optOut = keys.filter((k) => !want.has(k) && state.get(k)) as `0x${string}`[];
    const rpcUrl = this.env.target.l1RpcUrl;
    if (optIn.length)
      await optInValidators({
        rpcUrl,
        registry: registry as Address,
        privateKey: devAccount(SIM_L1_ACCOUNT).privateKey,
        keys: optIn,
      });
    if (optOut.length)
      await optOutValidators({
        rpcUrl,
        registry: registry as Address,
        privateKey: devAccount(ROLES.owner).privateKey,
        keys: optOut,
      });
    this.validators = { keys: keys.length, optedIn: want.size };
    // The slots' states change with the opt-ins: read them again when needed.
    this.slotOptedIn.clear();
    this.log.add({
      kind: "setup",
      actor: "validators",
      detail: `${want.size} of ${keys.length} proposers opted in (${optIn.length} opted in, ${optOut.length} opted out)`,
    });
    return optIn.length + optOut.length > 0;
  }

  // ------------------------------------------------------------------------------------------ one block

  private async winnerOf(step: number, block: bigint): Promise<number | null> {
    const w = this.s.l1.winners;
    const n = this.s.providers.length;
    if (w.type === "round-robin") return step % n;
    if (w.type === "random") return Math.floor(this.winnerRnd() * n);
    if (w.type === "opted-in") return (await this.isSlotOptedIn(Number(block))) ? this.optedInWins++ % n : null;
    return w.winners[step % w.winners.length]!;
  }

  /** Whether the proposer of a slot is opted in (GET /v1/validator/get_validators for its epoch). */
  private async isSlotOptedIn(slot: number): Promise<boolean> {
    if (!this.slotOptedIn.has(slot)) await this.readEpoch(Math.floor(slot / 32));
    return this.slotOptedIn.get(slot) ?? false;
  }

  /** Reads one epoch's proposers; answers each distinct key with its opt-in state. */
  private async readEpoch(epoch?: number): Promise<Map<string, boolean>> {
    const r = await call(
      "GET",
      `${this.nodes.bidders[0]!.url}/v1/validator/get_validators${epoch ? `?epoch=${epoch}` : ""}`,
    );
    if (r.status !== 200) throw new SimulationError(`get_validators answered HTTP ${r.status}: ${r.text}`);
    const keys = new Map<string, boolean>();
    for (const [slot, v] of Object.entries(
      (r.json as { items: Record<string, { BLSKey: string; isOptedIn: boolean }> }).items,
    )) {
      this.slotOptedIn.set(Number(slot), v.isOptedIn);
      keys.set(v.BLSKey, v.isOptedIn);
    }
    return keys;
  }

  private async runBlock(step: number, block: bigint): Promise<void> {
    const stepStart = Date.now();
    const due = this.s.faults.filter((f) => f.block === step + 1);
    for (const f of due) if (f.action !== "stop") await this.applyFault(f, step, block);
    await this.depositFor(block, step);
    const bids = (await Promise.all(this.bidders.map((b) => b.bidFor(step, block)))).flat();
    this.log.bids.push(...bids);
    this.counts.bids += bids.length;
    this.counts.commitments += bids.reduce((n, b) => n + b.commitments.length, 0);
    await this.waitStored(block, step);
    // A provider stopped here has committed to this block but is down when it is built (a crash mid-window).
    for (const f of due) if (f.action === "stop") await this.applyFault(f, step, block);
    if (typeof this.s.l1.blockTime === "number")
      await Bun.sleep(Math.max(0, stepStart + this.s.l1.blockTime * 1000 - Date.now()));
    const winner = await this.winnerOf(step, block);
    await this.mine(step, block, winner, false, bids);
    await this.waitSettled(block, step);
    await this.withdrawSettledWindows(block, step, false);
  }

  private async applyFault(f: FaultSpec, step: number, block: bigint): Promise<void> {
    const c = this.control!;
    const name =
      f.provider !== undefined
        ? this.s.providers[f.provider]!.name
        : this.s.bidders[(f as { bidder: number }).bidder]!.name;
    const address = f.provider !== undefined ? this.nodes.providers[f.provider]!.address : undefined;
    switch (f.action) {
      case "stop":
        await this.providers[f.provider]!.stop();
        await c.stopProvider(f.provider);
        this.running[f.provider] = false;
        break;
      case "start": {
        await c.startProvider(f.provider);
        const node = (await this.env.nodes()).providers[f.provider]!;
        this.nodes.providers[f.provider] = node;
        const old = this.providers[f.provider]!;
        const spec = this.s.providers[f.provider]!;
        const agent = providerApp(spec.transport, node, spec.name, old.policy);
        await agent.start();
        this.providers[f.provider] = agent;
        this.running[f.provider] = true;
        break;
      }
      case "fail-store":
        await c.fault(address!, "store");
        break;
      case "fail-open":
        await c.fault(address ?? "bidder", "open");
        if (address) this.openFaultArmed.add(address);
        break;
      case "builder":
        await c.setBuilder(address!, f.builder.mode, f.builder.every);
        break;
    }
    const what =
      f.action === "builder"
        ? `builder ${f.builder.mode}${f.builder.every > 1 ? ` every ${f.builder.every}` : ""}`
        : f.action;
    this.log.add({ kind: "fault", actor: name, step, block, detail: what });
  }

  /** Per-window bidders deposit into the block's window before their first bid in it. */
  private async depositFor(block: bigint, step: number): Promise<void> {
    if (!this.windows) return;
    const w = windowOfBlock(block);
    for (const b of this.bidders)
      if (b.spec.deposit.type === "per-window" && !b.depositedWindows.has(w)) {
        await b.depositInto(w).catch((e) => this.log.warn(b.name, (e as Error).message, { step, block }));
      }
  }

  /** Waits until every running provider has stored (or failed to store) its commitments for the block. */
  private async waitStored(block: bigint, step: number): Promise<void> {
    await Promise.all(
      this.providers.map(async (_, i) => {
        if (!this.running[i]) return;
        const ok = await poll(async () => {
          const r = await call(
            "GET",
            `${this.nodes.providers[i]!.url}/v1/provider/get_commitment_info?block_number=${block}&limit=1000`,
          );
          if (r.status !== 200) return false;
          const groups = (r.json as { commitments: { commitments: { status: string; txnHashes: string[] }[] }[] })
            .commitments;
          const all = groups.flatMap((g) => g.commitments);
          for (const c of all)
            if (c.status === "failed")
              this.storeFailed.add(`${this.nodes.providers[i]!.address}/${c.txnHashes.join(",")}`);
          return all.every((c) => c.status !== "pending");
        }, STORE_WAIT_MS);
        if (!ok)
          this.log.warn(
            this.s.providers[i]!.name,
            `commitments for block ${block} not stored within ${STORE_WAIT_MS / 1000} s`,
            { step, block },
          );
      }),
    );
  }

  private async mine(
    step: number,
    block: bigint,
    winner: number | null,
    drain: boolean,
    bids: BidRecord[],
  ): Promise<void> {
    const address = winner === null ? null : this.nodes.providers[winner]!.address;
    if (this.control) {
      const [m] = await this.control.mine(1, address ?? zeroAddress);
      if (BigInt(m!.number) !== block)
        throw new SimulationError(`mined L1 block ${m!.number}, expected ${block}: something else mines this L1`);
    } else await this.untilL1(block);
    this.mined.push({ step, block, winner: address, drain });
    this.log.add({ kind: "mined", actor: winner === null ? "none" : this.s.providers[winner]!.name, step, block });
    if (address && bids.some((b) => b.commitments.some((c) => c.provider === address))) {
      // A winner that is down, or whose next open fails, leaves the opening to the bidder two blocks later.
      const late = !this.running[winner!] || this.openFaultArmed.delete(address);
      this.settleDue.push({
        block,
        winner: address,
        due: block + BigInt(this.env.oracleLag + (late ? BIDDER_OPEN_LAG : 0)),
      });
    }
  }

  private async untilL1(block: bigint): Promise<void> {
    if (!(await poll(async () => (await this.l1.getBlockNumber({ cacheTime: 0 })) >= block, 120_000, 200)))
      throw new SimulationError(`the target's L1 did not reach block ${block} within 120 s`);
  }

  /** Waits until the winner commitments of every block whose turn has come are settled, slashed or failed. */
  private async waitSettled(head: bigint, step: number): Promise<void> {
    const due = this.settleDue.filter((d) => d.due <= head);
    for (const d of due) {
      this.settleDue.splice(this.settleDue.indexOf(d), 1);
      const mine = this.log.bids.filter(
        (b) =>
          b.block === d.block &&
          b.bidDigest &&
          b.commitments.some((c) => c.provider === d.winner) &&
          !this.storeFailed.has(`${d.winner}/${b.txHashes.join(",")}`),
      );
      for (const bidder of new Set(mine.map((b) => b.bidder))) {
        const bids = mine.filter((b) => b.bidder === bidder);
        const digests = new Set(bids.map((b) => b.bidDigest));
        let statuses: string[] = [];
        const ok = await poll(async () => {
          statuses = (await bidInfo(this.bidders[bidder]!.url, d.block))
            .filter((b) => digests.has(b.bidDigest))
            .flatMap((b) =>
              b.commitments.filter((c) => `0x${c.providerAddress}`.toLowerCase() === d.winner).map((c) => c.status),
            );
          return statuses.length >= digests.size && statuses.every((s) => FINAL.has(s));
        }, SETTLE_WAIT_MS);
        if (!ok)
          this.log.warn(
            this.bidders[bidder]!.name,
            `block ${d.block}: winner commitments not settled within ${SETTLE_WAIT_MS / 1000} s (${statuses.join(", ")})`,
            { step, block: d.block },
          );
        this.counts.settled += statuses.filter((s) => s === "settled").length;
        this.counts.slashed += statuses.filter((s) => s === "slashed").length;
      }
    }
  }

  /**
   * Per-window bidders withdraw a window once the oracle has moved past it and every block of it has settled
   * (`final`: at the end of the run, every window).
   */
  private async withdrawSettledWindows(head: bigint, step: number, final: boolean): Promise<void> {
    if (!this.windows) return;
    const settledUpTo = head - BigInt(this.env.oracleLag + BIDDER_OPEN_LAG);
    for (const b of this.bidders) {
      if (b.spec.deposit.type !== "per-window") continue;
      const closed = [...b.openWindows].filter((w) => final || w * BLOCKS_PER_WINDOW < settledUpTo);
      if (closed.length)
        await b
          .withdraw(closed.sort((x, y) => Number(x - y)))
          .catch((e) => this.log.warn(b.name, (e as Error).message, { step, block: head }));
    }
  }

  // ------------------------------------------------------------------------------------------ drain

  /**
   * After the last block: mines empty blocks (no winner) until every winner commitment is settled and every
   * window the bidders deposited into has closed, then withdraws those windows. Auto-deposit is cancelled.
   */
  private async drain(next: bigint, step: number): Promise<void> {
    for (const b of this.bidders)
      if (this.windows && b.spec.deposit.type === "auto")
        await b.cancelAutoDeposit().catch((e) => this.log.warn(b.name, (e as Error).message));
    const windows = this.bidders.flatMap((b) => [...b.openWindows]);
    const lastWindow = windows.length ? windows.reduce((a, b) => (a > b ? a : b)) : 0n;
    // Withdrawable once the oracle recorded a block of the next window and the last blocks settled.
    const untilWindowsClose = lastWindow * BLOCKS_PER_WINDOW + 1n + BigInt(this.env.oracleLag + BIDDER_OPEN_LAG);
    const settleBy = this.settleDue.reduce((m, d) => (d.due > m ? d.due : m), 0n);
    let block = next;
    const target = [untilWindowsClose, settleBy, next + BigInt(this.env.oracleLag + BIDDER_OPEN_LAG)].reduce((a, b) =>
      a > b ? a : b,
    );
    let drained = 0;
    while (block <= target && !this.stop.skipSettling) {
      await this.mine(step, block, null, true, []);
      await this.waitSettled(block, step);
      this.show("settling", step);
      block++;
      drained++;
    }
    await this.withdrawSettledWindows(block - 1n, step, true);
    for (const p of this.providers) await p.stop();
    for (const b of this.bidders) await b.bot?.stop();
    for (const b of this.bidders) b.client.close();
    this.log.add({
      kind: "setup",
      actor: "runner",
      detail: `drained: ${drained} empty blocks mined after the last bid block`,
    });
  }
}

export interface BidInfoBid {
  bidDigest: string;
  bidAmount: string;
  blockNumber: string;
  decayStartTimestamp: string;
  decayEndTimestamp: string;
  slashAmount: string;
  txnHashes: string[];
  commitments: {
    providerAddress: string;
    dispatchTimestamp: string;
    status: string;
    details: string;
    payment: string;
    refund: string;
  }[];
}

/** GET /v1/bidder/get_bid_info for one block (or every block), every page. */
export async function bidInfo(bidderUrl: string, block?: bigint): Promise<BidInfoBid[]> {
  const out: BidInfoBid[] = [];
  for (let page = 0; ; page++) {
    const r = await call(
      "GET",
      `${bidderUrl}/v1/bidder/get_bid_info?${block === undefined ? "" : `block_number=${block}&`}page=${page}&limit=1000`,
    );
    if (r.status !== 200) throw new SimulationError(`get_bid_info answered HTTP ${r.status}: ${r.text}`);
    const groups = (r.json as { blockBidInfo: { bids: BidInfoBid[] }[] }).blockBidInfo;
    const bids = groups.flatMap((g) => g.bids);
    if (!bids.length) return out;
    out.push(...bids);
  }
}

/** Polls `done` until true or `timeoutMs` passed; answers whether it became true. */
export async function poll(done: () => Promise<boolean>, timeoutMs: number, everyMs = 50): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await done().catch(() => false)) return true;
    if (Date.now() >= end) return false;
    await Bun.sleep(everyMs);
  }
}
