import { Elysia, t } from "elysia";
import * as pb from "../../gen/proto/providerapi/v1/providerapi_pb.ts";
import { BLS_KEY_PATTERN, BLS_SIGNATURE_PATTERN, stakeRequestFieldsOf } from "../../provider/stake/stakeRequest.ts";
import type { ProviderService } from "../../services/providerService.ts";
import { pathParam, repeatedQueryParam, unaryResponses, Wire } from "../openapi.ts";
import { messageResponse } from "../wire/message.ts";
import { queryOf } from "../wire/request.ts";

const U256 = (description: string) => t.String({ pattern: "^[0-9]+$", description });
const StakeResponse = t.Object({
  amount: U256("wei"),
  blsPublicKeys: t.Array(t.String({ pattern: "^[0-9a-f]{96}$" }), {
    description: "48-byte BLS public keys, lower-case hex without 0x",
  }),
});
const AmountResponse = t.Object({ amount: U256("wei") });
const tags = ["Provider stake"];

/** The provider's stake and reward operations (api-behaviour §7). */
export function providerStakeRoutes(provider: ProviderService) {
  return new Elysia({ name: "provider-stake" })
    .post(
      "/v1/provider/stake/:amount",
      async ({ params, request }) =>
        messageResponse(
          pb.StakeResponseSchema,
          await provider.stake(stakeRequestFieldsOf(params.amount, queryOf(request))),
        ),
      {
        parse: "none",
        detail: {
          tags,
          summary: "Stake",
          description:
            "Adds the amount to this provider's stake (ProviderRegistry.stake), or registers it with that stake when it is not " +
            "registered (which needs BLS keys and signatures); then adds each BLS key (addVerifiedBLSKey). Answers the amount " +
            "staked by this call and the keys added.",
          parameters: [
            pathParam("amount", "wei", Wire.wei),
            repeatedQueryParam(
              "bls_public_keys",
              "48-byte BLS public keys, hex with optional 0x, one parameter each (also blsPublicKeys)",
              {
                type: "string",
                pattern: BLS_KEY_PATTERN,
              },
            ),
            repeatedQueryParam(
              "bls_signatures",
              "96-byte BLS signatures of the provider address, one parameter each, in the order of the keys: at least one per key " +
                '(InvalidArgument "missing BLS signatures" otherwise; extra ones are ignored) (also blsSignatures)',
              { type: "string", pattern: BLS_SIGNATURE_PATTERN },
            ),
          ],
          responses: unaryResponses(StakeResponse),
        },
      },
    )
    .get("/v1/provider/get_stake", async () => messageResponse(pb.StakeResponseSchema, await provider.getStake()), {
      detail: {
        tags,
        summary: "GetStake",
        description: "This provider's stake and BLS keys in ProviderRegistry.",
        responses: unaryResponses(StakeResponse),
      },
    })
    .get(
      "/v1/provider/get_min_stake",
      async () => messageResponse(pb.StakeResponseSchema, await provider.getMinStake()),
      {
        detail: {
          tags,
          summary: "GetMinStake",
          description: "ProviderRegistry's minimum stake.",
          responses: unaryResponses(StakeResponse),
        },
      },
    )
    .post("/v1/provider/unstake", async () => messageResponse(pb.EmptyMessageSchema, await provider.unstake()), {
      parse: "none",
      detail: {
        tags,
        summary: "Unstake",
        description: "Requests withdrawal of the whole stake; it can be withdrawn after the withdrawal delay.",
        responses: unaryResponses(t.Object({})),
      },
    })
    .post(
      "/v1/provider/withdraw_stake",
      async () => messageResponse(pb.WithdrawalResponseSchema, await provider.withdrawStake()),
      {
        parse: "none",
        detail: {
          tags,
          summary: "WithdrawStake",
          description: "Withdraws the stake once the delay after unstake has passed.",
          responses: unaryResponses(AmountResponse),
        },
      },
    )
    .get(
      "/v1/provider/get_provider_reward",
      async () => messageResponse(pb.RewardResponseSchema, await provider.getProviderReward()),
      {
        detail: {
          tags,
          summary: "GetProviderReward",
          description: "Rewards BidderRegistry holds for this provider (providerAmount), in wei.",
          responses: unaryResponses(AmountResponse),
        },
      },
    )
    .post(
      "/v1/provider/withdraw_provider_reward",
      async () => messageResponse(pb.WithdrawalResponseSchema, await provider.withdrawProviderReward()),
      {
        parse: "none",
        detail: {
          tags,
          summary: "WithdrawProviderReward",
          description:
            'Withdraws the rewards BidderRegistry holds for this provider and answers the amount ("0", without a transaction, when there is nothing).',
          responses: unaryResponses(AmountResponse),
        },
      },
    );
}
