import { Elysia, t } from "elysia";
import type { BidderService } from "../../services/bidderService.ts";
import { unaryResponses } from "../openapi.ts";
import { unaryResponse } from "../wire/errors.ts";

/** POST /v1/bidder/claim_slashed_funds: the reply is a bare JSON string (a google.protobuf.StringValue). */
export function bidderSlashedFundsRoutes(bidder: BidderService) {
  return new Elysia({ name: "bidder-slashed-funds" }).post(
    "/v1/bidder/claim_slashed_funds",
    async () => unaryResponse((await bidder.claimSlashedFunds()).value),
    {
      parse: "none",
      detail: {
        tags: ["Bidder"],
        summary: "ClaimSlashedFunds",
        description:
          'Withdraws the funds slashed providers owe this bidder and answers the amount in wei as a bare JSON string ("0" when there is nothing to claim).',
        responses: unaryResponses(t.String({ pattern: "^[0-9]+$", description: "wei claimed" })),
      },
    },
  );
}
