/**
 * The bidder's operations that take input: the OpenAPI document refuses exactly the input the node refuses for its
 * form (InvalidArgument from decoding and validation), so that a client generated from the document sends nothing
 * the node rejects for its form. What only the node's state refuses (auto-deposit running, a window not closed, the
 * account's balance) is in the operations' descriptions, not here. The node's side is the validation the routes call.
 */
import { describe, expect, test } from "bun:test";
import Ajv from "ajv";
import { privateKeyToAccount } from "viem/accounts";
import { parseBidRequestText } from "../../protocol/bidValidation.ts";
import { UINT256_MAX } from "../../protocol/decimal.ts";
import {
  BLOCK_NUMBER_QUERY,
  parseWithdrawFromWindowsRequestText,
  validateDepositRequest,
  validateWithdrawRequest,
  WINDOW_NUMBER_QUERY,
} from "../../protocol/depositValidation.ts";
import { InvalidArgumentError } from "../../protocol/grpcCodes.ts";
import { parseQueryField, type QueryValues } from "../../protocol/queryParams.ts";
import { rulesOf } from "../../protocol/rules.ts";
import type { BidderService } from "../../services/bidderService.ts";
import { setLogSink } from "../../util/log.ts";
import { createNodeApp } from "../app.ts";
import { bidderBidRoutes } from "./bids.ts";
import { windowDepositRoutes } from "./windowDeposits.ts";

setLogSink(() => {});

// Only the document is read: no route is called.
const app = createNodeApp({
  rules: rulesOf("v1.1"),
  role: "bidder",
  address: "0x0000000000000000000000000000000000000001",
  plugins: [windowDepositRoutes({} as BidderService), bidderBidRoutes({} as BidderService, rulesOf("v1.1"))],
});
type Param = { name: string; in: string; schema: object };
type Operation = { parameters?: Param[]; requestBody?: { content: Record<string, { schema: object }> } };
const doc = (await (await app.handle(new Request("http://node/swagger/json"))).json()) as {
  paths: Record<string, Record<string, Operation>>;
};
const ajv = new Ajv({ strict: false });

/** A query value as the document's parameter schema sees it: a decimal is the number it spells. */
const queryValue = (v: string): unknown => (/^-?[0-9]+$/.test(v) ? Number(v) : v);

function documentAcceptsQuery(
  path: string,
  pathValues: Record<string, string>,
  query: Record<string, string>,
): boolean {
  const params = doc.paths[path]!.post!.parameters!;
  for (const name of Object.keys(query))
    if (!params.some((p) => p.in === "query" && p.name === name)) throw new Error(`${path} documents no ${name}`);
  return params.every((p) => {
    const value = p.in === "path" ? pathValues[p.name] : query[p.name];
    return value === undefined || ajv.validate(p.schema, p.in === "path" ? value : queryValue(value));
  });
}

function documentAcceptsBody(path: string, body: string): boolean {
  const schema = doc.paths[path]!.post!.requestBody!.content["application/json"]!.schema;
  return ajv.validate(schema, JSON.parse(body));
}

function nodeAccepts(check: () => unknown): boolean {
  try {
    check();
    return true;
  } catch (e) {
    if (e instanceof InvalidArgumentError) return false; // BodyDecodeError included
    throw e;
  }
}

const queryOf = (q: Record<string, string>): QueryValues =>
  Object.fromEntries(Object.entries(q).map(([k, v]) => [k, [v]]));

describe("POST /v1/bidder/auto_deposit/{amount} and deposit/{amount}", () => {
  const amounts = [
    "1",
    "10000000000000000000",
    UINT256_MAX.toString(),
    "0",
    "01",
    "-1",
    "1.5",
    "1e3",
    (UINT256_MAX + 1n).toString(),
  ];
  const queries: Record<string, string>[] = [
    {},
    { window_number: "1" },
    { window_number: "0" },
    { window_number: "-1" },
    { window_number: "abc" },
    { block_number: "7" },
    { block_number: "0" },
    { block_number: "2.5" },
    { window_number: "3", block_number: "9" },
  ];
  for (const [kind, route] of [
    ["autoDeposit", "auto_deposit"],
    ["deposit", "deposit"],
  ] as const) {
    const path = `/v1/bidder/${route}/{amount}`;
    const node = (amount: string, q: Record<string, string>) =>
      nodeAccepts(() =>
        validateDepositRequest(kind, {
          amount,
          windowNumber: parseQueryField(queryOf(q), WINDOW_NUMBER_QUERY) as bigint | undefined,
          blockNumber: parseQueryField(queryOf(q), BLOCK_NUMBER_QUERY) as bigint | undefined,
        }),
      );
    for (const amount of amounts)
      test(`${route}: amount ${amount.length > 20 ? `${amount.slice(0, 6)}… (${amount.length} digits)` : JSON.stringify(amount)}`, () => {
        expect(documentAcceptsQuery(path, { amount }, {})).toBe(node(amount, {}));
      });
    for (const q of queries)
      test(`${route}: query ${JSON.stringify(q)}`, () => {
        expect(documentAcceptsQuery(path, { amount: "5" }, q)).toBe(node("5", q));
      });
  }
});

describe("POST /v1/bidder/withdraw", () => {
  const queries: Record<string, string>[] = [
    {},
    { window_number: "1" },
    { window_number: "42" },
    { window_number: "0" },
    { window_number: "-3" },
    { window_number: "x" },
  ];
  for (const q of queries)
    test(`query ${JSON.stringify(q)}`, () => {
      const node = nodeAccepts(() =>
        validateWithdrawRequest(parseQueryField(queryOf(q), WINDOW_NUMBER_QUERY) as bigint | undefined),
      );
      expect(documentAcceptsQuery("/v1/bidder/withdraw", {}, q)).toBe(node);
    });
});

