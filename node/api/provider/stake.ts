import { Elysia, t } from "elysia";
import type { ProviderStakeService, StakeInfo } from "../../provider/stake/stakeService.ts";
import { parseStakeRequest } from "../../provider/stake/stakeRequest.ts";
import { unaryResponse } from "../wire/errors.ts";
import { queryOf } from "../wire/request.ts";
import { pathParam, queryParam, unaryResponses } from "../openapi.ts";

const U256 = (description: string) => t.String({ pattern: "^[0-9]+$", description });
const StakeResponse = t.Object({
  amount: U256("wei"),
  blsPublicKeys: t.Array(t.String({ pattern: "^[0-9a-f]{96}$" }), { description: "48-byte BLS public keys, lower-case hex without 0x" }),
});
const AmountResponse = t.Object({ amount: U256("wei") });
const tags = ["Provider stake"];

/** BLS keys as upstream answers them (Go hex.EncodeToString: lower-case, no 0x). */
const keyHex = (k: string) => (k.startsWith("0x") ? k.slice(2) : k).toLowerCase();
const stakeJson = (s: StakeInfo) => ({ amount: s.amount.toString(), blsPublicKeys: s.blsPublicKeys.map(keyHex) });

/** The provider's stake and reward operations (api-behaviour §7). */
export function providerStakeRoutes(stake: ProviderStakeService) {
  return new Elysia({ name: "provider-stake" })
    .post(
      "/v1/provider/stake/:amount",
      async ({ params, request }) => unaryResponse(stakeJson(await stake.stake(parseStakeRequest(params.amount, queryOf(request))))),
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
            pathParam("amount", "wei", "^[1-9][0-9]*$"),
            queryParam("bls_public_keys", "48-byte BLS public key, hex with optional 0x; repeat for several (also blsPublicKeys)"),
            queryParam("bls_signatures", "96-byte BLS signature of the provider address for the key at the same position (also blsSignatures)"),
          ],
          responses: unaryResponses(StakeResponse),
        },
      },
    )
    .get("/v1/provider/get_stake", async () => unaryResponse(stakeJson(await stake.getStake())), {
      detail: { tags, summary: "GetStake", description: "This provider's stake and BLS keys in ProviderRegistry.", responses: unaryResponses(StakeResponse) },
    })
    .get("/v1/provider/get_min_stake", async () => unaryResponse(stakeJson({ amount: await stake.getMinStake(), blsPublicKeys: [] })), {
      detail: { tags, summary: "GetMinStake", description: "ProviderRegistry's minimum stake.", responses: unaryResponses(StakeResponse) },
    })
    .post(
      "/v1/provider/unstake",
      async () => {
        await stake.unstake();
        return unaryResponse({});
      },
      {
        parse: "none",
        detail: { tags, summary: "Unstake", description: "Requests withdrawal of the whole stake; it can be withdrawn after the withdrawal delay.", responses: unaryResponses(t.Object({})) },
      },
    )
    .post("/v1/provider/withdraw_stake", async () => unaryResponse({ amount: (await stake.withdrawStake()).toString() }), {
      parse: "none",
      detail: { tags, summary: "WithdrawStake", description: "Withdraws the stake once the delay after unstake has passed.", responses: unaryResponses(AmountResponse) },
    })
    .get("/v1/provider/get_provider_reward", async () => unaryResponse({ amount: (await stake.getReward()).toString() }), {
      detail: { tags, summary: "GetProviderReward", description: "Rewards BidderRegistry holds for this provider (providerAmount), in wei.", responses: unaryResponses(AmountResponse) },
    })
    .post("/v1/provider/withdraw_provider_reward", async () => unaryResponse({ amount: (await stake.withdrawReward()).toString() }), {
      parse: "none",
      detail: {
        tags,
        summary: "WithdrawProviderReward",
        description: "Withdraws the rewards BidderRegistry holds for this provider and answers the amount (\"0\", without a transaction, when there is nothing).",
        responses: unaryResponses(AmountResponse),
      },
    });
}
