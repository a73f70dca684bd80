import { type DescMessage, fromJsonString, type MessageShape } from "@bufbuild/protobuf";
import { Elysia } from "elysia";
import type { PerProviderDeposits } from "../../bidder/deposits/perProvider/perProviderDeposits.ts";
import * as pb from "../../gen/proto/v1.2/bidderapi/v1/bidderapi_pb.ts";
import { BodyDecodeError } from "../../protocol/grpcCodes.ts";
import { parseQueryField, type QueryValues, queryValuesFor } from "../../protocol/queryParams.ts";
import { jsonBody, pathParam, queryParam, repeatedQueryParam, unaryResponses, Wire } from "../openapi.ts";
import { BODY_LIMITS, readBodyText } from "../wire/limits.ts";
import { messageResponse } from "../wire/message.ts";
import { queryOf } from "../wire/request.ts";
import {
  AllDeposits,
  DepositManagerStatus,
  DepositManagerSwitch,
  ProviderDeposit,
  ProvidersAmounts,
  ProvidersRequest,
  SetTargetDepositsRequest,
  SetTargetDepositsResponse,
  ValidProviders,
  WithdrawV12Response,
} from "./schemas.ts";

const tags = ["Bidder deposits (v1.2)"];
const address = { type: "string", pattern: "^(0x)?[a-fA-F0-9]{40}$" };
const providerParam = queryParam("provider", "the provider's address", address);
const providersParam = repeatedQueryParam("providers", "provider addresses (repeat the key)", address);

const queryString = (q: QueryValues, name: string, jsonName: string): string =>
  (parseQueryField(q, { name, jsonName, kind: "string" }) as string | undefined) ?? "";
const queryList = (q: QueryValues, name: string): string[] => [
  ...(queryValuesFor(q, { name, jsonName: name, kind: "string" }) ?? []),
];

/** A `body: "*"` request: protojson (proto or JSON names); an empty body is the empty message, as in grpc-gateway. */
async function bodyMessage<D extends DescMessage>(schema: D, request: Request): Promise<MessageShape<D>> {
  const text = await readBodyText(request, BODY_LIMITS.small);
  if (!text.trim()) return fromJsonString(schema, "{}");
  try {
    return fromJsonString(schema, text);
  } catch (e) {
    throw new BodyDecodeError((e as Error).message, { cause: e });
  }
}

