import { call } from "./http.ts";
import type { DevnetStatus } from "../../node/control/simApi.ts";

export class ControlApiError extends Error {
  override name = "ControlApiError";
}

/** Client of a devnet's /sim/v1 control API. */
export class ControlClient {
  constructor(readonly baseUrl: string) {}

  async mine(blocks = 1, winner?: string): Promise<{ number: string; hash: string; winner: string }[]> {
    const r = await call("POST", `${this.baseUrl}/sim/v1/mine`, { body: { blocks, ...(winner ? { winner } : {}) } });
    if (r.status !== 200) throw new ControlApiError(`mine failed: HTTP ${r.status} ${r.text}`);
    return (r.json as { blocks: { number: string; hash: string; winner: string }[] }).blocks;
  }

  async status(): Promise<DevnetStatus> {
    const r = await call("GET", `${this.baseUrl}/sim/v1/status`);
    if (r.status !== 200) throw new ControlApiError(`status failed: HTTP ${r.status} ${r.text}`);
    return r.json as DevnetStatus;
  }
}
