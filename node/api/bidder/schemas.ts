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
