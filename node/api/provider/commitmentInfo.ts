import { Elysia, t } from "elysia";
import type { ProviderService } from "../../services/providerService.ts";
import { CommitmentInfoResponseSchema } from "../../gen/proto/providerapi/v1/providerapi_pb.ts";
import { COMMITMENT_INFO_DEFAULT_LIMIT, MAX_PAGE_LIMIT, pageRequestFieldsOf } from "../../query/pageRequest.ts";
import { messageResponse } from "../wire/message.ts";
import { queryOf } from "../wire/request.ts";
import { queryParam, unaryResponses } from "../openapi.ts";

const U64 = (description: string) => t.String({ pattern: "^[0-9]+$", description });

const CommitmentInfo = t.Object({
  txnHashes: t.Array(t.String(), { description: "64 hex, no 0x" }),
  revertableTxnHashes: t.Array(t.String(), { description: "[] when the bid had none" }),
  amount: U64("bid amount, wei"),
  blockNumber: U64("target L1 block"),
  providerAddress: t.String({ description: "40 lower-case hex, no 0x" }),
  decayStartTimestamp: U64("Unix ms"),
  decayEndTimestamp: U64("Unix ms"),
  dispatchTimestamp: U64("Unix ms"),
  slashAmount: U64("wei"),
  status: t.String({ description: "pending, stored, opened, settled, slashed or failed" }),
  details: t.String(),
  payment: t.String(),
  refund: t.String(),
});

export const CommitmentInfoResponse = t.Object({
  commitments: t.Array(t.Object({ blockNumber: U64("L1 block"), commitments: t.Array(CommitmentInfo) })),
});

/** GetCommitmentInfo (interface.md §4.5): this provider's commitments by block (ascending), highest bid first. */
export function providerCommitmentInfoRoutes(provider: ProviderService) {
  return new Elysia({ name: "provider-commitment-info" }).get(
    "/v1/provider/get_commitment_info",
    ({ request }) => messageResponse(CommitmentInfoResponseSchema, provider.getCommitmentInfo(pageRequestFieldsOf(queryOf(request)))),
    {
      detail: {
        tags: ["Provider"],
        summary: "GetCommitmentInfo",
        description: "Commitments this provider made, grouped by L1 block (ascending), highest bid first inside a block.",
        parameters: [
          queryParam("block_number", "only this L1 block (exact match; also blockNumber); 0 or absent: every block", "integer"),
          queryParam("page", "page number, from 0 (default 0)", "integer"),
          queryParam("limit", `commitments per page, 0…${MAX_PAGE_LIMIT} (0 or absent: ${COMMITMENT_INFO_DEFAULT_LIMIT})`, "integer"),
        ],
        responses: unaryResponses(CommitmentInfoResponse),
      },
    },
  );
}
