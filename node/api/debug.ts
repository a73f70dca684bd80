import { Elysia, t } from "elysia";
import { TopologyResponseSchema } from "../gen/proto/debugapi/v1/debugapi_pb.ts";
import type { DebugService } from "../services/debugService.ts";
import { unaryResponses } from "./openapi.ts";
import { messageResponse } from "./wire/message.ts";

/** debugapi.v1.DebugService over HTTP: GET /v1/debug/topology. */
export function debugRoutes(debug: DebugService) {
  return new Elysia({ name: "debug" }).get(
    "/v1/debug/topology",
    () => messageResponse(TopologyResponseSchema, debug.getTopology()),
    {
      detail: {
        tags: ["Debug"],
        summary: "GetTopology",
        responses: unaryResponses(t.Object({ topology: t.Record(t.String(), t.Unknown()) })),
      },
    },
  );
}
