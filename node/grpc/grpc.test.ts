/**
 * The gRPC surface of every node against a running devnet: each method of the five services, every stream kind
 * (SendBid, ReceiveBids and Subscribe server-streaming, SendProcessedBids client-streaming), reflection, and errors
 * with the same codes and texts as the HTTP gateway (one implementation behind both).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { toJson } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { parseEther } from "viem";
import { type LocalDevnet, startLocalDevnet } from "../devnet/localDevnet.ts";
import * as bidderPb from "../gen/proto/bidderapi/v1/bidderapi_pb.ts";
import { DebugService, TopologyResponseSchema } from "../gen/proto/debugapi/v1/debugapi_pb.ts";
import { Notifications } from "../gen/proto/notificationsapi/v1/notifications_pb.ts";
import * as providerPb from "../gen/proto/providerapi/v1/providerapi_pb.ts";
import { GetValidatorsResponseSchema, Validator } from "../gen/proto/validatorapi/v1/validatorapi_pb.ts";
import { GrpcCode } from "../protocol/grpcCodes.ts";
import { GrpcProviderAgent } from "../providerApp/grpcProviderAgent.ts";
import { acceptAll, neverAnswer } from "../providerApp/policies.ts";
import { GrpcCallError, GrpcClient, grpcTarget } from "./client.ts";

let local: LocalDevnet;
let bidder: GrpcClient<typeof bidderPb.Bidder>;
let providers: GrpcClient<typeof providerPb.Provider>[];
const opened: { close(): void }[] = [];

beforeAll(async () => {
  local = await startLocalDevnet(
    // The nodes meet in-process: this file is about the API transports, not the network between nodes.
    {
      autoAccept: false,
      autodepositAmount: parseEther("10"),
      decisionTimeoutMs: 20_000,
      bidTimeoutMs: 20_000,
      network: "in-process",
    },
    "reports/grpc-test-devnet.log",
  );
  bidder = new GrpcClient(bidderPb.Bidder, local.devnet.bidder.rpcUrl);
  providers = local.devnet.providers.map((p) => new GrpcClient(providerPb.Provider, p.rpcUrl));
  opened.push(bidder, ...providers);
}, 120_000);

afterAll(async () => {
  for (const c of opened) c.close();
  await local?.stop();
});

/** The same operation over HTTP: status and JSON body. */
async function http(method: "GET" | "POST", url: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(url, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, json: JSON.parse((await res.text()).trim().split("\n").pop()!) };
}

/** The status a call ends with. */
async function failure(p: Promise<unknown> | AsyncIterable<unknown>): Promise<GrpcCallError> {
  try {
    if (Symbol.asyncIterator in p) for await (const _ of p as AsyncIterable<unknown>);
    else await p;
  } catch (e) {
    if (e instanceof GrpcCallError) return e;
    throw e;
  }
  throw new Error("the call succeeded");
}

const hash = (n: number) => n.toString(16).padStart(64, "0");

function bid(block: bigint, n: number, amount = 1000n) {
  const now = BigInt(Date.now());
  return {
    txHashes: [hash(n)],
    amount: amount.toString(),
    blockNumber: block,
    decayStartTimestamp: now,
    decayEndTimestamp: now + 60_000n,
  };
}

describe("reflection", () => {
  const reflection = (url: string) => {
    const def = loadSync(
      join(import.meta.dir, "../../node_modules/@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto"),
      { keepCase: true },
    );
    const pkg = grpc.loadPackageDefinition(def) as any;
    const t = grpcTarget(url);
    return new pkg.grpc.reflection.v1.ServerReflection(t.address, t.credentials);
  };
  const listServices = (url: string) =>
    new Promise<string[]>((resolve, reject) => {
      const client = reflection(url);
      const call = client.ServerReflectionInfo();
      call.on("data", (r: any) => {
        resolve(r.list_services_response.service.map((s: { name: string }) => s.name).sort());
        call.end();
        client.close();
      });
      call.on("error", reject);
      call.write({ list_services: "*" });
    });

  test("each node lists upstream's services for its role", async () => {
    expect(await listServices(local.devnet.bidder.rpcUrl)).toEqual([
      "bidderapi.v1.Bidder",
      "debugapi.v1.DebugService",
      "notificationsapi.v1.Notifications",
      "validatorapi.v1.Validator",
    ]);
    expect(await listServices(local.devnet.providers[0]!.rpcUrl)).toEqual([
      "debugapi.v1.DebugService",
      "notificationsapi.v1.Notifications",
      "providerapi.v1.Provider",
      "validatorapi.v1.Validator",
    ]);
  });
});

