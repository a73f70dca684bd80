/**
 * The v1.2 bidder's deposit calls end to end: a bidder node of protocol v1.2 on a Prague Anvil with the v1.2
 * contracts, each call over HTTP and gRPC (one implementation behind both), upstream's validation texts and codes,
 * the EIP-7702 delegation seen on chain, the top-up when a commitment is opened, and a withdrawal after its period.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, concat, getAddress, type Hex, parseEther } from "viem";
import { ROLES } from "../../../chain/accounts.ts";
import * as v11Pb from "../../../gen/proto/bidderapi/v1/bidderapi_pb.ts";
import * as pb from "../../../gen/proto/v1.2/bidderapi/v1/bidderapi_pb.ts";
import { GrpcCallError, GrpcClient } from "../../../grpc/client.ts";
import { InProcessNetwork } from "../../../network/network.ts";
import { BidderNode } from "../../../nodes/bidderNode.ts";
import { GrpcCode } from "../../../protocol/grpcCodes.ts";
import { rulesOf } from "../../../protocol/rules.ts";
import { addr, key } from "../../../testing/chainHarness.ts";
import { buildCommitmentV12, type HarnessV12, setupV12Chain } from "../../../testing/chainHarnessV12.ts";

const BIDDER = addr(ROLES.bidder);
const P0i = ROLES.firstProvider;
const P0 = addr(P0i);
const P1 = addr(ROLES.firstProvider + 1);
/** Anvil's timestamps are seconds where the mev-commit chain's are ms: 5 "ms" are 5 blocks' seconds here. */
const PERIOD = 5n;

let h: HarnessV12 & { stop(): Promise<void> };
let node: BidderNode;
let grpc: GrpcClient<typeof pb.Bidder>;
let dir: string;

beforeAll(async () => {
  h = await setupV12Chain({ name: "bidder-deposits-v12", providers: 2, params: { bidderWithdrawalPeriodMs: PERIOD } });
  dir = mkdtempSync(join(tmpdir(), "bidder-v12-"));
  node = new BidderNode({
    privateKey: key(ROLES.bidder),
    settlementChain: h.chain,
    contracts: h.addresses,
    storePath: join(dir, "store"),
    bidTimeoutMs: 5_000,
    network: new InProcessNetwork(),
    // The validator API is not used here: an empty schedule.
    validators: { currentEpoch: async () => 0n, getValidators: async () => new Map() },
    rules: rulesOf("v1.2"),
  });
  await node.start({ host: "127.0.0.1", httpPort: 0, rpcPort: 0 });
  grpc = new GrpcClient(pb.Bidder, node.rpcUrl);
}, 120_000);

