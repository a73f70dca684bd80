import { t } from "elysia";
import { BidOptionsDoc, Wire } from "../openapi.ts";

const U64 = (description: string) => t.String({ pattern: "^[0-9]+$", description });

/** A bid as ReceiveBids streams it to the provider application (upstream providerapi `Bid`). */
export const ReceivedBid = t.Object({
  txHashes: t.Array(t.String(), { description: "transaction hashes, 64 lower-case hex, no 0x" }),
  bidAmount: U64("bid amount, wei"),
  amount: U64("the same amount, under the seed interface's name"),
  blockNumber: U64("target L1 block"),
  bidDigest: t.String({ description: "bid digest, standard base64 (echo it in SendProcessedBids)" }),
  decayStartTimestamp: U64("Unix ms"),
  decayEndTimestamp: U64("Unix ms"),
  revertingTxHashes: t.Array(t.String()),
  rawTransactions: t.Array(t.String(), {
    description: "raw signed transactions (hex, no 0x), in the order of txHashes",
  }),
  slashAmount: U64("wei, 0 when the bidder gave none"),
});

/** v1.2's received bid: fields 10 and 11 (upstream-head-delta §1.5). */
export const ReceivedBidV12 = t.Object({
  ...ReceivedBid.properties,
  slashAmount: U64("wei; the bid's amount when the bidder gave none"),
  bidOptions: t.Union([BidOptionsDoc, t.Null()], {
    description: "the bid's options of a kind this node knows; null when the bid has none",
  }),
  bidderAddress: t.String({
    pattern: "^0x[a-fA-F0-9]{40}$",
    description: "the bidder recovered from the bid signature, EIP-55 with 0x",
  }),
});

/**
 * A decision. The status is required (unset is 0, which the node refuses); the digest is not: without one the decision
 * names no bid, and a digest naming no bid is ignored.
 */
export const ProcessedBid = t.Object({
  bidDigest: t.Optional(
    t.String({
      pattern: "^[A-Za-z0-9+/_-]*={0,2}$",
      description: "base64 bid digest from ReceiveBids (also bid_digest)",
    }),
  ),
  status: t.Union([t.Literal("STATUS_ACCEPTED"), t.Literal("STATUS_REJECTED"), t.Literal(1), t.Literal(2)]),
  dispatchTimestamp: t.Optional(t.Unsafe(Wire.int64Json("Unix ms; also dispatch_timestamp or decayDispatchTimestamp"))),
});
