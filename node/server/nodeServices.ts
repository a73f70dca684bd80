import type { Address } from "viem";
import type { NodeRole } from "../api/app.ts";
import type { BidderService } from "../services/bidderService.ts";
import type { DebugService } from "../services/debugService.ts";
import type { NotificationsService } from "../services/notificationsService.ts";
import type { ProviderService } from "../services/providerService.ts";
import type { ValidatorApiService } from "../services/validatorApiService.ts";

/** Every API service of one node, as its composition root built them (`bidder` on a bidder node, `provider` on a
 * provider node); every transport serves these. */
export interface NodeServices {
  role: NodeRole;
  address: Address;
  bidder?: BidderService;
  provider?: ProviderService;
  notifications: NotificationsService;
  validator: ValidatorApiService;
  debug: DebugService;
}