describe("bids: SendBid, ReceiveBids and SendProcessedBids over gRPC", () => {
  test("provider applications attached over gRPC answer a gRPC bid with one commitment each, recorded on both sides", async () => {
    const d = local.devnet;
    const agents = d.providers.map((p) => new GrpcProviderAgent(p.rpcUrl, acceptAll()));
    await Promise.all(agents.map((a) => a.start()));
    try {
      expect(d.providers.map((p) => p.dispatcher.activeReceivers)).toEqual([1, 1]);
      const block = (await d.driver.blockNumber()) + 2n;
      const commitments = [];
      for await (const c of bidder.serverStream("sendBid", bid(block, 1))) commitments.push(c);
      expect(commitments.map((c) => c.providerAddress).sort()).toEqual(
        d.providers.map((p) => p.address.toLowerCase().slice(2)).sort(),
      );
      for (const c of commitments) {
        expect(c.txHashes).toEqual([hash(1)]);
        expect(c.bidAmount).toBe("1000");
        expect(c.blockNumber).toBe(block);
        expect(c.commitmentDigest).toMatch(/^[0-9a-f]{64}$/);
        expect(c.commitmentSignature).toMatch(/^[0-9a-f]{130}$/);
      }
      expect(agents.map((a) => a.seen.length)).toEqual([1, 1]);
      expect(agents.flatMap((a) => a.errors)).toEqual([]);

      // The queries answer the same over both transports (one service renders both), once the providers' store
      // transactions are in (a commitment's status moves from pending to stored meanwhile).
      const stored = async () =>
        (await bidder.unary("getBidInfo", { blockNumber: block })).blockBidInfo[0]?.bids[0]?.commitments.every(
          (c) => c.status === "stored",
        );
      for (let i = 0; i < 200 && !(await stored()); i++) await Bun.sleep(25);
      const info = await bidder.unary("getBidInfo", { blockNumber: block });
      expect(info.blockBidInfo[0]!.bids[0]!.commitments.length).toBe(2);
      const httpInfo = await http("GET", `${d.bidder.url}/v1/bidder/get_bid_info?block_number=${block}`);
      expect(toJson(bidderPb.GetBidInfoResponseSchema, info, { alwaysEmitImplicit: true })).toEqual(httpInfo.json);
      for (const [i, p] of d.providers.entries()) {
        const mine = await providers[i]!.unary("getCommitmentInfo", { blockNumber: block });
        expect(mine.commitments[0]!.commitments.map((c) => c.txnHashes)).toEqual([[hash(1)]]);
        const httpMine = await http("GET", `${p.url}/v1/provider/get_commitment_info?block_number=${block}`);
        expect(toJson(providerPb.CommitmentInfoResponseSchema, mine, { alwaysEmitImplicit: true })).toEqual(
          httpMine.json,
        );
      }
    } finally {
      await Promise.all(agents.map((a) => a.stop()));
    }
    // A receiver that leaves is detached at once.
    for (let i = 0; i < 100 && d.providers.some((p) => p.dispatcher.activeReceivers > 0); i++) await Bun.sleep(10);
    expect(d.providers.map((p) => p.dispatcher.activeReceivers)).toEqual([0, 0]);
  }, 30_000);

  test("a SendBid client that cancels ends its bid on the providers (no commitment waits for the decision timeout)", async () => {
    const d = local.devnet;
    const silent = d.providers.map((p) => new GrpcProviderAgent(p.rpcUrl, neverAnswer()));
    await Promise.all(silent.map((a) => a.start()));
    try {
      const ctrl = new AbortController();
      const stream = bidder.serverStream("sendBid", bid((await d.driver.blockNumber()) + 2n, 2), ctrl.signal);
      const reading = (async () => {
        for await (const _ of stream);
      })();
      for (let i = 0; i < 500 && silent.some((a) => a.seen.length === 0); i++) await Bun.sleep(10);
      expect(silent.map((a) => a.seen.length)).toEqual([1, 1]);
      const t0 = performance.now();
      ctrl.abort();
      await reading;
      expect(performance.now() - t0).toBeLessThan(5_000);
    } finally {
      await Promise.all(silent.map((a) => a.stop()));
    }
  }, 30_000);

  test("bad bids fail before the stream with InvalidArgument and the HTTP gateway's text", async () => {
    const d = local.devnet;
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ amount: "abc" }, { amount: "abc" }],
      [
        { amount: "1", blockNumber: 5n, decayStartTimestamp: 1n, decayEndTimestamp: 2n },
        { amount: "1", blockNumber: 5, decayStartTimestamp: 1, decayEndTimestamp: 2 },
      ],
      [
        { ...bid(5n, 3), rawTransactions: ["02"] },
        {
          ...bid(5n, 3),
          rawTransactions: ["02"],
          blockNumber: "5",
          decayStartTimestamp: String(bid(5n, 3).decayStartTimestamp),
          decayEndTimestamp: String(bid(5n, 3).decayEndTimestamp),
        },
      ],
    ];
    for (const [grpcReq, httpReq] of cases) {
      const e = await failure(bidder.serverStream("sendBid", grpcReq as never));
      const h = await http("POST", `${d.bidder.url}/v1/bidder/bid`, httpReq);
      expect(h.status).toBe(400);
      expect({ code: e.code, message: e.details }).toEqual({
        code: GrpcCode.InvalidArgument,
        message: h.json.error.message,
      });
    }
  });

  test("a decision with an undefined status ends SendProcessedBids with InvalidArgument, as over HTTP", async () => {
    const p = local.devnet.providers[0]!;
    const stream = providers[0]!.clientStream("sendProcessedBids");
    await stream.send({ bidDigest: new Uint8Array(32), status: 0 });
    const e = await failure(stream.close());
    const h = await http("POST", `${p.url}/v1/provider/send_processed_bids`, { bidDigest: "", status: 0 });
    expect(h.status).toBe(400);
    expect({ code: e.code, message: e.details }).toEqual({ code: GrpcCode.InvalidArgument, message: h.json.message });
    // Decisions for bids nobody waits for are ignored; the stream answers an EmptyMessage.
    const ok = providers[0]!.clientStream("sendProcessedBids");
    await ok.send({
      bidDigest: new Uint8Array(32),
      status: providerPb.BidResponse_Status.ACCEPTED,
      dispatchTimestamp: 1n,
    });
    await ok.send({ bidDigest: new Uint8Array(32), status: providerPb.BidResponse_Status.REJECTED });
    expect((await ok.close()).$typeName).toBe("providerapi.v1.EmptyMessage");
  });

  test("ReceiveBids and SendBid without anyone to ask: SendBid fails with the HTTP gateway's code and text", async () => {
    const d = local.devnet;
    await d.stopProvider(0);
    await d.stopProvider(1);
    try {
      const e = await failure(bidder.serverStream("sendBid", bid((await d.driver.blockNumber()) + 2n, 4)));
      const h = await http("POST", `${d.bidder.url}/v1/bidder/bid`, {
        ...bid(5n, 4),
        blockNumber: "5",
        decayStartTimestamp: "1",
        decayEndTimestamp: "2",
      });
      expect({ code: e.code, message: e.details }).toEqual({ code: h.json.error.code, message: h.json.error.message });
    } finally {
      await d.startProvider(0);
      await d.startProvider(1);
    }
    for (const c of providers) c.close();
    providers = d.providers.map((p) => new GrpcClient(providerPb.Provider, p.rpcUrl));
    opened.push(...providers);
  }, 30_000);
});

