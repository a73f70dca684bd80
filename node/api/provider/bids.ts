import { Elysia } from "elysia";
import type { BidDispatcher } from "../../provider/bids/bidDispatcher.ts";
import { parseProcessedBidNode } from "../../protocol/processedBid.ts";
import { JsonSyntaxError, readJsonValue } from "../../protocol/jsonText.ts";
import { BodyDecodeError, InvalidArgumentError, RpcError } from "../../protocol/grpcCodes.ts";
import { strip0x } from "../../protocol/bytes.ts";
import type { SignedBid } from "../../protocol/types.ts";
import { ndjsonResponse } from "../wire/stream.ts";
import { unaryResponse } from "../wire/errors.ts";
import { jsonBody, streamResponses, unaryResponses } from "../openapi.ts";
import { t } from "elysia";
import { ProcessedBid, ReceivedBid } from "./schemas.ts";

const tags = ["Provider"];

/** The ReceiveBids wire form of a signed bid (api-behaviour §1.7). */
export function receivedBidJson(b: SignedBid) {
  const amount = b.bid.amount.toString();
  return {
    txHashes: [...b.bid.txHashes],
    bidAmount: amount,
    amount,
    blockNumber: b.bid.blockNumber.toString(),
    bidDigest: Buffer.from(b.digest).toString("base64"),
    decayStartTimestamp: b.bid.decayStartTimestamp.toString(),
    decayEndTimestamp: b.bid.decayEndTimestamp.toString(),
    revertingTxHashes: [...b.bid.revertingTxHashes],
    rawTransactions: b.bid.rawTransactions.map((r) => strip0x(r).toLowerCase()),
    slashAmount: b.bid.slashAmount.toString(),
  };
}

/**
 * Reads a SendProcessedBids body as a stream of JSON objects and hands each decision over as soon as it is
 * complete, so one long-lived request can carry every decision of a session. Stops at the first bad object.
 */
async function applyDecisions(request: Request, apply: (n: ReturnType<typeof parseProcessedBidNode>) => void): Promise<void> {
  const decoder = new TextDecoder();
  let text = "";
  let pos = 0;
  let done = false;
  const reader = request.body?.getReader();
  for (;;) {
    while (pos < text.length && " \t\r\n".includes(text[pos]!)) pos++;
    if (pos < text.length) {
      let node;
      try {
        node = readJsonValue(text, pos);
      } catch (e) {
        if (!(e instanceof JsonSyntaxError)) throw e;
        if (!done && e.offset >= text.length) {
          // An object cut by a chunk boundary: read on.
        } else throw new BodyDecodeError(e.message);
      }
      if (node) {
        let decision;
        try {
          decision = parseProcessedBidNode(node, { text, base: node.start });
        } catch (e) {
          // Upstream ends the gRPC stream with Unknown (HTTP 500); a bad decision is the caller's error: 400.
          if (e instanceof RpcError) throw new InvalidArgumentError(e.message);
          throw e;
        }
        apply(decision);
        pos = node.end;
        continue;
      }
    }
    if (done || !reader) return;
    const chunk = await reader.read();
    if (chunk.done) {
      done = true;
      text += decoder.decode();
    } else {
      text = text.slice(pos) + decoder.decode(chunk.value, { stream: true });
      pos = 0;
    }
  }
}

/** The provider application's operations: ReceiveBids and SendProcessedBids (interface.md §4.4, §4.7). */
export function providerBidRoutes(dispatcher: BidDispatcher) {
  return new Elysia({ name: "provider-bids" })
    .get(
      "/v1/provider/receive_bids",
      () => {
        const receiver = dispatcher.open();
        async function* lines() {
          for await (const bid of receiver.bids()) yield receivedBidJson(bid);
        }
        return ndjsonResponse(lines(), () => dispatcher.close(receiver));
      },
      {
        detail: {
          tags,
          summary: "ReceiveBids",
          description: "Streams every bid this node receives to one connected receiver (several receivers share the bids, each bid to exactly one). The stream stays open until the client leaves.",
          responses: streamResponses(ReceivedBid, "Bids for the provider application to decide on."),
        },
      },
    )
    .post(
      "/v1/provider/send_processed_bids",
      async ({ request }) => {
        await applyDecisions(request, (d) => dispatcher.decide(d));
        return unaryResponse({});
      },
      {
        parse: "none",
        detail: {
          tags,
          summary: "SendProcessedBids",
          description:
            "One decision object, or a sequence of them (NDJSON or concatenated), each applied as soon as it is read. Unknown or late digests are ignored. Answers {} (upstream answers 500 \"EOF\"; see docs/divergences.md).",
          requestBody: jsonBody(ProcessedBid),
          responses: unaryResponses(t.Object({})),
        },
      },
    );
}
