import type { Address } from "viem";
import type { DepositServiceV12 } from "../bidder/deposits/perProvider/perProviderDeposits.ts";
import type { BidderService } from "./bidderService.ts";
import type { DebugService } from "./debugService.ts";
import type { NotificationsService } from "./notificationsService.ts";
import type { ProviderService } from "./providerService.ts";
import type { ValidatorApiService } from "./validatorApiService.ts";

export type NodeRole = "bidder" | "provider";

/** Every API service of one node, as its composition root built them (`bidder` on a bidder node, `provider` on a
 * provider node); every transport serves these. */
export interface NodeServices {
  role: NodeRole;
  address: Address;
  bidder?: BidderService;
  /** A bidder node of protocol v1.2: its deposit calls, which replace the window calls of `bidder`. */
  bidderDepositsV12?: DepositServiceV12;
  provider?: ProviderService;
  notifications: NotificationsService;
  validator: ValidatorApiService;
  debug: DebugService;
}
