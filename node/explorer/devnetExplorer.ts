import type { EventPoller } from "../chain/eventPoller.ts";
import type { Notifier } from "../notify/notifier.ts";
import { TOPICS } from "../notify/topics.ts";
import type { BidOutcomes } from "./bidOutcomes.ts";
import { ChainView } from "./chainView.ts";
import { ExplorerHub, type NotificationFeed } from "./explorerHub.ts";
import { subscribeFeed } from "./targetExplorer.ts";

/** A node's notifications in this process, read through a subscription of its own while the page is open. */
export function notifierFeed(notifier: () => Notifier | undefined): NotificationFeed {
  return (on) => {
    const sub = notifier()?.subscribe(TOPICS);
    if (!sub) return () => {};
    void (async () => {
      try {
        for await (const n of sub.notifications()) on(n);
      } catch {
        // Cut off as a slow subscriber: the page shows what it had; a page opened later subscribes again.
      }
    })();
    return () => sub.close();
  };
}

/**
 * The reference devnet's explorer: the chain as the oracle's event follower reads it (its handlers are added before
 * the follower starts), each bid's outcomes as the devnet's bidders record them, the first bidder's notifications
 * (read in this process, or over the public API of a bidder in a process of its own: `bidderProcessUrl`).
 */
export function devnetExplorer(o: {
  events: EventPoller;
  bids: BidOutcomes | undefined;
  notifier: () => Notifier | undefined;
  bidderProcessUrl: () => string | undefined;
  info: () => Promise<Record<string, unknown>>;
}): ExplorerHub {
  const inProcess = notifierFeed(o.notifier);
  return new ExplorerHub({
    mode: "devnet",
    chain: new ChainView(o.events, o.bids),
    bids: o.bids,
    notifications: (on) => {
      const url = o.bidderProcessUrl();
      return url ? subscribeFeed(url)(on) : inProcess(on);
    },
    info: o.info,
  });
}
