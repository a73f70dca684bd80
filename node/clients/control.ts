import { MevCommitError } from "../../lib/errors.ts";
import type { DevnetStatus } from "../control/simApi.ts";
import { call } from "./http.ts";

export class ControlApiError extends MevCommitError {}

export type BuilderModeName = "honest" | "omit" | "reverse" | "gap";

/** Client of a devnet's /sim/v1 control API. */
export class ControlClient {
  constructor(readonly baseUrl: string) {}

  private async post<T>(path: string, body?: unknown): Promise<T> {
    const r = await call("POST", `${this.baseUrl}${path}`, body === undefined ? {} : { body });
    if (r.status !== 200) throw new ControlApiError(`POST ${path} failed: HTTP ${r.status} ${r.text}`);
    return r.json as T;
  }

  async mine(blocks = 1, winner?: string): Promise<{ number: string; hash: string; winner: string }[]> {
    const r = await this.post<{ blocks: { number: string; hash: string; winner: string }[] }>("/sim/v1/mine", {
      blocks,
      ...(winner ? { winner } : {}),
    });
    return r.blocks;
  }

  async status(): Promise<DevnetStatus> {
    const r = await call("GET", `${this.baseUrl}/sim/v1/status`);
    if (r.status !== 200) throw new ControlApiError(`status failed: HTTP ${r.status} ${r.text}`);
    return r.json as DevnetStatus;
  }

  /** How a provider's builder includes its bundles; `every` k applies the mode to every k-th bundle only. */
  async setBuilder(provider: string, mode: BuilderModeName, every = 1): Promise<void> {
    await this.post("/sim/v1/builder", { provider, mode, every });
  }

  /** Arms (`store`, `open`) or disarms (`none`) a node's next failing transaction. */
  async fault(node: string, fail: "store" | "open" | "none"): Promise<void> {
    await this.post("/sim/v1/faults", { node, fail });
  }

  async stopProvider(index: number): Promise<void> {
    await this.post(`/sim/v1/providers/${index}/stop`);
  }

  async startProvider(index: number): Promise<void> {
    await this.post(`/sim/v1/providers/${index}/start`);
  }
}
