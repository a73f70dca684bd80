import { Elysia } from "elysia";
import * as pb from "../../gen/proto/bidderapi/v1/bidderapi_pb.ts";
import {
  BLOCK_NUMBER_QUERY,
  type DepositRequestFields,
  decodeWithdrawFromWindowsText,
  WINDOW_NUMBER_QUERY,
} from "../../protocol/depositValidation.ts";
import { parseQueryField, type QueryValues } from "../../protocol/queryParams.ts";
import type { BidderService } from "../../services/bidderService.ts";
import { jsonBody, pathParam, queryParam, unaryResponses, Wire } from "../openapi.ts";
import { BODY_LIMITS, readBodyText } from "../wire/limits.ts";
import { messageResponse } from "../wire/message.ts";
import { queryOf } from "../wire/request.ts";
import {
  AutoDepositResponse,
  AutoDepositStatus,
  CancelAutoDepositResponse,
  WindowAmount,
  WithdrawFromWindowsRequest,
  WithdrawFromWindowsResponse,
} from "./schemas.ts";

const windowParams = [
  queryParam("window_number", "target window (also windowNumber), positive", Wire.uint(1)),
  queryParam("block_number", "target the window of this L1 block (also blockNumber), positive", Wire.uint(1)),
];
/** GetDeposit takes any window (0 included; absent: the next one). */
const anyWindowParam = queryParam(
  "window_number",
  "the window (also windowNumber); absent: the next window",
  Wire.uint(0),
);
/** Withdraw takes a positive window (absent: the last closed one). */
const withdrawWindowParam = queryParam(
  "window_number",
  "the window (also windowNumber), positive; absent: the last closed window",
  Wire.uint(1),
);
/** What refuses a valid deposit request: the node's state, not its input. */
const DEPOSIT_STATE =
  " Refused with FailedPrecondition while auto-deposit runs, and when the bidder's account cannot pay the amount plus gas.";
const amountParam = pathParam("amount", "wei", Wire.wei);
const tags = ["Bidder deposits"];

const windowOf = (query: QueryValues) => parseQueryField(query, WINDOW_NUMBER_QUERY) as bigint | undefined;

/** DepositRequest from the `{amount}` path parameter and the query (grpc-gateway fills the message first). */
function depositFields(amount: string, query: QueryValues): DepositRequestFields {
  return {
    amount,
    windowNumber: windowOf(query),
    blockNumber: parseQueryField(query, BLOCK_NUMBER_QUERY) as bigint | undefined,
  };
}

/** The bidder's deposit operations (interface.md §4.3, §4.8–4.10, and upstream's siblings of api-behaviour §7). */
export function windowDepositRoutes(bidder: BidderService) {
  return new Elysia({ name: "bidder-deposits" })
    .post(
      "/v1/bidder/deposit/:amount",
      async ({ params, request }) =>
        messageResponse(pb.DepositResponseSchema, await bidder.deposit(depositFields(params.amount, queryOf(request)))),
      {
        parse: "none",
        detail: {
          tags,
          summary: "Deposit",
          description:
            "Deposits into one window (window_number, else the window of block_number, else current + 1) and answers the window's new total." +
            DEPOSIT_STATE,
          parameters: [amountParam, ...windowParams],
          responses: unaryResponses(WindowAmount),
        },
      },
    )
    .post(
      "/v1/bidder/auto_deposit/:amount",
      async ({ params, request }) =>
        messageResponse(
          pb.AutoDepositResponseSchema,
          await bidder.autoDeposit(depositFields(params.amount, queryOf(request))),
        ),
      {
        parse: "none",
        detail: {
          tags,
          summary: "AutoDeposit",
          description:
            "Deposits the amount into the start window (window_number, else the window of block_number, else current + 1) and the next, " +
            "then keeps depositing ahead and withdrawing closed windows on every new window." +
            DEPOSIT_STATE.replace("while auto-deposit runs", "when auto-deposit already runs"),
          parameters: [amountParam, ...windowParams],
          responses: unaryResponses(AutoDepositResponse),
        },
      },
    )
    .get(
      "/v1/bidder/auto_deposit_status",
      async () => messageResponse(pb.AutoDepositStatusResponseSchema, await bidder.autoDepositStatus()),
      { detail: { tags, summary: "AutoDepositStatus", responses: unaryResponses(AutoDepositStatus) } },
    )
    .post(
      "/v1/bidder/cancel_auto_deposit",
      async ({ request }) => {
        const withdraw = parseQueryField(queryOf(request), { name: "withdraw", jsonName: "withdraw", kind: "bool" }) as
          | boolean
          | undefined;
        return messageResponse(
          pb.CancelAutoDepositResponseSchema,
          await bidder.cancelAutoDeposit({ withdraw: withdraw ?? false }),
        );
      },
      {
        parse: "none",
        detail: {
          tags,
          summary: "CancelAutoDeposit",
          description:
            "Stops auto-deposit and answers the windows still on record. Refused with FailedPrecondition when auto-deposit is not running.",
          parameters: [queryParam("withdraw", "withdraw every window once all have closed", "boolean")],
          responses: unaryResponses(CancelAutoDepositResponse),
        },
      },
    )
    .post(
      "/v1/bidder/withdraw_from_windows",
      async ({ request }) =>
        messageResponse(
          pb.WithdrawFromWindowsResponseSchema,
          await bidder.withdrawFromWindows({
            windowNumbers: decodeWithdrawFromWindowsText(await readBodyText(request, BODY_LIMITS.small)),
          }),
        ),
      {
        parse: "none",
        detail: {
          tags,
          summary: "WithdrawFromWindows",
          description:
            "Withdraws the deposits of the given windows. Refused with FailedPrecondition while auto-deposit runs, and when the chain " +
            "refuses a window that has not closed yet.",
          requestBody: jsonBody(WithdrawFromWindowsRequest),
          responses: unaryResponses(WithdrawFromWindowsResponse),
        },
      },
    )
    .get(
      "/v1/bidder/get_deposit",
      async ({ request }) =>
        messageResponse(
          pb.DepositResponseSchema,
          await bidder.getDeposit({ windowNumber: windowOf(queryOf(request)) }),
        ),
      {
        detail: { tags, summary: "GetDeposit", parameters: [anyWindowParam], responses: unaryResponses(WindowAmount) },
      },
    )
    .post(
      "/v1/bidder/withdraw",
      async ({ request }) =>
        messageResponse(pb.WithdrawResponseSchema, await bidder.withdraw({ windowNumber: windowOf(queryOf(request)) })),
      {
        parse: "none",
        detail: {
          tags,
          summary: "Withdraw",
          description:
            "Withdraws the deposit of one window. Refused with FailedPrecondition while auto-deposit runs and when the chain refuses a " +
            'window that has not closed yet; without window_number while no window has closed, InvalidArgument "no closed window to withdraw from".',
          parameters: [withdrawWindowParam],
          responses: unaryResponses(WindowAmount),
        },
      },
    );
}
