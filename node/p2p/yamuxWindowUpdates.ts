/**
 * Yamux window updates sent the way go-yamux (upstream's muxer) sends them: only once the bytes read since the last
 * update reach half the receive window, or when the update carries a flag (SYN, ACK). js-yamux sends one after
 * every data frame it reads, however small: of the 17 frames a bid's stream cost, 6 were window updates, each
 * encrypted by Noise and written to the socket on its own. The peer's send window still never runs dry: it starts at
 * 256 KiB and is topped up before half of it is used, as between two upstream nodes.
 *
 * js-yamux builds its streams itself, so the rule is set on its stream class, once for the process.
 */
import { YamuxStream } from "@chainsafe/libp2p-yamux/stream";

/** The states of js-yamux's StreamState in which a window update carries no flag. */
const ESTABLISHED = 3;
const FINISHED = 4;

interface WindowState {
  state: number;
  recvWindow: number;
  recvWindowCapacity: number;
}

const proto = YamuxStream.prototype as unknown as { sendWindowUpdate(this: WindowState): void };
const sendWindowUpdate = proto.sendWindowUpdate;
if (typeof sendWindowUpdate !== "function") throw new Error("js-yamux's YamuxStream has no sendWindowUpdate");

proto.sendWindowUpdate = function (this: WindowState) {
  const flagless = this.state === ESTABLISHED || this.state === FINISHED;
  if (flagless && this.recvWindow - this.recvWindowCapacity < this.recvWindow / 2) return;
  sendWindowUpdate.call(this);
};
