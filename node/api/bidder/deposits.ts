import { Elysia } from "elysia";
import type { DepositService } from "../../bidder/deposits/depositService.ts";
import {
  parseAutoDepositRequest,
  parseDepositRequest,
  parseWithdrawFromWindowsRequestText,
  WINDOW_NUMBER_QUERY,
} from "../../protocol/depositValidation.ts";
import { parseQueryField } from "../../protocol/queryParams.ts";
import { validationErrorText } from "../../protocol/protoValidation.ts";
import { InvalidArgumentError } from "../../protocol/grpcCodes.ts";
import { unaryResponse } from "../wire/errors.ts";
import { queryOf } from "../wire/request.ts";
import { jsonBody, pathParam, queryParam, unaryResponses } from "../openapi.ts";
import {
  AutoDepositResponse,
  AutoDepositStatus,
  CancelAutoDepositResponse,
  WindowAmount,
  WithdrawFromWindowsRequest,
  WithdrawFromWindowsResponse,
} from "./schemas.ts";

const windowParams = [
  queryParam("window_number", "target window (also windowNumber)"),
  queryParam("block_number", "target the window of this L1 block (also blockNumber)"),
];
const amountParam = pathParam("amount", "wei", "^[1-9][0-9]*$");
const tags = ["Bidder deposits"];

const windowAmount = (r: { window: bigint; amount: bigint }) => ({ amount: r.amount.toString(), windowNumber: r.window.toString() });

/** The bidder's deposit operations (interface.md §4.3, §4.8–4.10, and upstream's siblings of api-behaviour §7). */
export function bidderDepositRoutes(deposits: DepositService) {
  return new Elysia({ name: "bidder-deposits" })
    .post(
      "/v1/bidder/deposit/:amount",
      async ({ params, request }) => {
        const req = parseDepositRequest(params.amount, queryOf(request));
        return unaryResponse(windowAmount(await deposits.deposit(req.amount, req)));
      },
      {
        parse: "none",
        detail: {
          tags,
          summary: "Deposit",
          description: "Deposits into one window (explicit, of a block, or current + 1) and answers the window's new total. Refused while auto-deposit runs.",
          parameters: [amountParam, ...windowParams],
          responses: unaryResponses(WindowAmount),
        },
      },
    )
    .post(
      "/v1/bidder/auto_deposit/:amount",
      async ({ params, request }) => {
        const req = parseAutoDepositRequest(params.amount, queryOf(request));
        const r = await deposits.startAutoDeposit(req.amount, req);
        return unaryResponse({ startWindowNumber: r.startWindow.toString(), amountPerWindow: r.amount.toString() });
      },
      {
        parse: "none",
        detail: {
          tags,
          summary: "AutoDeposit",
          description: "Deposits the amount into the start window and the next, then keeps depositing ahead and withdrawing closed windows on every new window.",
          parameters: [amountParam, ...windowParams],
          responses: unaryResponses(AutoDepositResponse),
        },
      },
    )
    .get(
      "/v1/bidder/auto_deposit_status",
      async () => {
        const s = await deposits.status();
        return unaryResponse({
          windowBalances: s.windows.map((w) => ({
            depositedAmount: w.deposited.toString(),
            windowNumber: w.window.toString(),
            isCurrent: w.isCurrent,
            startBlockNumber: w.startBlock.toString(),
            endBlockNumber: w.endBlock.toString(),
          })),
          isAutodepositEnabled: s.enabled,
        });
      },
      { detail: { tags, summary: "AutoDepositStatus", responses: unaryResponses(AutoDepositStatus) } },
    )
    .post(
      "/v1/bidder/cancel_auto_deposit",
      async ({ request }) => {
        const withdraw = parseQueryField(queryOf(request), { name: "withdraw", jsonName: "withdraw", kind: "bool" }) as boolean | undefined;
        const windows = await deposits.cancelAutoDeposit(withdraw ?? false);
        return unaryResponse({ windowNumbers: windows.map(String) });
      },
      {
        parse: "none",
        detail: {
          tags,
          summary: "CancelAutoDeposit",
          parameters: [queryParam("withdraw", "withdraw every window once all have closed", "boolean")],
          responses: unaryResponses(CancelAutoDepositResponse),
        },
      },
    )
    .post(
      "/v1/bidder/withdraw_from_windows",
      async ({ request }) => {
        const windows = parseWithdrawFromWindowsRequestText(await request.text());
        const results = await deposits.withdrawFromWindows(windows);
        return unaryResponse({ withdrawResponses: results.map(windowAmount) });
      },
      {
        parse: "none",
        detail: {
          tags,
          summary: "WithdrawFromWindows",
          requestBody: jsonBody(WithdrawFromWindowsRequest),
          responses: unaryResponses(WithdrawFromWindowsResponse),
        },
      },
    )
    .get(
      "/v1/bidder/get_deposit",
      async ({ request }) => {
        const w = parseQueryField(queryOf(request), WINDOW_NUMBER_QUERY) as bigint | undefined;
        return unaryResponse(windowAmount(await deposits.getDeposit(w)));
      },
      { detail: { tags, summary: "GetDeposit", parameters: [windowParams[0]], responses: unaryResponses(WindowAmount) } },
    )
    .post(
      "/v1/bidder/withdraw",
      async ({ request }) => {
        const w = parseQueryField(queryOf(request), WINDOW_NUMBER_QUERY) as bigint | undefined;
        if (w !== undefined && w <= 0n)
          throw new InvalidArgumentError(
            `validating withdraw request: ${validationErrorText([
              { fieldPath: "window_number", message: "window_number must be a positive integer if specified.", constraintId: "window_number" },
            ])}`,
          );
        return unaryResponse(windowAmount(await deposits.withdraw(w)));
      },
      { parse: "none", detail: { tags, summary: "Withdraw", parameters: [windowParams[0]], responses: unaryResponses(WindowAmount) } },
    );
}
