import { Elysia, t } from "elysia";
import { CommitmentSchema as CommitmentPb } from "../../gen/proto/bidderapi/v1/bidderapi_pb.ts";
import { bidOptionsToJson, decodeBidOptions } from "../../protocol/bidOptions.ts";
import { type BidRequest, decodeBidRequestText } from "../../protocol/bidValidation.ts";
import type { ProtocolRules } from "../../protocol/rules.ts";
import type { BidderService } from "../../services/bidderService.ts";
import { BidOptionsDoc, jsonBody, optionalDecimalAtMostPattern, streamResponses, Wire } from "../openapi.ts";
import { streamStartErrorResponse } from "../wire/errors.ts";
import { BODY_LIMITS, readBodyText } from "../wire/limits.ts";
import { messageJson } from "../wire/message.ts";
import { ndjsonResponse } from "../wire/stream.ts";

const U64 = (description: string) => t.String({ pattern: "^[0-9]+$", description });
const Hash = t.String({ pattern: "^(0x)?[a-fA-F0-9]{64}$" });
/** A signed transaction's bytes in hex (even length; the node decodes it as a transaction, which no pattern can say). */
const RawTransaction = t.String({ pattern: "^(0x)?([a-fA-F0-9]{2})+$" });

const bidFields = {
  amount: t.String({ ...Wire.wei, description: "wei paid to the provider, 1 to 2^256-1" }),
  blockNumber: t.Unsafe(Wire.positiveInt64("target L1 block (also block_number)")),
  decayStartTimestamp: t.Unsafe(Wire.positiveInt64("Unix ms (also decay_start_timestamp)")),
  decayEndTimestamp: t.Unsafe(Wire.positiveInt64("Unix ms (also decay_end_timestamp)")),
  revertingTxHashes: t.Optional(t.Array(Hash, { description: "hashes allowed to revert (also reverting_tx_hashes)" })),
  slashAmount: t.Optional(
    t.String({
      pattern: optionalDecimalAtMostPattern(2n ** 64n - 1n),
      description: "extra wei slashed on failure, 0 to 2^64-1; empty: 0 (also slash_amount)",
    }),
  ),
};

/**
 * A bid names its transactions one way: by hash (txHashes) or as signed raw transactions (rawTransactions), never
 * both ("empty bid" and "both txHashes and rawTransactions are provided" otherwise), hence two disjoint forms. v1.2
 * adds `bidOptions`.
 */
function bidRequestSchema(withOptions: boolean) {
  const fields = {
    ...bidFields,
    ...(withOptions ? { bidOptions: t.Optional(t.Union([BidOptionsDoc, t.Null()])) } : {}),
  };
  return t.Union(
    [
      t.Object(
        {
          txHashes: t.Array(Hash, { minItems: 1, description: "hashes of the transactions (also tx_hashes)" }),
          rawTransactions: t.Optional(
            t.Array(RawTransaction, { maxItems: 0, description: "absent or empty when txHashes is given" }),
          ),
          ...fields,
        },
        { title: "BidByTxHashes" },
      ),
      t.Object(
        {
          txHashes: t.Optional(
            t.Array(Hash, { maxItems: 0, description: "absent or empty when rawTransactions is given" }),
          ),
          rawTransactions: t.Array(RawTransaction, {
            minItems: 1,
            description:
              "signed transactions, hex (also raw_transactions); each must decode as a transaction (InvalidArgument " +
              '"decoding raw transaction: …" or "unmarshaling raw transaction: …" otherwise)',
          }),
          ...fields,
        },
        { title: "BidByRawTransactions" },
      ),
    ],
    { description: "A bid: exactly one of txHashes and rawTransactions non-empty; the other absent, null or empty." },
  );
}

export const BidRequestSchema = bidRequestSchema(false);
export const BidRequestSchemaV12 = bidRequestSchema(true);

export const CommitmentSchema = t.Object({
  txHashes: t.Array(t.String()),
  bidAmount: U64("wei"),
  blockNumber: U64("target L1 block"),
  receivedBidDigest: t.String({ description: "hex, no 0x" }),
  receivedBidSignature: t.String({ description: "hex, no 0x, v = 27/28" }),
  commitmentDigest: t.String({ description: "hex, no 0x" }),
  commitmentSignature: t.String({ description: "hex, no 0x, v = 27/28" }),
  providerAddress: t.String({ description: "40 lower-case hex, no 0x" }),
  decayStartTimestamp: U64("Unix ms"),
  decayEndTimestamp: U64("Unix ms"),
  dispatchTimestamp: U64("Unix ms, chosen by the provider"),
  revertingTxHashes: t.Array(t.String()),
  slashAmount: U64("wei"),
});

/** v1.2's Commitment: field 14 echoes the request's bidOptions, null when it had none. */
export const CommitmentSchemaV12 = t.Object({
  ...CommitmentSchema.properties,
  bidOptions: t.Union([BidOptionsDoc, t.Null()], { description: "the request's bidOptions, or null" }),
});

/** v1.2: each commitment echoes the request's BidOptions (field 14), or null when the request had none. */
function bidOptionsEcho(req: BidRequest): unknown {
  return req.bidOptions === undefined ? null : bidOptionsToJson(decodeBidOptions(req.bidOptions));
}

/**
 * SendBid (interface.md §4.1): one commitment line per accepting provider, in arrival order. In v1.2 the request
 * takes `bidOptions` and each commitment carries it back.
 */
export function bidderBidRoutes(bidder: BidderService, rules: ProtocolRules) {
  const withOptions = rules.bidOptions;
  return new Elysia({ name: "bidder-bids" }).post(
    "/v1/bidder/bid",
    async ({ request }) => {
      const ctrl = new AbortController();
      let commitments;
      let echo: unknown = null;
      try {
        const req = decodeBidRequestText(await readBodyText(request, BODY_LIMITS.bid), rules);
        if (withOptions) echo = bidOptionsEcho(req);
        commitments = bidder.sendBid(req, ctrl.signal);
      } catch (e) {
        return streamStartErrorResponse(e);
      }
      async function* lines() {
        for await (const c of commitments!) {
          const json = messageJson(CommitmentPb, c);
          yield withOptions ? { ...(json as Record<string, unknown>), bidOptions: echo } : json;
        }
      }
      return ndjsonResponse(lines(), () => ctrl.abort());
    },
    {
      parse: "none",
      detail: {
        tags: ["Bidder"],
        summary: "SendBid",
        description:
          "Signs the bid and sends it to every connected provider. Each provider that accepts answers with a signed commitment, streamed as one line; the stream ends when every provider has answered, failed or timed out.",
        requestBody: jsonBody(withOptions ? BidRequestSchemaV12 : BidRequestSchema),
        responses: streamResponses(
          withOptions ? CommitmentSchemaV12 : CommitmentSchema,
          "Commitments of the providers that accepted.",
        ),
      },
    },
  );
}
