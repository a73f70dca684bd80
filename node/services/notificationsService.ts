/** notificationsapi.v1.Notifications, written once for every transport (HTTP: node/api, gRPC: node/grpc). */
import { create, type JsonObject } from "@bufbuild/protobuf";
import * as pb from "../gen/proto/notificationsapi/v1/notifications_pb.ts";
import type { Notifier } from "../notify/notifier.ts";
import { validateTopics } from "../notify/topics.ts";
import type { ProtocolRules } from "../protocol/rules.ts";

/** One open Subscribe stream: its notifications, and `close` for when the client leaves. */
export interface NotificationStream {
  notifications: AsyncIterable<pb.Notification>;
  close(): void;
}

export class NotificationsService {
  constructor(
    private readonly notifier: Notifier,
    /** The rules of the node's protocol version: which topics a client may subscribe to. */
    readonly rules: ProtocolRules,
  ) {}

  /**
   * Subscribe (interface.md §4.2): a topic unknown to the node's version fails the call before the stream starts; then one
   * notification per event until the client leaves (or falls too far behind: ResourceExhausted).
   */
  subscribe(req: { topics: readonly string[] }): NotificationStream {
    const sub = this.notifier.subscribe(validateTopics(req.topics, this.rules));
    return {
      notifications: (async function* () {
        for await (const n of sub.notifications())
          yield create(pb.NotificationSchema, { topic: n.topic, value: n.value as JsonObject });
      })(),
      close: () => sub.close(),
    };
  }
}
