import { Elysia, t } from "elysia";
import { NotificationSchema } from "../gen/proto/notificationsapi/v1/notifications_pb.ts";
import { topicsOf } from "../notify/topics.ts";
import { BodyDecodeError } from "../protocol/grpcCodes.ts";
import { JsonSyntaxError, readFirstJsonValue } from "../protocol/jsonText.ts";
import { decodeProtoJsonMessage } from "../protocol/protoJson.ts";
import type { NotificationsService } from "../services/notificationsService.ts";
import { jsonBody, streamResponses } from "./openapi.ts";
import { streamStartErrorResponse } from "./wire/errors.ts";
import { BODY_LIMITS, readBodyText } from "./wire/limits.ts";
import { messageJson } from "./wire/message.ts";
import { ndjsonResponse } from "./wire/stream.ts";

/** The topics of a Subscribe body, decoded (the service checks them). */
export function decodeTopics(text: string): string[] {
  let node;
  try {
    node = readFirstJsonValue(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw new BodyDecodeError(e.message);
    throw e;
  }
  if (!node) return [];
  const v = decodeProtoJsonMessage(node, [{ name: "topics", jsonName: "topics", kind: "string", repeated: true }], {
    text,
    base: node.start,
  });
  return (v.topics as string[] | undefined) ?? [];
}

/** Subscribe (interface.md §4.2): one `{"result":{"topic","value"}}` line per event until the client leaves. */
export function notificationRoutes(notifications: NotificationsService) {
  const topics = topicsOf(notifications.rules);
  return new Elysia({ name: "notifications" }).post(
    "/v1/subscribe",
    async ({ request }) => {
      let stream;
      try {
        stream = notifications.subscribe({ topics: decodeTopics(await readBodyText(request, BODY_LIMITS.small)) });
      } catch (e) {
        return streamStartErrorResponse(e);
      }
      async function* lines() {
        for await (const n of stream!.notifications) yield messageJson(NotificationSchema, n);
      }
      return ndjsonResponse(lines(), () => stream!.close());
    },
    {
      parse: "none",
      detail: {
        tags: ["Notifications"],
        summary: "Subscribe",
        description: `Streams the events of the given topics (${topics.join(", ")}) until the client leaves. A subscriber that falls ${100} events behind is disconnected with ResourceExhausted.`,
        requestBody: jsonBody(t.Object({ topics: t.Array(t.Union(topics.map((name) => t.Literal(name)))) })),
        responses: streamResponses(
          t.Object({ topic: t.String(), value: t.Record(t.String(), t.Unknown()) }),
          "Notifications.",
        ),
      },
    },
  );
}