describe("deposits over gRPC", () => {
  test("status, get, refusals while auto-deposit runs, cancel, deposit, withdraw, claim: same answers as HTTP", async () => {
    const d = local.devnet;
    const status = await bidder.unary("autoDepositStatus");
    expect(status.isAutodepositEnabled).toBe(true);
    expect(status.windowBalances.length).toBeGreaterThan(0);
    expect(toJson(bidderPb.AutoDepositStatusResponseSchema, status, { alwaysEmitImplicit: true })).toEqual(
      (await http("GET", `${d.bidder.url}/v1/bidder/auto_deposit_status`)).json,
    );
    const current = status.windowBalances.find((w) => w.isCurrent)!;
    const got = await bidder.unary("getDeposit", { windowNumber: current.windowNumber });
    expect(got.amount).toBe(current.depositedAmount);

    const running = await failure(bidder.unary("deposit", { amount: "5" }));
    const httpRunning = await http("POST", `${d.bidder.url}/v1/bidder/deposit/5`);
    expect({ code: running.code, message: running.details }).toEqual({
      code: GrpcCode.FailedPrecondition,
      message: httpRunning.json.message,
    });
    const started = await failure(bidder.unary("autoDeposit", { amount: "5" }));
    expect(started.code).toBe(GrpcCode.FailedPrecondition);

    const invalid = await failure(bidder.unary("withdraw", { windowNumber: 0n }));
    const httpInvalid = await http("POST", `${d.bidder.url}/v1/bidder/withdraw?window_number=0`);
    expect({ code: invalid.code, message: invalid.details }).toEqual({
      code: GrpcCode.InvalidArgument,
      message: httpInvalid.json.message,
    });
    const none = await failure(bidder.unary("withdrawFromWindows", { windowNumbers: [] }));
    expect(none.details).toBe(
      (await http("POST", `${d.bidder.url}/v1/bidder/withdraw_from_windows`, { windowNumbers: [] })).json.message,
    );

    const cancelled = await bidder.unary("cancelAutoDeposit", { withdraw: false });
    expect(cancelled.windowNumbers.map((w) => w.value)).toContain(current.windowNumber!);
    try {
      const far = current.windowNumber! + 20n;
      const deposited = await bidder.unary("deposit", { amount: "7", windowNumber: far });
      expect({ amount: deposited.amount, window: deposited.windowNumber }).toEqual({ amount: "7", window: far });
      const blockWindow = await bidder.unary("deposit", { amount: "3", blockNumber: far * 10n - 5n });
      expect(blockWindow.windowNumber).toBe(far);
      expect((await bidder.unary("getDeposit", { windowNumber: far })).amount).toBe("10");
      // The window has not closed: the chain refuses, with the same code and text on both transports.
      const open = await failure(bidder.unary("withdrawFromWindows", { windowNumbers: [{ value: far }] }));
      const httpOpen = await http("POST", `${d.bidder.url}/v1/bidder/withdraw_from_windows`, {
        windowNumbers: [far.toString()],
      });
      expect({ code: open.code, message: open.details }).toEqual({
        code: httpOpen.json.code,
        message: httpOpen.json.message,
      });
      expect(open.details).toContain(`window=${far}`);
      expect((await bidder.unary("claimSlashedFunds")).value).toBe("0");
    } finally {
      const again = await bidder.unary("autoDeposit", {
        amount: parseEther("10").toString(),
        windowNumber: current.windowNumber! + 1n,
      });
      expect(again.startWindowNumber).toBe(current.windowNumber! + 1n);
      expect(again.amountPerWindow).toBe(parseEther("10").toString());
    }
  }, 60_000);
});

