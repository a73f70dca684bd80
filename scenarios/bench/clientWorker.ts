/**
 * The benchmark's bidder client on a thread of its own (clientThread.ts starts it): a real client is another
 * program, so its reads must not wait for the nodes' work on the devnet's thread. Sends each bid body it is given
 * over HTTP or gRPC and answers the result, its times on the devnet thread's clock.
 */
import { type BidResult, grpcBidSender, sendBid } from "./common.ts";

declare const self: Worker;

export type ClientRequest =
  | { init: { transport: "http" | "grpc"; url: string } }
  | { id: number; body: string }
  | { close: true };

let send: ((body: string) => Promise<BidResult>) | undefined;
let close = () => {};

self.onmessage = async (e: MessageEvent<ClientRequest & { origin?: number }>) => {
  const m = e.data;
  if ("init" in m) {
    if (m.init.transport === "grpc") ({ send, close } = grpcBidSender(m.init.url));
    else send = (body) => sendBid(m.init.url, body);
    self.postMessage({ ready: true, origin: performance.timeOrigin });
  } else if ("close" in m) {
    close();
    self.postMessage({ closed: true });
  } else {
    const result = await send!(m.body);
    self.postMessage({ id: m.id, result });
  }
};
