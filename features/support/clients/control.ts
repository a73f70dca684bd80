/**
 * Client of a devnet's `/sim/v1` control API (docs/conformance.md, "Capabilities"): mine L1 blocks with a chosen
 * winner, set a provider's builder behaviour, and (with `sim-nodes`) stop, start and fault the target's nodes.
 */

import { MevCommitError } from "../../../lib/errors.ts";
import { call, type HttpResult } from "./http.ts";
import type { ScenarioScope } from "./scope.ts";

export class ControlApiError extends MevCommitError {}

/** The part of `GET /sim/v1/status` the suite reads. */
export interface ControlStatus {
  /** The protocol the devnet speaks; absent means v1.1. */
  protocol?: "v1.1" | "v1.2";
  /** The BlockTracker's current window (v1.1); null on v1.2, which has no windows. */
  currentWindow: string | null;
  /** v1.2: the bidder withdrawal period in chain milliseconds (a decimal string); null on v1.1. */
  bidderWithdrawalPeriodMs?: string | null;
  lastRecordedBlock: string;
  nodes?: {
    name: string;
    role: string;
    address: string;
    running?: boolean;
    subscribers?: number;
    receivers?: number;
  }[];
}

export class ControlClient {
  constructor(
    readonly baseUrl: string,
    private readonly scope?: ScenarioScope,
  ) {}

  private async post(path: string, body?: unknown, timeoutMs?: number): Promise<HttpResult> {
    const r = await call("POST", `${this.baseUrl}${path}`, { body, scope: this.scope, timeoutMs });
    if (r.status !== 200)
      throw new ControlApiError(
        `POST ${this.baseUrl}${path} ${body === undefined ? "" : JSON.stringify(body)} answered HTTP ${r.status}: ${r.text}`,
      );
    return r;
  }

  /** Mines `blocks` L1 blocks (the winner, if named, wins the first); answers once the oracle recorded them. */
  async mine(blocks = 1, winner?: string): Promise<{ number: string; hash: string; winner: string }[]> {
    const r = await this.post("/sim/v1/mine", { blocks, ...(winner ? { winner } : {}) });
    return (r.json as { blocks: { number: string; hash: string; winner: string }[] }).blocks;
  }

  async status(): Promise<ControlStatus> {
    const r = await call("GET", `${this.baseUrl}/sim/v1/status`, { scope: this.scope });
    if (r.status !== 200) throw new ControlApiError(`GET /sim/v1/status answered HTTP ${r.status}: ${r.text}`);
    return r.json as ControlStatus;
  }

  async builder(provider: string, mode: "honest" | "omit" | "reverse" | "gap"): Promise<void> {
    await this.post("/sim/v1/builder", { provider, mode });
  }

  /**
   * A provider application tells the devnet's builder the raw transactions it committed to for a future block; the
   * block, if that provider wins it, includes them (for provider nodes the control API does not run: no `sim-nodes`).
   */
  async bundle(
    provider: string,
    blockNumber: string,
    rawTransactions: string[],
    bidAmount?: string,
  ): Promise<"kept" | "late"> {
    const body = { provider, blockNumber, rawTransactions, ...(bidAmount === undefined ? {} : { bidAmount }) };
    const r = await call("POST", `${this.baseUrl}/sim/v1/bundles`, { body, scope: this.scope });
    if (r.status === 200) return "kept";
    // FailedPrecondition: the block is mined already (a bid for a past block); nothing to build.
    if ((r.json as { code?: number } | undefined)?.code === 9) return "late";
    throw new ControlApiError(
      `POST ${this.baseUrl}/sim/v1/bundles ${JSON.stringify(body)} answered HTTP ${r.status}: ${r.text}`,
    );
  }

  /** A provider node (0-based index) leaves (`stop`) or joins (`start`) the network. */
  async provider(index: number, action: "stop" | "start"): Promise<void> {
    await this.post(`/sim/v1/providers/${index}/${action}`);
  }

  async fault(node: string, fail: "store" | "open" | "none"): Promise<void> {
    await this.post("/sim/v1/faults", { node, fail });
  }

  /**
   * Kills a node with SIGKILL and starts it again on the same data (capability `sim-kill`). `after-ack`: the node
   * dies right after it next streams a commitment to a client; the answer comes once it did and serves again.
   * `replayFrom`: the restarted node handles the settlement chain's events again from that block on.
   */
  async kill(
    name: string,
    opts: { at?: "after-ack"; replayFrom?: bigint; timeoutMs?: number } = {},
  ): Promise<HttpResult> {
    const body = {
      ...(opts.at ? { at: opts.at } : {}),
      ...(opts.replayFrom !== undefined ? { replayFrom: opts.replayFrom.toString() } : {}),
    };
    return this.post(
      `/sim/v1/nodes/${encodeURIComponent(name)}/kill`,
      Object.keys(body).length ? body : undefined,
      opts.timeoutMs,
    );
  }
}
