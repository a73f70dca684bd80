/**
 * A worker thread of a CryptoPool (cryptoPool.ts): runs the bid-path crypto of node/protocol for the requests it
 * gets and answers each with its result or its error's name and message.
 */

import { signBid, verifyBid } from "../protocol/bidSigning.ts";
import { sharedPoint } from "../protocol/bn254.ts";
import { signCommitment, verifyCommitment } from "../protocol/commitmentSigning.ts";
import { initCrypto } from "../protocol/initCrypto.ts";
import type { CryptoRequest, CryptoResponse } from "./cryptoPool.ts";

declare const self: Worker;

const ready = initCrypto();

function run(r: CryptoRequest): unknown {
  switch (r.op) {
    case "signBid":
      return signBid(r.args[0], r.args[1], r.args[2]);
    case "verifyBid":
      return verifyBid(r.args[0], r.args[1]);
    case "signCommitment": {
      // The signed bid stays with the caller: only what the worker made travels back.
      const { signedBid: _, ...made } = signCommitment(r.args[0]);
      return made;
    }
    case "verifyCommitment":
      return verifyCommitment(r.args[0]);
    case "sharedKey":
      return sharedPoint(r.args[0], r.args[1]);
  }
}

self.onmessage = async (e: MessageEvent<CryptoRequest>) => {
  await ready;
  let answer: CryptoResponse;
  try {
    answer = { id: e.data.id, ok: true, value: run(e.data) };
  } catch (err) {
    const { name, message } = err as Error;
    answer = { id: e.data.id, ok: false, error: { name, message } };
  }
  self.postMessage(answer);
};