describe("queries, validators, debug", () => {
  test("paging errors are InvalidArgument with the HTTP gateway's text", async () => {
    const d = local.devnet;
    const e = await failure(bidder.unary("getBidInfo", { page: -1 }));
    const h = await http("GET", `${d.bidder.url}/v1/bidder/get_bid_info?page=-1`);
    expect({ code: e.code, message: e.details }).toEqual({ code: GrpcCode.InvalidArgument, message: h.json.message });
    const p = await failure(providers[0]!.unary("getCommitmentInfo", { limit: 5000 }));
    expect(p.details).toBe(
      (await http("GET", `${d.providers[0]!.url}/v1/provider/get_commitment_info?limit=5000`)).json.message,
    );
  });

  test("GetValidators and GetTopology answer what the HTTP gateway answers; pending transactions are Unimplemented", async () => {
    const d = local.devnet;
    for (const node of [d.bidder, d.providers[0]!]) {
      const v = new GrpcClient(Validator, node.rpcUrl);
      const dbg = new GrpcClient(DebugService, node.rpcUrl);
      opened.push(v, dbg);
      const validators = await v.unary("getValidators", { epoch: 1n });
      expect(Object.keys(validators.items).length).toBe(32);
      expect(toJson(GetValidatorsResponseSchema, validators, { alwaysEmitImplicit: true })).toEqual(
        (await http("GET", `${node.url}/v1/validator/get_validators?epoch=1`)).json,
      );
      const topology = await dbg.unary("getTopology");
      expect(toJson(TopologyResponseSchema, topology, { alwaysEmitImplicit: true })).toEqual(
        (await http("GET", `${node.url}/v1/debug/topology`)).json,
      );
      expect((await failure(dbg.unary("getPendingTransactions"))).code).toBe(GrpcCode.Unimplemented);
      expect((await failure(dbg.unary("cancelTransaction", { txHash: hash(1) }))).code).toBe(GrpcCode.Unimplemented);
    }
  });
});

