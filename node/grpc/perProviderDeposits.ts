/**
 * The per-provider deposit calls (protocol v1.2's bidderapi.v1.Bidder) as grpc-js handlers over PerProviderDeposits
 * (node/bidder/deposits/perProvider/), which validates each request message and answers the reply message itself;
 * the window model's are windowDeposits.ts.
 */
import type { UntypedServiceImplementation } from "@grpc/grpc-js";
import type { PerProviderDeposits } from "../bidder/deposits/perProvider/perProviderDeposits.ts";
import type * as bidderV12Pb from "../gen/proto/v1.2/bidderapi/v1/bidderapi_pb.ts";
import { unary } from "./handlers.ts";

export function perProviderDepositHandlers(d: PerProviderDeposits): UntypedServiceImplementation {
  return {
    Deposit: unary("Deposit", (r: bidderV12Pb.DepositRequest) => d.deposit(r)),
    DepositEvenly: unary("DepositEvenly", (r: bidderV12Pb.DepositEvenlyRequest) => d.depositEvenly(r)),
    EnableDepositManager: unary("EnableDepositManager", () => d.enableDepositManager()),
    DisableDepositManager: unary("DisableDepositManager", () => d.disableDepositManager()),
    SetTargetDeposits: unary("SetTargetDeposits", (r: bidderV12Pb.SetTargetDepositsRequest) => d.setTargetDeposits(r)),
    DepositManagerStatus: unary("DepositManagerStatus", () => d.depositManagerStatus()),
    RequestWithdrawals: unary("RequestWithdrawals", (r: bidderV12Pb.RequestWithdrawalsRequest) =>
      d.requestWithdrawals(r),
    ),
    GetValidProviders: unary("GetValidProviders", () => d.getValidProviders()),
    GetDeposit: unary("GetDeposit", (r: bidderV12Pb.GetDepositRequest) => d.getDeposit(r)),
    GetAllDeposits: unary("GetAllDeposits", () => d.getAllDeposits()),
    Withdraw: unary("Withdraw", (r: bidderV12Pb.WithdrawRequest) => d.withdraw(r)),
  };
}
