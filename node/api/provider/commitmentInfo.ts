import { Elysia, t } from "elysia";
import { CommitmentInfoResponseSchema } from "../../gen/proto/providerapi/v1/providerapi_pb.ts";
import type { ProtocolRules } from "../../protocol/rules.ts";
import { COMMITMENT_INFO_DEFAULT_LIMIT, MAX_PAGE_LIMIT, pageRequestFieldsOf } from "../../query/pageRequest.ts";
import type { ProviderService } from "../../services/providerService.ts";
import { pagingParams, unaryResponses } from "../openapi.ts";
import { unaryResponse } from "../wire/errors.ts";
import { messageJson } from "../wire/message.ts";
import { queryOf } from "../wire/request.ts";

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

/** v1.2 declares field 14 `bidOptions` on each commitment; upstream's v1.2.x handler never fills it. */
const CommitmentInfoResponseV12 = t.Object({
  commitments: t.Array(
    t.Object({
      blockNumber: U64("L1 block"),
      commitments: t.Array(
        t.Object({
          ...CommitmentInfo.properties,
          bidOptions: t.Null({ description: "declared by v1.2 and never filled by upstream's v1.2.x: always null" }),
        }),
      ),
    }),
  ),
});

type CommitmentInfoJson = { commitments: { commitments: Record<string, unknown>[] }[] };

/**
 * GetCommitmentInfo (interface.md §4.5): this provider's commitments by block (ascending), highest bid first. v1.2
 * adds `bidOptions` to each commitment, always null as upstream's v1.2.x.
 */
export function providerCommitmentInfoRoutes(provider: ProviderService, rules: ProtocolRules) {
  const withOptions = rules.bidOptions;
  return new Elysia({ name: "provider-commitment-info" }).get(
    "/v1/provider/get_commitment_info",
    ({ request }) => {
      const json = messageJson(
        CommitmentInfoResponseSchema,
        provider.getCommitmentInfo(pageRequestFieldsOf(queryOf(request))),
      );
      if (withOptions)
        for (const block of (json as CommitmentInfoJson).commitments)
          block.commitments = block.commitments.map((c) => ({ ...c, bidOptions: null }));
      return unaryResponse(json);
    },
    {
      detail: {
        tags: ["Provider"],
        summary: "GetCommitmentInfo",
        description:
          "Commitments this provider made, grouped by L1 block (ascending), highest bid first inside a block.",
        parameters: [...pagingParams(COMMITMENT_INFO_DEFAULT_LIMIT, MAX_PAGE_LIMIT)],
        responses: unaryResponses(withOptions ? CommitmentInfoResponseV12 : CommitmentInfoResponse),
      },
    },
  );
}