/** The v1.2 bidder's deposit calls over HTTP (upstream-head-delta §1.1): routes and query/body forms of upstream. */
export function perProviderDepositRoutes(deposits: PerProviderDeposits) {
  return new Elysia({ name: "bidder-deposits-v1.2" })
    .post(
      "/v1/bidder/deposit/:amount",
      async ({ params, request }) =>
        messageResponse(
          pb.DepositResponseSchema,
          await deposits.deposit({
            amount: params.amount,
            provider: queryString(queryOf(request), "provider", "provider"),
          }),
        ),
      {
        parse: "none",
        detail: {
          tags,
          summary: "Deposit",
          description: "Deposits the amount toward one provider; answers this deposit's amount (not the new total).",
          parameters: [pathParam("amount", "wei", Wire.wei), providerParam],
          responses: unaryResponses(ProviderDeposit),
        },
      },
    )
    .post(
      "/v1/bidder/deposit_evenly",
      async ({ request }) => {
        const q = queryOf(request);
        return messageResponse(
          pb.DepositEvenlyResponseSchema,
          await deposits.depositEvenly({
            totalAmount: queryString(q, "total_amount", "totalAmount"),
            providers: queryList(q, "providers"),
          }),
        );
      },
      {
        parse: "none",
        detail: {
          tags,
          summary: "DepositEvenly",
          description: "Splits total_amount evenly over the providers (the remainder to the last), in one transaction.",
          parameters: [queryParam("total_amount", "wei (also totalAmount)", Wire.wei), providersParam],
          responses: unaryResponses(ProvidersAmounts),
        },
      },
    )
    .post(
      "/v1/bidder/enable_deposit_manager",
      async () => messageResponse(pb.EnableDepositManagerResponseSchema, await deposits.enableDepositManager()),
      {
        parse: "none",
        detail: {
          tags,
          summary: "EnableDepositManager",
          description:
            "Delegates the bidder's account to the DepositManager with an EIP-7702 transaction. FailedPrecondition when already enabled.",
          responses: unaryResponses(DepositManagerSwitch),
        },
      },
    )
    .post(
      "/v1/bidder/disable_deposit_manager",
      async () => messageResponse(pb.DisableDepositManagerResponseSchema, await deposits.disableDepositManager()),
      {
        parse: "none",
        detail: {
          tags,
          summary: "DisableDepositManager",
          description: "Clears the account's delegation. FailedPrecondition when already disabled.",
          responses: unaryResponses(DepositManagerSwitch),
        },
      },
    )
    .post(
      "/v1/bidder/set_target_deposits",
      async ({ request }) =>
        messageResponse(
          pb.SetTargetDepositsResponseSchema,
          await deposits.setTargetDeposits(await bodyMessage(pb.SetTargetDepositsRequestSchema, request)),
        ),
      {
        parse: "none",
        detail: {
          tags,
          summary: "SetTargetDeposits",
          description:
            "Sets the deposit manager's target per provider, then tops each deposit up to its target from the account's balance. " +
            "FailedPrecondition when the deposit manager is not enabled.",
          requestBody: jsonBody(SetTargetDepositsRequest),
          responses: unaryResponses(SetTargetDepositsResponse),
        },
      },
    )
    .get(
      "/v1/bidder/deposit_manager_status",
      async () => messageResponse(pb.DepositManagerStatusResponseSchema, await deposits.depositManagerStatus()),
      { detail: { tags, summary: "DepositManagerStatus", responses: unaryResponses(DepositManagerStatus) } },
    )
    .post(
      "/v1/bidder/request_withdrawals",
      async ({ request }) =>
        messageResponse(
          pb.RequestWithdrawalsResponseSchema,
          await deposits.requestWithdrawals(await bodyMessage(pb.RequestWithdrawalsRequestSchema, request)),
        ),
      {
        parse: "none",
        detail: {
          tags,
          summary: "RequestWithdrawals",
          description:
            "Starts the withdrawal period of the deposit toward each provider; answers each available amount.",
          requestBody: jsonBody(ProvidersRequest),
          responses: unaryResponses(ProvidersAmounts),
        },
      },
    )
    .get(
      "/v1/bidder/get_valid_providers",
      async () => messageResponse(pb.GetValidProvidersResponseSchema, await deposits.getValidProviders()),
      { detail: { tags, summary: "GetValidProviders", responses: unaryResponses(ValidProviders) } },
    )
    .get(
      "/v1/bidder/get_deposit",
      async ({ request }) =>
        messageResponse(
          pb.DepositResponseSchema,
          await deposits.getDeposit({ provider: queryString(queryOf(request), "provider", "provider") }),
        ),
      {
        detail: {
          tags,
          summary: "GetDeposit",
          description: "The available deposit toward the provider (a pending withdrawal request does not lower it).",
          parameters: [providerParam],
          responses: unaryResponses(ProviderDeposit),
        },
      },
    )
    .get(
      "/v1/bidder/get_all_deposits",
      async () => messageResponse(pb.GetAllDepositsResponseSchema, await deposits.getAllDeposits()),
      { detail: { tags, summary: "GetAllDeposits", responses: unaryResponses(AllDeposits) } },
    )
    .post(
      "/v1/bidder/withdraw",
      async ({ request }) =>
        messageResponse(
          pb.WithdrawResponseSchema,
          await deposits.withdraw(await bodyMessage(pb.WithdrawRequestSchema, request)),
        ),
      {
        parse: "none",
        detail: {
          tags,
          summary: "Withdraw",
          description:
            "Withdraws the available deposit toward each provider whose withdrawal request is older than the withdrawal period.",
          requestBody: jsonBody(ProvidersRequest),
          responses: unaryResponses(WithdrawV12Response),
        },
      },
    );
}
