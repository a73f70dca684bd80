import { Elysia, t } from "elysia";
import { InvalidArgumentError } from "../protocol/grpcCodes.ts";
import { JsonSyntaxError, readFirstJsonValue } from "../protocol/jsonText.ts";
import { BodyDecodeError } from "../protocol/grpcCodes.ts";
import { decodeProtoJsonMessage } from "../protocol/protoJson.ts";
import type { Notifier } from "../notify/notifier.ts";
import { isTopic, TOPICS, type Topic } from "../notify/topics.ts";
import { ndjsonResponse } from "./wire/stream.ts";
import { streamErrorResponse, unaryErrorResponse } from "./wire/errors.ts";
import { jsonBody, streamResponses } from "./openapi.ts";

/** The topics of a Subscribe body; an unknown topic fails the whole call with `invalid topic: <name>`. */
export function parseTopics(text: string): Topic[] {
  let node;
  try {
    node = readFirstJsonValue(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw new BodyDecodeError(e.message);
    throw e;
  }
  if (!node) return [];
  const v = decodeProtoJsonMessage(node, [{ name: "topics", jsonName: "topics", kind: "string", repeated: true }], { text, base: node.start });
  const topics = (v.topics as string[] | undefined) ?? [];
  for (const t of topics) if (!isTopic(t)) throw new InvalidArgumentError(`invalid topic: ${t}`);
  return topics as Topic[];
}

/** Subscribe (interface.md §4.2): one `{"result":{"topic","value"}}` line per event until the client leaves. */
export function notificationRoutes(notifier: Notifier) {
  return new Elysia({ name: "notifications" }).post(
    "/v1/subscribe",
    async ({ request }) => {
      let topics: Topic[];
      try {
        topics = parseTopics(await request.text());
      } catch (e) {
        return e instanceof BodyDecodeError ? unaryErrorResponse(e) : streamErrorResponse(e);
      }
      const sub = notifier.subscribe(topics);
      return ndjsonResponse(sub.notifications(), () => sub.close());
    },
    {
      parse: "none",
      detail: {
        tags: ["Notifications"],
        summary: "Subscribe",
        description: `Streams the events of the given topics (${TOPICS.join(", ")}) until the client leaves. A subscriber that falls ${100} events behind is disconnected with ResourceExhausted.`,
        requestBody: jsonBody(t.Object({ topics: t.Array(t.String()) })),
        responses: streamResponses(t.Object({ topic: t.String(), value: t.Record(t.String(), t.Unknown()) }), "Notifications."),
      },
    },
  );
}
