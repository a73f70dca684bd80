import { Elysia, t } from "elysia";
import { GetValidatorsResponseSchema } from "../gen/proto/validatorapi/v1/validatorapi_pb.ts";
import { parseQueryField, type QueryFieldSpec } from "../protocol/queryParams.ts";
import type { ValidatorApiService } from "../services/validatorApiService.ts";
import { queryParam, unaryResponses, Wire } from "./openapi.ts";
import { messageResponse } from "./wire/message.ts";
import { queryOf } from "./wire/request.ts";

/** `GetValidatorsRequest.epoch` (uint64): `?epoch=` or its JSON name, which is the same. */
export const EPOCH_QUERY: QueryFieldSpec = { name: "epoch", jsonName: "epoch", kind: "uint64" };

const SlotInfoSchema = t.Object({
  BLSKey: t.String({ description: "proposer's BLS public key, 0x-prefixed hex (48 bytes)" }),
  isOptedIn: t.Boolean({ description: "the key is opted in (vanilla, AVS or middleware)" }),
});
const GetValidatorsResponse = t.Object({
  items: t.Record(t.String({ pattern: "^[0-9]+$", description: "slot number" }), SlotInfoSchema),
});

/**
 * The validator API (api-behaviour §7), served by every node: GET /v1/validator/get_validators?epoch=N.
 * `epoch` absent or 0 means the current epoch (a proto3 uint64 cannot tell 0 from unset, as upstream).
 */
export function validatorRoutes(validators: ValidatorApiService) {
  return new Elysia({ name: "validator" }).get(
    "/v1/validator/get_validators",
    async ({ request }) => {
      const epoch = (parseQueryField(queryOf(request), EPOCH_QUERY) as bigint | undefined) ?? 0n;
      return messageResponse(GetValidatorsResponseSchema, await validators.getValidators({ epoch }));
    },
    {
      detail: {
        tags: ["Validator"],
        summary: "GetValidators",
        description:
          "The proposers of every slot of an epoch (simulated beacon schedule: slot N is L1 block N, 32 slots an epoch) and whether each is opted in " +
          "to mev-commit in the L1 validator registry. Epochs after the current one + 1 are refused (InvalidArgument), as a beacon node does.",
        parameters: [queryParam("epoch", "epoch number (uint64); absent or 0: the current epoch", Wire.uint(0))],
        responses: unaryResponses(GetValidatorsResponse),
      },
    },
  );
}