describe("POST /v1/bidder/withdraw_from_windows", () => {
  const bodies = [
    '{"window_numbers":[1]}',
    '{"window_numbers":[1,"2","3.0"]}',
    '{"window_numbers":["18446744073709551615"]}',
    "{}",
    '{"window_numbers":null}',
    '{"window_numbers":[]}',
    '{"window_numbers":[0]}',
    '{"window_numbers":["0"]}',
    '{"window_numbers":[1,"0.0"]}',
    '{"window_numbers":["1.5"]}',
    '{"window_numbers":["-1"]}',
    '{"window_numbers":["18446744073709551616"]}',
    '{"window_numbers":[" 1"]}',
    '{"window_numbers":1}',
  ];
  for (const body of bodies)
    test(body, () => {
      expect(documentAcceptsBody("/v1/bidder/withdraw_from_windows", body)).toBe(
        nodeAccepts(() => parseWithdrawFromWindowsRequestText(body)),
      );
    });
});

describe("POST /v1/bidder/bid", async () => {
  const hash = "ab".repeat(32);
  const raw = await privateKeyToAccount(`0x${"11".repeat(32)}`).signTransaction({
    chainId: 1,
    type: "eip1559",
    to: "0x0000000000000000000000000000000000000002",
    nonce: 0,
    gas: 21000n,
    maxFeePerGas: 1n,
    maxPriorityFeePerGas: 1n,
    value: 1n,
  });
  const base = {
    amount: "1000",
    blockNumber: 10,
    decayStartTimestamp: "1700000000000",
    decayEndTimestamp: 1700000060000,
  };
  const bids: Record<string, object> = {
    "by hash": { ...base, txHashes: [hash] },
    "by raw transaction": { ...base, rawTransactions: [raw] },
    "by raw transaction, txHashes empty": { ...base, txHashes: [], rawTransactions: [raw.slice(2)] },
    "by hash, rawTransactions null": { ...base, txHashes: [`0x${hash}`], rawTransactions: null },
    "every optional field": {
      ...base,
      txHashes: [hash],
      revertingTxHashes: [hash],
      slashAmount: "18446744073709551615",
    },
    "slashAmount empty": { ...base, txHashes: [hash], slashAmount: "" },
    "slashAmount with leading zeros": { ...base, txHashes: [hash], slashAmount: "007" },
    "numbers as decimal strings with a zero fraction": { ...base, txHashes: [hash], blockNumber: "10.0" },
    "amount 2^256-1": { ...base, txHashes: [hash], amount: UINT256_MAX.toString() },
    "neither txHashes nor rawTransactions": { ...base },
    "both txHashes and rawTransactions": { ...base, txHashes: [hash], rawTransactions: [raw] },
    "both empty": { ...base, txHashes: [], rawTransactions: [] },
    "a short hash": { ...base, txHashes: [hash.slice(2)] },
    "a raw transaction of odd length": { ...base, rawTransactions: [`${raw}0`] },
    "an empty raw transaction": { ...base, rawTransactions: [""] },
    "amount null": { ...base, txHashes: [hash], amount: null },
    "amount absent": { blockNumber: 10, decayStartTimestamp: 1, decayEndTimestamp: 2, txHashes: [hash] },
    "amount 0": { ...base, txHashes: [hash], amount: "0" },
    "amount 2^256": { ...base, txHashes: [hash], amount: (UINT256_MAX + 1n).toString() },
    "blockNumber 0": { ...base, txHashes: [hash], blockNumber: 0 },
    'blockNumber "0"': { ...base, txHashes: [hash], blockNumber: "0" },
    'blockNumber "-5"': { ...base, txHashes: [hash], blockNumber: "-5" },
    'blockNumber "1.5"': { ...base, txHashes: [hash], blockNumber: "1.5" },
    "blockNumber null": { ...base, txHashes: [hash], blockNumber: null },
    'decayStartTimestamp "9223372036854775808"': {
      ...base,
      txHashes: [hash],
      decayStartTimestamp: "9223372036854775808",
    },
    "decayEndTimestamp absent": { amount: "1", blockNumber: 1, decayStartTimestamp: 1, txHashes: [hash] },
    "slashAmount 2^64": { ...base, txHashes: [hash], slashAmount: "18446744073709551616" },
    "slashAmount negative": { ...base, txHashes: [hash], slashAmount: "-1" },
    "a short reverting hash": { ...base, txHashes: [hash], revertingTxHashes: ["ab"] },
  };
  for (const [what, bid] of Object.entries(bids))
    test(what, () => {
      const body = JSON.stringify(bid);
      expect(documentAcceptsBody("/v1/bidder/bid", body)).toBe(
        nodeAccepts(() => parseBidRequestText(body, rulesOf("v1.1"))),
      );
    });

  test("a raw transaction that is hex but no transaction: the one refusal the document can only describe", () => {
    const body = JSON.stringify({ ...base, rawTransactions: ["deadbeef"] });
    expect(documentAcceptsBody("/v1/bidder/bid", body)).toBe(true);
    expect(nodeAccepts(() => parseBidRequestText(body, rulesOf("v1.1")))).toBe(false);
    expect(JSON.stringify(doc.paths["/v1/bidder/bid"]!.post!.requestBody)).toContain("unmarshaling raw transaction");
  });
});