afterAll(async () => {
  grpc?.close();
  await node?.stop();
  await h?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function http(method: "GET" | "POST", path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${node.url}${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

async function failure(p: Promise<unknown>): Promise<GrpcCallError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof GrpcCallError) return e;
    throw e;
  }
  throw new Error("the call succeeded");
}

const bare = (a: Address) => a.toLowerCase().slice(2);

describe("validation: upstream's texts and codes over both transports", () => {
  const cases: {
    name: string;
    http: ["GET" | "POST", string, unknown?];
    rpc: () => Promise<unknown>;
    message: string;
    code: number;
  }[] = [
    {
      name: "Deposit: amount and provider",
      http: ["POST", "/v1/bidder/deposit/01?provider=xyz"],
      rpc: () => grpc.unary("deposit", { amount: "01", provider: "xyz" }),
      message:
        "validating deposit request: validation error:\n - amount: amount must be a valid integer. [amount]\n - provider: provider must be a valid Ethereum address. [provider]",
      code: GrpcCode.InvalidArgument,
    },
    {
      name: "Deposit: an absent provider",
      http: ["POST", "/v1/bidder/deposit/5"],
      rpc: () => grpc.unary("deposit", { amount: "5" }),
      message:
        "validating deposit request: validation error:\n - provider: provider must be a valid Ethereum address. [provider]",
      code: GrpcCode.InvalidArgument,
    },
    {
      name: "Deposit: the zero address",
      http: ["POST", `/v1/bidder/deposit/5?provider=0x${"0".repeat(40)}`],
      rpc: () => grpc.unary("deposit", { amount: "5", provider: `0x${"0".repeat(40)}` }),
      message: "provider address is zero address",
      code: GrpcCode.InvalidArgument,
    },
    {
      name: "DepositEvenly: no providers",
      http: ["POST", "/v1/bidder/deposit_evenly?total_amount=10"],
      rpc: () => grpc.unary("depositEvenly", { totalAmount: "10" }),
      message: "at least one provider is required",
      code: GrpcCode.InvalidArgument,
    },
    {
      name: "DepositEvenly: a bad total and a bad provider",
      http: ["POST", `/v1/bidder/deposit_evenly?totalAmount=x&providers=${P0}&providers=nope`],
      rpc: () => grpc.unary("depositEvenly", { totalAmount: "x", providers: [P0, "nope"] }),
      message:
        "validating deposit evenly request: validation error:\n - total_amount: total_amount must be a valid integer. [total_amount]\n - providers: providers must be a valid array of Ethereum addresses. [providers]",
      code: GrpcCode.InvalidArgument,
    },
    {
      name: "GetDeposit: no provider",
      http: ["GET", "/v1/bidder/get_deposit"],
      rpc: () => grpc.unary("getDeposit", {}),
      message:
        "validating get deposit request: validation error:\n - provider: provider must be a valid Ethereum address. [provider]",
      code: GrpcCode.InvalidArgument,
    },
    {
      name: "RequestWithdrawals: no providers",
      http: ["POST", "/v1/bidder/request_withdrawals", {}],
      rpc: () => grpc.unary("requestWithdrawals", {}),
      message: "at least one provider is required",
      code: GrpcCode.InvalidArgument,
    },
    {
      name: "Withdraw: a bad provider",
      http: ["POST", "/v1/bidder/withdraw", { providers: ["0x12"] }],
      rpc: () => grpc.unary("withdraw", { providers: ["0x12"] }),
      message:
        "validating withdraw request: validation error:\n - providers: providers must be a valid array of Ethereum addresses. [providers]",
      code: GrpcCode.InvalidArgument,
    },
    {
      name: "SetTargetDeposits before Enable",
      http: ["POST", "/v1/bidder/set_target_deposits", { targetDeposits: [{ provider: P0, targetDeposit: "1" }] }],
      rpc: () => grpc.unary("setTargetDeposits", { targetDeposits: [{ provider: P0, targetDeposit: "1" }] }),
      message: "SetTargetDeposits failed: deposit manager is not enabled",
      code: GrpcCode.FailedPrecondition,
    },
    {
      name: "DisableDepositManager while disabled",
      http: ["POST", "/v1/bidder/disable_deposit_manager"],
      rpc: () => grpc.unary("disableDepositManager"),
      message: "DisableDepositManager failed: deposit manager is already disabled",
      code: GrpcCode.FailedPrecondition,
    },
  ];
  for (const c of cases)
    test(c.name, async () => {
      const r = await http(...(c.http as ["GET" | "POST", string, unknown?]));
      expect(r.json).toMatchObject({ code: c.code, message: c.message });
      expect(r.status).toBe(c.code === GrpcCode.InvalidArgument || c.code === GrpcCode.FailedPrecondition ? 400 : 500);
      const e = await failure(c.rpc());
      expect({ code: e.code, details: e.details }).toEqual({ code: c.code, details: c.message });
    });

  test("the OpenAPI document lists the v1.2 deposit routes and none of the window routes", async () => {
    const doc = (await (await fetch(`${node.url}/swagger/json`)).json()) as { paths: Record<string, unknown> };
    const paths = Object.keys(doc.paths);
    for (const p of ["deposit_evenly", "enable_deposit_manager", "set_target_deposits", "request_withdrawals"])
      expect(paths).toContain(`/v1/bidder/${p}`);
    expect(paths.filter((p) => /auto_deposit|withdraw_from_windows/.test(p))).toEqual([]);
  });

  test("the window calls of v1.1 are not served", async () => {
    expect((await http("GET", "/v1/bidder/auto_deposit_status")).status).toBe(404);
    const v11 = new GrpcClient(v11Pb.Bidder, node.rpcUrl);
    const e = await failure(v11.unary("autoDepositStatus")).finally(() => v11.close());
    expect(e.code).toBe(GrpcCode.Unimplemented);
  });
});

describe("deposits per provider", () => {
  test("Deposit (HTTP) answers this deposit; GetDeposit (gRPC) the total; DepositEvenly splits with the remainder last", async () => {
    const d = await http("POST", `/v1/bidder/deposit/${parseEther("1")}?provider=${bare(P0)}`);
    expect(d).toEqual({ status: 200, json: { amount: parseEther("1").toString(), provider: P0 } });
    const d2 = await grpc.unary("deposit", { amount: "7", provider: P0.toLowerCase() });
    expect({ amount: d2.amount, provider: d2.provider }).toEqual({ amount: "7", provider: P0 });
    const got = await grpc.unary("getDeposit", { provider: bare(P0) });
    expect({ amount: got.amount, provider: got.provider }).toEqual({
      amount: (parseEther("1") + 7n).toString(),
      provider: bare(P0),
    });
    const even = await http("POST", `/v1/bidder/deposit_evenly?total_amount=101&providers=${P0}&providers=${P1}`);
    expect(even).toEqual({ status: 200, json: { providers: [bare(P0), bare(P1)], amounts: ["50", "51"] } });
    const all = await grpc.unary("getAllDeposits");
    expect(all.deposits.map((x) => [x.provider, x.amount]).sort()).toEqual(
      [
        [P0, (parseEther("1") + 57n).toString()],
        [P1, "51"],
      ].sort(),
    );
    expect(BigInt(all.bidderBalance)).toBe(await h.balance(BIDDER));
    expect((await http("GET", "/v1/bidder/get_all_deposits")).json.deposits).toHaveLength(2);
  });

  test("GetValidProviders: the registered providers with stake and a BLS key", async () => {
    const r = await http("GET", "/v1/bidder/get_valid_providers");
    expect(r.status).toBe(200);
    expect([...r.json.validProviders].sort()).toEqual([P0, P1].sort());
    expect((await grpc.unary("getValidProviders")).validProviders.length).toBe(2);
  });

  test("RequestWithdrawals, an early Withdraw refused by the chain, Withdraw after the period", async () => {
    await grpc.unary("deposit", { amount: "1000", provider: P1 });
    const req = await http("POST", "/v1/bidder/request_withdrawals", { providers: [P1] });
    expect(req).toEqual({ status: 200, json: { providers: [bare(P1)], amounts: ["1051"] } });
    const early = await failure(grpc.unary("withdraw", { providers: [P1] }));
    expect(early.details).toStartWith("waiting for receipt: transaction failed: WithdrawalPeriodNotElapsed(");
    const last = await h.publicClient.getBlock();
    await h.testClient.setNextBlockTimestamp({ timestamp: last.timestamp + PERIOD + 1n });
    await h.testClient.mine({ blocks: 1 });
    const w = await http("POST", "/v1/bidder/withdraw", { providers: [bare(P1)] });
    expect(w).toEqual({ status: 200, json: { amounts: ["1051"], providers: [bare(P1)] } });
    expect((await grpc.unary("getDeposit", { provider: P1 })).amount).toBe("0");
  });
});

describe("the deposit manager (EIP-7702)", () => {
  test("Enable delegates the EOA on chain, SetTargetDeposits tops up, an opened commitment tops up again, Disable clears", async () => {
    expect(await grpc.unary("depositManagerStatus")).toMatchObject({ enabled: false, targetDeposits: [] });
    expect(await http("POST", "/v1/bidder/enable_deposit_manager")).toEqual({ status: 200, json: { success: true } });
    expect(await h.publicClient.getCode({ address: BIDDER })).toBe(
      concat(["0xef0100", h.addresses.depositManager]).toLowerCase() as Hex,
    );
    const again = await failure(grpc.unary("enableDepositManager"));
    expect({ code: again.code, details: again.details }).toEqual({
      code: GrpcCode.FailedPrecondition,
      details: "EnableDepositManager failed: deposit manager is already enabled",
    });

    const deposited = BigInt((await grpc.unary("getDeposit", { provider: P0 })).amount);
    const target = deposited + parseEther("0.5");
    const set = await http("POST", "/v1/bidder/set_target_deposits", {
      target_deposits: [{ provider: P0, target_deposit: target.toString() }],
    });
    expect(set).toEqual({
      status: 200,
      json: {
        successfullySetDeposits: [{ provider: bare(P0), targetDeposit: target.toString() }],
        successfullyToppedUpProviders: [P0],
      },
    });
    expect(BigInt((await grpc.unary("getDeposit", { provider: P0 })).amount)).toBe(target);
    const status = await grpc.unary("depositManagerStatus");
    expect(status.enabled).toBe(true);
    expect(status.targetDeposits.map((t) => [t.provider, t.targetDeposit])).toEqual([[P0, target.toString()]]);

    // The provider opens a commitment of this bidder: BidderRegistry.openBid escrows the bid and calls
    // topUpDeposit on the delegated EOA, which refills the deposit to its target.
    await h.tx(ROLES.owner, "preconfManager", "updateCommitmentDispatchWindow", [2n ** 64n - 1n]);
    const c = await buildCommitmentV12({
      chainId: h.chainId,
      preconfManager: h.addresses.preconfManager,
      bidderKey: key(ROLES.bidder),
      providerKey: key(P0i),
      bid: { bidAmt: parseEther("0.2"), blockNumber: 5n, decayStartTimeStamp: 1000n, decayEndTimeStamp: 2000n },
    });
    await h.tx(P0i, "preconfManager", "storeUnopenedCommitment", [c.commitmentDigest, c.commitmentSignature, 1250n]);
    await h.recordWinner(5n, P0);
    const open = await h.tx(P0i, "preconfManager", "openCommitment", [c.openParams("provider")]);
    expect(h.events(open, "depositManager", "DepositToppedUp", BIDDER)[0]!.args).toEqual({
      provider: P0,
      amount: parseEther("0.2"),
    });
    expect(BigInt((await grpc.unary("getDeposit", { provider: P0 })).amount)).toBe(target);

    expect(await grpc.unary("disableDepositManager")).toMatchObject({ success: true });
    expect(await h.publicClient.getCode({ address: BIDDER })).toBeUndefined();
    expect((await http("GET", "/v1/bidder/deposit_manager_status")).json).toEqual({
      enabled: false,
      targetDeposits: [],
    });
    // Enabled again, the targets are still in the EOA's storage and events.
    await grpc.unary("enableDepositManager");
    expect((await grpc.unary("depositManagerStatus")).targetDeposits.map((t) => getAddress(t.provider))).toEqual([P0]);
  });
});
