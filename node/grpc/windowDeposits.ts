/**
 * The window deposit calls (protocol v1.1's bidderapi.v1.Bidder) as grpc-js handlers over BidderService, which serves
 * the window deposits (node/bidder/deposits/window/); the per-provider model's are perProviderDeposits.ts.
 */
import type { UntypedServiceImplementation } from "@grpc/grpc-js";
import type * as bidderPb from "../gen/proto/bidderapi/v1/bidderapi_pb.ts";
import type { BidderService } from "../services/bidderService.ts";
import { unary } from "./handlers.ts";

export function windowDepositHandlers(s: BidderService): UntypedServiceImplementation {
  const deposit = (r: bidderPb.DepositRequest) => ({
    amount: r.amount,
    windowNumber: r.windowNumber,
    blockNumber: r.blockNumber,
  });
  return {
    Deposit: unary("Deposit", (r: bidderPb.DepositRequest) => s.deposit(deposit(r))),
    AutoDeposit: unary("AutoDeposit", (r: bidderPb.DepositRequest) => s.autoDeposit(deposit(r))),
    CancelAutoDeposit: unary("CancelAutoDeposit", (r: bidderPb.CancelAutoDepositRequest) =>
      s.cancelAutoDeposit({ withdraw: r.withdraw }),
    ),
    AutoDepositStatus: unary("AutoDepositStatus", () => s.autoDepositStatus()),
    WithdrawFromWindows: unary("WithdrawFromWindows", (r: bidderPb.WithdrawFromWindowsRequest) =>
      s.withdrawFromWindows({ windowNumbers: r.windowNumbers.map((w) => w.value) }),
    ),
    GetDeposit: unary("GetDeposit", (r: bidderPb.GetDepositRequest) => s.getDeposit({ windowNumber: r.windowNumber })),
    Withdraw: unary("Withdraw", (r: bidderPb.WithdrawRequest) => s.withdraw({ windowNumber: r.windowNumber })),
  };
}