describe("notifications over gRPC", () => {
  test("Subscribe streams peer events; an unknown topic is InvalidArgument with the HTTP gateway's text", async () => {
    const d = local.devnet;
    const n = new GrpcClient(Notifications, d.bidder.rpcUrl);
    opened.push(n);
    const bad = await failure(n.serverStream("subscribe", { topics: ["nope"] }));
    const httpBad = await http("POST", `${d.bidder.url}/v1/subscribe`, { topics: ["nope"] });
    expect({ code: bad.code, message: bad.details }).toEqual({
      code: GrpcCode.InvalidArgument,
      message: httpBad.json.error.message,
    });

    const ctrl = new AbortController();
    const stream = n.serverStream("subscribe", { topics: ["peer_disconnected", "peer_connected"] }, ctrl.signal);
    await stream.opened;
    const got: { topic: string; value: unknown }[] = [];
    const reading = (async () => {
      for await (const m of stream) {
        got.push({ topic: m.topic, value: m.value });
        if (got.length === 2) ctrl.abort();
      }
    })();
    await d.stopProvider(0);
    await d.startProvider(0);
    await reading;
    const peer = { ethAddress: d.providers[0]!.address, type: "provider" };
    expect(got).toEqual([
      { topic: "peer_disconnected", value: peer },
      { topic: "peer_connected", value: peer },
    ]);
    for (let i = 0; i < 100 && d.bidder.notifier.subscriberCount > 0; i++) await Bun.sleep(10);
    expect(d.bidder.notifier.subscriberCount).toBe(0);
  }, 30_000);
});

// Last: provider 1 unstakes, and an unstaked provider is no longer a peer of the network.
describe("provider stake over gRPC", () => {
  test("stake, rewards and unstake answer as over HTTP", async () => {
    const d = local.devnet;
    const p = providers[1]!;
    const before = await p.unary("getStake");
    expect(before.amount).toBe((await http("GET", `${d.providers[1]!.url}/v1/provider/get_stake`)).json.amount);
    expect((await p.unary("getMinStake")).amount).toMatch(/^[1-9][0-9]*$/);
    expect((await p.unary("getProviderReward")).amount).toMatch(/^[0-9]+$/);
    const bad = await failure(p.unary("stake", { amount: "x" }));
    const httpBad = await http("POST", `${d.providers[1]!.url}/v1/provider/stake/x`);
    expect({ code: bad.code, message: bad.details }).toEqual({
      code: GrpcCode.InvalidArgument,
      message: httpBad.json.message,
    });
    const added = await p.unary("stake", { amount: "1000" });
    expect(added.amount).toBe("1000");
    expect((await p.unary("getStake")).amount).toBe((BigInt(before.amount) + 1000n).toString());
    await p.unary("unstake");
    const early = await failure(p.unary("withdrawStake"));
    expect(early.code).not.toBe(GrpcCode.OK);
    expect((await p.unary("withdrawProviderReward")).amount).toMatch(/^[0-9]+$/);
  }, 60_000);
});
