/**
 * The suite's gRPC client without a node: the descriptor sets are what `npm run proto` makes of proto/ and proto/v1.2,
 * each protocol version's services come from its own, messages take and give the gateway's JSON mapping, and gateway
 * routes map to the calls they stand for (or to none).
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonOf, messageOf, NotAMessageError, service } from "./support/clients/grpc.ts";
import { jsonSequence } from "./support/clients/grpcApi.ts";
import { grpcCallOf as callOf, UnknownRpcError } from "./support/clients/routes.ts";
import { rulesOf } from "./support/protocolRules.ts";

/** The gRPC call of a gateway request on a node of `version` (v1.1 unless named). */
const grpcCallOf = (method: string, path: string, body?: string, version: "v1.1" | "v1.2" = "v1.1") =>
  callOf(method, path, body, rulesOf(version));

const root = join(import.meta.dir, "..");

test("features/gen/api.binpb is up to date with proto/ (run `npm run proto` after editing a .proto)", () => {
  const dir = mkdtempSync(join(tmpdir(), "api-binpb-"));
  try {
    const bin = join(root, "node_modules", ".bin");
    const out = join(dir, "api.binpb");
    const r = Bun.spawnSync(
      [
        ...[join(bin, "buf"), "build", "proto", "--exclude-path", "proto/p2p", "--exclude-path", "proto/v1.2"],
        ...["--exclude-source-info", "-o", out],
      ],
      { cwd: root },
    );
    expect(r.stderr.toString()).toBe("");
    expect(Buffer.compare(readFileSync(out), readFileSync(join(root, "features", "gen", "api.binpb")))).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

test("features/gen/api-v1.2.binpb is up to date with proto/v1.2 (run `npm run proto` after editing a .proto)", () => {
  const dir = mkdtempSync(join(tmpdir(), "api-binpb-"));
  try {
    const out = join(dir, "api-v1.2.binpb");
    const r = Bun.spawnSync(
      [join(root, "node_modules", ".bin", "buf"), "build", "proto/v1.2", "--exclude-source-info", "-o", out],
      { cwd: root },
    );
    expect(r.stderr.toString()).toBe("");
    expect(Buffer.compare(readFileSync(out), readFileSync(join(root, "features", "gen", "api-v1.2.binpb")))).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

describe("services per protocol version", () => {
  const methods = (typeName: string, protocol: "v1.1" | "v1.2") =>
    service(typeName, rulesOf(protocol)).methods.map((m) => m.name);
  const fields = (typeName: string, rpc: string, protocol: "v1.1" | "v1.2", side: "input" | "output") =>
    service(typeName, rulesOf(protocol))
      .methods.find((m) => m.name === rpc)!
      [side].fields.map((f) => f.name);

  test("v1.2's bidder and provider services come from proto/v1.2, the others are shared", () => {
    expect(methods("bidderapi.v1.Bidder", "v1.2")).toContain("DepositEvenly");
    expect(methods("bidderapi.v1.Bidder", "v1.2")).not.toContain("AutoDeposit");
    expect(methods("bidderapi.v1.Bidder", "v1.1")).toContain("AutoDeposit");
    expect(methods("bidderapi.v1.Bidder", "v1.1")).not.toContain("DepositEvenly");
    expect(fields("bidderapi.v1.Bidder", "Deposit", "v1.2", "input")).toEqual(["amount", "provider"]);
    expect(fields("providerapi.v1.Provider", "ReceiveBids", "v1.2", "output")).toContain("bidder_address");
    expect(fields("providerapi.v1.Provider", "ReceiveBids", "v1.1", "output")).not.toContain("bidder_address");
    expect(methods("notificationsapi.v1.Notifications", "v1.2")).toEqual(["Subscribe"]);
  });

  test("a route maps to the call of the target's version", () => {
    expect(grpcCallOf("POST", "/v1/bidder/deposit/5?provider=0xab", undefined, "v1.2")).toEqual({
      role: "bidder",
      rpc: "Deposit",
      request: { provider: "0xab", amount: "5" },
    });
    expect(grpcCallOf("POST", "/v1/bidder/deposit/5?provider=0xab")?.request).toEqual({ amount: "5" });
    expect(grpcCallOf("GET", "/v1/bidder/get_all_deposits", undefined, "v1.2")?.rpc).toBe("GetAllDeposits");
    expect(() => grpcCallOf("GET", "/v1/bidder/get_all_deposits")).toThrow(UnknownRpcError);
  });
});

describe("JSON mapping", () => {
  const bidder = service("bidderapi.v1.Bidder", rulesOf("v1.1"));
  const m = (name: string) => bidder.methods.find((x) => x.name === name)!;

  test("every field is emitted, int64 as strings, an unset wrapper as null (grpc-gateway's EmitUnpopulated)", () => {
    const d = m("Deposit").output;
    expect(jsonOf(d, messageOf(d, { amount: "5" }))).toEqual({ amount: "5", windowNumber: null });
    expect(jsonOf(d, messageOf(d, { amount: "5", window_number: "7" }))).toEqual({ amount: "5", windowNumber: "7" });
    const bid = m("SendBid").input;
    expect(jsonOf(bid, messageOf(bid, { txHashes: ["ab"], blockNumber: 3 }))).toEqual({
      txHashes: ["ab"],
      amount: "",
      blockNumber: "3",
      decayStartTimestamp: "0",
      decayEndTimestamp: "0",
      revertingTxHashes: [],
      rawTransactions: [],
      slashAmount: "",
    });
  });

  test("a value that is not the field's type has no message", () => {
    const bid = m("SendBid").input;
    expect(() => messageOf(bid, { blockNumber: "12x" })).toThrow(NotAMessageError);
    expect(() => messageOf(bid, { amount: 5 })).toThrow(NotAMessageError);
  });

  test("decisions written one after another, as NDJSON or concatenated", () => {
    expect(jsonSequence('{"a":"}"}\n{"b":[1,{"c":2}]}\n')).toEqual([{ a: "}" }, { b: [1, { c: 2 }] }]);
    expect(jsonSequence('{"a":1}{"b":2}')).toEqual([{ a: 1 }, { b: 2 }]);
    expect(() => jsonSequence('{"a":1,,}')).toThrow(NotAMessageError);
    expect(() => jsonSequence('{"a":1')).toThrow(NotAMessageError);
  });
});

describe("gateway routes as gRPC calls", () => {
  test("path, query (either spelling, unknown ignored) and body make the request; the path wins", () => {
    expect(grpcCallOf("POST", "/v1/bidder/deposit/5?window_number=3&amount=7&unknown=x")).toEqual({
      role: "bidder",
      rpc: "Deposit",
      request: { windowNumber: "3", amount: "5" },
    });
    expect(grpcCallOf("POST", "/v1/bidder/cancel_auto_deposit?withdraw=true")).toEqual({
      role: "bidder",
      rpc: "CancelAutoDeposit",
      request: { withdraw: true },
    });
    expect(grpcCallOf("POST", "/v1/bidder/withdraw_from_windows", '{"windowNumbers":["3",4]}')?.request).toEqual({
      windowNumbers: ["3", 4],
    });
    expect(grpcCallOf("POST", "/v1/provider/stake/1?bls_public_keys=ab&bls_public_keys=cd")?.request).toEqual({
      blsPublicKeys: ["ab", "cd"],
      amount: "1",
    });
    expect(grpcCallOf("GET", "/v1/provider/get_commitment_info?page=-2")).toEqual({
      role: "provider",
      rpc: "GetCommitmentInfo",
      request: { page: "-2" },
    });
  });

  test("what the gateway refuses before the call has no gRPC form", () => {
    for (const [method, path, body] of [
      ["GET", "/v1/bidder/get_bid_info?page=abc"],
      ["GET", "/v1/bidder/get_bid_info?limit=2147483648"],
      ["GET", "/v1/bidder/get_deposit?windowNumber=4&windowNumber=5"],
      ["POST", "/v1/bidder/withdraw_from_windows", '{"window_numbers":[1,]}'],
      ["GET", "/v1/bidder/deposit/1"],
      ["POST", "/v1/bidder/bids"],
      ["GET", "/health"],
    ] as [string, string, string?][])
      expect({ path, call: grpcCallOf(method, path, body) }).toEqual({ path, call: undefined });
  });
});

describe("JSON mapping of protocol v1.2's messages", () => {
  test("a oneof member is rendered when set and left out when not (bid options)", () => {
    const c = service("bidderapi.v1.Bidder", rulesOf("v1.2")).methods.find((x) => x.name === "SendBid")!.output;
    const set = { positionConstraint: { anchor: "ANCHOR_TOP", basis: "BASIS_PERCENTILE", value: 10 } };
    const json = jsonOf(c, messageOf(c, { bidAmount: "1", bidOptions: { options: [set, {}] } })) as {
      bidOptions: unknown;
    };
    expect(json.bidOptions).toEqual({ options: [set, {}] });
    expect((jsonOf(c, messageOf(c, {})) as { bidOptions: unknown }).bidOptions).toBeNull();
  });
});
