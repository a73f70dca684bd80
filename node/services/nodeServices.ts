import type { Address } from "viem";
import type { BidderDepositModel } from "../bidder/deposits/depositModel.ts";
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
  /**
   * A bidder node's deposit model (`model` says which): window deposits, whose calls `bidder` serves, or per-provider
   * deposits, which serve their own calls instead.
   */
  bidderDeposits?: BidderDepositModel;
  provider?: ProviderService;
  notifications: NotificationsService;
  validator: ValidatorApiService;
  debug: DebugService;
}
