import { Elysia, t } from "elysia";
import { BodyDecodeError } from "../../protocol/grpcCodes.ts";
import { JsonSyntaxError, readJsonValue } from "../../protocol/jsonText.ts";
import { PROCESSED_BID_FIELDS, type ProcessedBidFields } from "../../protocol/processedBid.ts";
import { decodeProtoJsonMessage } from "../../protocol/protoJson.ts";
import type { ProtocolRules } from "../../protocol/rules.ts";
import { type ProviderService, receivedBidSchema } from "../../services/providerService.ts";
import { logger } from "../../util/log.ts";
import { jsonBody, streamResponses, unaryResponses } from "../openapi.ts";
import { unaryResponse } from "../wire/errors.ts";
import { BODY_LIMITS, jsonValuesOf } from "../wire/limits.ts";
import { messageJson } from "../wire/message.ts";
import { ndjsonResponse } from "../wire/stream.ts";
import { ProcessedBid, ReceivedBid, ReceivedBidV12 } from "./schemas.ts";

const tags = ["Provider"];
const log = logger("provider-api");

/**
 * Reads a SendProcessedBids body as a stream of JSON objects and yields each decision's fields as soon as the
 * object is complete, so one long-lived request can carry every decision of a session. Stops at the first object
 * that does not decode; an object above BODY_LIMITS.decision is 413.
 */
async function* decisionsOf(request: Request): AsyncGenerator<ProcessedBidFields> {
  for await (const text of jsonValuesOf(request, BODY_LIMITS.decision)) {
    let node;
    try {
      node = readJsonValue(text, 0);
    } catch (e) {
      if (e instanceof JsonSyntaxError) throw new BodyDecodeError(e.message);
      throw e;
    }
    const v = decodeProtoJsonMessage(node, PROCESSED_BID_FIELDS, { text, base: 0 });
    yield {
      bidDigest: (v.bid_digest as Uint8Array | undefined) ?? new Uint8Array(0),
      status: (v.status as number | undefined) ?? 0,
      dispatchTimestamp: (v.dispatch_timestamp as bigint | undefined) ?? 0n,
    };
  }
}

/**
 * The provider application's operations: ReceiveBids and SendProcessedBids (interface.md §4.4, §4.7). On v1.2 each
 * received bid also carries `bidOptions` (null when none) and `bidderAddress` (upstream-head-delta §1.5).
 */
export function providerBidRoutes(provider: ProviderService, rules: ProtocolRules) {
  const v12 = rules.bidOptions;
  const schema = receivedBidSchema(rules);
  return new Elysia({ name: "provider-bids" })
    .get(
      "/v1/provider/receive_bids",
      () => {
        const stream = provider.receiveBids();
        async function* lines() {
          for await (const bid of stream.bids) {
            // The seed interface's name for the amount, beside upstream's `bidAmount`.
            const json = messageJson(schema, bid as never) as Record<string, unknown>;
            // grpc-gateway emits an unset message field as null.
            if (v12) json.bidOptions ??= null;
            yield { ...json, amount: json.bidAmount };
          }
        }
        return ndjsonResponse(lines(), () => stream.close());
      },
      {
        detail: {
          tags,
          summary: "ReceiveBids",
          description:
            "Streams every bid this node receives to one connected receiver (several receivers share the bids, each bid to exactly one). The stream stays open until the client leaves.",
          responses: streamResponses(
            v12 ? ReceivedBidV12 : ReceivedBid,
            "Bids for the provider application to decide on.",
          ),
        },
      },
    )
    .post(
      "/v1/provider/send_processed_bids",
      async ({ request }) => {
        try {
          await provider.sendProcessedBids(decisionsOf(request));
        } catch (e) {
          // A streaming application that leaves (or a node that stops) mid-body ends its stream: the decisions read
          // so far are applied, nobody is left to answer, and nothing crashed.
          if (!request.signal.aborted) throw e;
          log.debug("send_processed_bids stream ended by its client", { error: (e as Error).message });
        }
        return unaryResponse({});
      },
      {
        parse: "none",
        detail: {
          tags,
          summary: "SendProcessedBids",
          description:
            'One decision object, or a sequence of them (NDJSON or concatenated), each applied as soon as it is read. Unknown or late digests are ignored. Answers {} (upstream answers 500 "EOF"; see docs/divergences.md).',
          requestBody: { ...jsonBody(ProcessedBid), required: false },
          responses: unaryResponses(t.Object({})),
        },
      },
    );
}
