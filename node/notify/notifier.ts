import { ResourceExhaustedError } from "./errors.ts";
import type { Topic } from "./topics.ts";

export interface Notification {
  topic: Topic;
  value: Record<string, unknown>;
}

/** Default per-subscriber buffer, as upstream's `--notifications-buffer-capacity`. */
export const DEFAULT_BUFFER = 100;

/**
 * One subscriber's queue. Publishing never waits: when a subscriber has `capacity` notifications it has not read,
 * it is too slow and is cut off (its stream ends with ResourceExhausted) rather than slowing the node down or
 * silently missing events.
 */
export class Subscription {
  private readonly queue: Notification[] = [];
  private wake: (() => void) | undefined;
  private overflowed = false;
  closed = false;

  constructor(
    readonly topics: ReadonlySet<Topic>,
    private readonly capacity: number,
    private readonly onClose: (s: Subscription) => void,
  ) {}

  offer(n: Notification): void {
    if (this.closed || !this.topics.has(n.topic)) return;
    if (this.queue.length >= this.capacity) {
      this.overflowed = true;
      this.close();
      return;
    }
    this.queue.push(n);
    this.wake?.();
  }

  async *notifications(): AsyncGenerator<Notification> {
    for (;;) {
      const n = this.queue.shift();
      if (n) {
        yield n;
        continue;
      }
      if (this.closed) {
        if (this.overflowed)
          throw new ResourceExhaustedError(
            `notification buffer full (${this.capacity}): the subscriber reads too slowly and was disconnected`,
          );
        return;
      }
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
    this.wake?.();
  }
}

/** A node's notification hub: sources publish, each Subscribe stream holds one subscription. */
export class Notifier {
  private readonly subs = new Set<Subscription>();

  constructor(private readonly capacity = DEFAULT_BUFFER) {}

  get subscriberCount(): number {
    return this.subs.size;
  }

  subscribe(topics: Iterable<Topic>): Subscription {
    const s = new Subscription(new Set(topics), this.capacity, (x) => this.subs.delete(x));
    this.subs.add(s);
    return s;
  }

  publish(topic: Topic, value: Record<string, unknown>): void {
    for (const s of [...this.subs]) s.offer({ topic, value });
  }
}
