import { t } from "elysia";
import { Wire } from "../openapi.ts";

/** OpenAPI schemas of the bidder service, in grpc-gateway's JSON (camelCase, 64-bit integers as strings). */
const U64 = (description: string) => t.String({ pattern: "^[0-9]+$", description });

export const WindowAmount = t.Object({
  amount: U64("wei"),
  windowNumber: U64("window number"),
});

export const AutoDepositResponse = t.Object({
  startWindowNumber: U64("first window deposited into"),
  amountPerWindow: U64("wei deposited into each window"),
});

export const AutoDepositStatus = t.Object({
  windowBalances: t.Array(
    t.Object({
      depositedAmount: U64("live BidderRegistry.getDeposit for the window, wei"),
      windowNumber: U64("window number"),
      isCurrent: t.Boolean({ description: "the window bids go to now (BlockTracker's current window + 1)" }),
      startBlockNumber: U64("first L1 block of the window"),
      endBlockNumber: U64("last L1 block of the window"),
    }),
  ),
  isAutodepositEnabled: t.Boolean(),
});

export const WithdrawFromWindowsRequest = t.Object({
  window_numbers: t.Array(t.Unsafe(Wire.positiveUint64Json("a window number")), {
    minItems: 1,
    description:
      "windows to withdraw from, each positive (also spelled windowNumbers). Each must have closed: " +
      "otherwise the chain refuses the withdrawal (FailedPrecondition), which no schema can say.",
  }),
});

export const WithdrawFromWindowsResponse = t.Object({ withdrawResponses: t.Array(WindowAmount) });

export const CancelAutoDepositResponse = t.Object({
  windowNumbers: t.Array(U64("window number"), { description: "windows still on record (empty with withdraw=true)" }),
});

export const WindowQuery = t.Object({
  window_number: t.Optional(t.String({ description: "target window (also windowNumber)" })),
  block_number: t.Optional(t.String({ description: "a block whose window is targeted (also blockNumber)" })),
});

// ------------------------------------------------------------------------------------- protocol v1.2 deposits

const Wei = (description: string) => t.String({ pattern: "^[0-9]+$", description });
const AddressText = (description: string) => t.String({ pattern: "^(0x)?[a-fA-F0-9]{40}$", description });

export const ProviderDeposit = t.Object({
  amount: Wei("wei"),
  provider: t.String({ description: "the provider (EIP-55 in Deposit's reply; GetDeposit echoes the request)" }),
});

export const ProvidersAmounts = t.Object({
  providers: t.Array(t.String({ pattern: "^[a-f0-9]{40}$" }), { description: "lowercase hex without 0x" }),
  amounts: t.Array(Wei("wei, one per provider")),
});

export const DepositManagerSwitch = t.Object({ success: t.Boolean() });

export const TargetDepositSchema = t.Object({
  provider: t.String({ description: "provider address" }),
  targetDeposit: t.String({ description: "wei (also target_deposit)" }),
});

export const SetTargetDepositsRequest = t.Object({
  targetDeposits: t.Array(TargetDepositSchema, { description: "also target_deposits; at least one" }),
});

export const SetTargetDepositsResponse = t.Object({
  successfullySetDeposits: t.Array(TargetDepositSchema, { description: "providers in lowercase hex without 0x" }),
  successfullyToppedUpProviders: t.Array(t.String(), { description: "EIP-55" }),
});

export const DepositManagerStatus = t.Object({
  enabled: t.Boolean({ description: "the bidder's account delegates to the DepositManager (EIP-7702)" }),
  targetDeposits: t.Array(TargetDepositSchema, { description: "the latest target per provider; order not defined" }),
});

export const ProvidersRequest = t.Object({
  providers: t.Array(AddressText("provider address"), { description: "at least one" }),
});

export const AllDeposits = t.Object({
  deposits: t.Array(t.Object({ provider: t.String({ description: "EIP-55" }), amount: Wei("available wei") })),
  bidderBalance: Wei("the bidder account's balance, wei"),
});

export const ValidProviders = t.Object({
  validProviders: t.Array(t.String({ description: "EIP-55" }), { description: "order not defined" }),
});

/** Withdraw's reply: amounts first, as upstream numbers them. */
export const WithdrawV12Response = t.Object({
  amounts: t.Array(Wei("wei withdrawn, one per provider")),
  providers: t.Array(t.String({ pattern: "^[a-f0-9]{40}$" }), { description: "lowercase hex without 0x" }),
});
