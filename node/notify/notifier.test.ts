import { describe, expect, test } from "bun:test";
import { Notifier } from "./notifier.ts";

describe("notifier", () => {
  test("a subscriber receives only its topics, in order", async () => {
    const n = new Notifier();
    const s = n.subscribe(["peer_connected", "provider_slashed"]);
    n.publish("peer_connected", { a: 1 });
    n.publish("peer_disconnected", { a: 2 });
    n.publish("provider_slashed", { a: 3 });
    s.close();
    const got = [];
    for await (const x of s.notifications()) got.push(x);
    expect(got).toEqual([
      { topic: "peer_connected", value: { a: 1 } },
      { topic: "provider_slashed", value: { a: 3 } },
    ]);
  });

  test("every subscriber receives every event", async () => {
    const n = new Notifier();
    const a = n.subscribe(["peer_connected"]);
    const b = n.subscribe(["peer_connected"]);
    n.publish("peer_connected", { x: 1 });
    for (const s of [a, b]) {
      const it = s.notifications();
      expect((await it.next()).value).toEqual({ topic: "peer_connected", value: { x: 1 } });
    }
  });

  test("a subscriber that falls behind by the buffer size is cut off; publishing never blocks", async () => {
    const n = new Notifier(3);
    const slow = n.subscribe(["peer_connected"]);
    const fast = n.subscribe(["peer_connected"]);
    const fastIt = fast.notifications();
    for (let i = 0; i < 5; i++) {
      n.publish("peer_connected", { i });
      expect((await fastIt.next()).value).toEqual({ topic: "peer_connected", value: { i } });
    }
    expect(n.subscriberCount).toBe(1);
    const got: unknown[] = [];
    let error: Error | undefined;
    try {
      for await (const x of slow.notifications()) got.push(x);
    } catch (e) {
      error = e as Error;
    }
    expect(got.length).toBe(3);
    expect(error?.message).toContain("notification buffer full (3)");
  });

  test("closing a subscription removes it", () => {
    const n = new Notifier();
    const s = n.subscribe(["peer_connected"]);
    expect(n.subscriberCount).toBe(1);
    s.close();
    expect(n.subscriberCount).toBe(0);
  });
});
