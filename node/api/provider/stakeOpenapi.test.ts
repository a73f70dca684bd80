/**
 * The provider's stake operations: the OpenAPI document refuses exactly the input the node refuses for a constraint
 * (InvalidArgument from the request's validation), so that a client generated from the document sends nothing the
 * node rejects for its form. Unstake and WithdrawStake take no input: the document declares none and the node reads
 * none (their refusals come from the registry's state).
 */
import { describe, expect, test } from "bun:test";
import { create } from "@bufbuild/protobuf";
import Ajv from "ajv";
import * as pb from "../../gen/proto/providerapi/v1/providerapi_pb.ts";
import { UINT256_MAX } from "../../protocol/decimal.ts";
import { InvalidArgumentError } from "../../protocol/grpcCodes.ts";
import { rulesOf } from "../../protocol/rules.ts";
import { stakeRequestFieldsOf, validateStakeRequest } from "../../provider/stake/stakeRequest.ts";
import type { ProviderService } from "../../services/providerService.ts";
import { setLogSink } from "../../util/log.ts";
import { createNodeApp } from "../app.ts";
import { providerStakeRoutes } from "./stake.ts";

setLogSink(() => {});

const calls: string[] = [];
// Only unstake and withdrawStake are ever called: the stake cases go to the validation function itself.
const service = {
  unstake: async () => {
    calls.push("unstake");
    return create(pb.EmptyMessageSchema);
  },
  withdrawStake: async () => {
    calls.push("withdrawStake");
    return create(pb.WithdrawalResponseSchema, { amount: "0" });
  },
} as unknown as ProviderService;
const app = createNodeApp({
  rules: rulesOf("v1.1"),
  role: "provider",
  address: "0x0000000000000000000000000000000000000001",
  plugins: [providerStakeRoutes(service)],
});
type Param = { name: string; in: string; schema: object };
type Operation = { parameters?: Param[]; requestBody?: unknown };
const doc = (await (await app.handle(new Request("http://node/swagger/json"))).json()) as {
  paths: Record<string, Record<string, Operation>>;
};
const ajv = new Ajv({ strict: false });

const KEY = "ab".repeat(48);
const SIG = "cd".repeat(96);

/** Whether the document's parameter schemas take the request (repeated query values as the array they make). */
function documentAccepts(amount: string, query: Record<string, string[]>): boolean {
  const params = doc.paths["/v1/provider/stake/{amount}"]!.post!.parameters!;
  return params.every((p) => {
    const value = p.in === "path" ? amount : query[p.name];
    return value === undefined || ajv.validate(p.schema, value);
  });
}

function nodeAccepts(amount: string, query: Record<string, string[]>): boolean {
  try {
    validateStakeRequest(stakeRequestFieldsOf(amount, query));
    return true;
  } catch (e) {
    if (e instanceof InvalidArgumentError) return false;
    throw e;
  }
}

describe("POST /v1/provider/stake/{amount}: the document's constraints are the node's", () => {
  const amounts = [
    "1",
    "20000000000000000000",
    UINT256_MAX.toString(),
    (UINT256_MAX - 1n).toString(),
    "9".repeat(77),
    "0",
    "01",
    "-1",
    "+1",
    "1.5",
    "1e3",
    " 1",
    "0x10",
    (UINT256_MAX + 1n).toString(),
    "9".repeat(78),
    "1".repeat(79),
  ];
  for (const amount of amounts)
    test(`amount ${amount.length > 20 ? `${amount.slice(0, 6)}… (${amount.length} digits)` : JSON.stringify(amount)}`, () => {
      expect(documentAccepts(amount, {})).toBe(nodeAccepts(amount, {}));
    });

  const keySets: Record<string, Record<string, string[]>> = {
    "one key and its signature": { bls_public_keys: [KEY], bls_signatures: [SIG] },
    "0x-prefixed, upper-case": { bls_public_keys: [`0x${KEY.toUpperCase()}`], bls_signatures: [`0x${SIG}`] },
    "two keys, two signatures": { bls_public_keys: [KEY, KEY], bls_signatures: [SIG, SIG] },
    "a short key": { bls_public_keys: [KEY.slice(2)], bls_signatures: [SIG] },
    "a key that is not hex": { bls_public_keys: [`zz${KEY.slice(2)}`], bls_signatures: [SIG] },
    "a good key and a bad one": { bls_public_keys: [KEY, "00"], bls_signatures: [SIG, SIG] },
    "a long signature": { bls_public_keys: [KEY], bls_signatures: [`${SIG}00`] },
    "0x alone": { bls_public_keys: ["0x"], bls_signatures: [SIG] },
    "an empty key": { bls_public_keys: [""] },
  };
  for (const [what, query] of Object.entries(keySets))
    test(`BLS keys and signatures: ${what}`, () => {
      expect(documentAccepts("1", query)).toBe(nodeAccepts("1", query));
    });
});

describe("unstake and withdraw_stake take no input", () => {
  for (const [path, call] of [
    ["/v1/provider/unstake", "unstake"],
    ["/v1/provider/withdraw_stake", "withdrawStake"],
  ] as const)
    test(`${path}: no parameter or body in the document, and the node reads none`, async () => {
      const op = doc.paths[path]!.post!;
      expect(op.parameters ?? []).toEqual([]);
      expect(op.requestBody).toBeUndefined();
      calls.length = 0;
      const res = await app.handle(
        new Request(`http://node${path}?amount=-1&x=%00`, {
          method: "POST",
          body: "not json",
          headers: { "content-type": "application/json" },
        }),
      );
      expect(res.status).toBe(200);
      expect(calls).toEqual([call]);
    });
});
