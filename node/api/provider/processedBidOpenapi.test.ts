/**
 * SendProcessedBids: the OpenAPI document takes exactly the decisions the node takes (one decision object; the
 * node's refusals are a body that does not decode and a status other than accepted or rejected).
 */
import { describe, expect, test } from "bun:test";
import Ajv from "ajv";
import { RpcError } from "../../protocol/grpcCodes.ts";
import { readFirstJsonValue } from "../../protocol/jsonText.ts";
import { parseProcessedBidNode } from "../../protocol/processedBid.ts";
import { rulesOf } from "../../protocol/rules.ts";
import type { ProviderService } from "../../services/providerService.ts";
import { setLogSink } from "../../util/log.ts";
import { createNodeApp } from "../app.ts";
import { providerBidRoutes } from "./bids.ts";

setLogSink(() => {});

// Only the document is read: no route is called.
const app = createNodeApp({
  rules: rulesOf("v1.1"),
  role: "provider",
  address: "0x0000000000000000000000000000000000000001",
  plugins: [providerBidRoutes({} as ProviderService, rulesOf("v1.1"))],
});
const doc = (await (await app.handle(new Request("http://node/swagger/json"))).json()) as {
  paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: object }> } }>>;
};
const schema = doc.paths["/v1/provider/send_processed_bids"]!.post!.requestBody.content["application/json"]!.schema;
const ajv = new Ajv({ strict: false });

function nodeAccepts(body: string): boolean {
  try {
    parseProcessedBidNode(readFirstJsonValue(body)!, { text: body, base: 0 });
    return true;
  } catch (e) {
    if (e instanceof RpcError) return false;
    throw e;
  }
}

describe("POST /v1/provider/send_processed_bids: the document's constraints are the node's", () => {
  const digest = Buffer.alloc(32, 7).toString("base64");
  const bodies = [
    `{"bidDigest":"${digest}","status":"STATUS_ACCEPTED","dispatchTimestamp":"1700000000000"}`,
    `{"bidDigest":"${digest}","status":2}`,
    '{"status":1}',
    '{"bidDigest":null,"status":1,"dispatchTimestamp":"0"}',
    '{"status":1,"dispatchTimestamp":null}',
    `{"bidDigest":"${digest}"}`,
    '{"status":null}',
    '{"status":0}',
    '{"status":3}',
    '{"status":"STATUS_UNSPECIFIED"}',
    '{"status":1,"dispatchTimestamp":"1.5"}',
    '{"status":1,"dispatchTimestamp":"-5"}',
    '{"status":1,"dispatchTimestamp":"1000.0"}',
    '{"status":1,"dispatchTimestamp":"-9223372036854775808"}',
    '{"status":1,"dispatchTimestamp":"9223372036854775808"}',
    '{"status":1,"dispatchTimestamp":" 5"}',
  ];
  for (const body of bodies)
    test(body, () => {
      expect(ajv.validate(schema, JSON.parse(body))).toBe(nodeAccepts(body));
    });
});
