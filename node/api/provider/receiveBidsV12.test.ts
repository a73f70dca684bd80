/**
 * ReceiveBids per protocol version, over real HTTP and gRPC of one in-process provider node: a bid signed by a
 * bidder goes through the provider's intake (signature recovery, dispatch) to the provider application's streams.
 * v1.2 adds `bidOptions` (field 10, null when the bid has none) and `bidderAddress` (field 11, the recovered bidder,
 * EIP-55 with 0x) to each bid, and declares bidOptions (always null) on GetCommitmentInfo; v1.1 has none of these.
 * Server reflection describes the version's providerapi.v1 messages.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import protobuf from "protobufjs";
import { getAddress } from "viem";
import { NdjsonStream } from "../../clients/ndjson.ts";
import { BidSchema, Provider } from "../../gen/proto/providerapi/v1/providerapi_pb.ts";
import { GrpcClient, grpcTarget } from "../../grpc/client.ts";
import { InProcessNetwork } from "../../network/network.ts";
import { Notifier } from "../../notify/notifier.ts";
import { encodeBidOptions } from "../../protocol/bidOptions.ts";
import { signBid } from "../../protocol/bidSigning.ts";
import { protocolDomains } from "../../protocol/digest.ts";
import { RpcError } from "../../protocol/grpcCodes.ts";
import { initCrypto } from "../../protocol/initCrypto.ts";
import type { ProtocolVersion } from "../../protocol/protocolVersion.ts";
import { rulesOf } from "../../protocol/rules.ts";
import { privateKeyToAddress } from "../../protocol/secp256k1.ts";
import type { Bid } from "../../protocol/types.ts";
import { BidDispatcher } from "../../provider/bids/bidDispatcher.ts";
import { BidIntake } from "../../provider/bids/bidIntake.ts";
import type { WindowBalanceCheck } from "../../provider/bids/windowBalanceCheck.ts";
import { type NodeServer, serveNode } from "../../server/nodeServer.ts";
import { DebugService } from "../../services/debugService.ts";
import { NotificationsService } from "../../services/notificationsService.ts";
import { ProviderService } from "../../services/providerService.ts";
import { ValidatorApiService } from "../../services/validatorApiService.ts";
import { NodeStore } from "../../store/db.ts";
import { CommitmentStore } from "../../tracker/commitmentStore.ts";
import { toRecord } from "../../tracker/record.ts";
import { setLogSink } from "../../util/log.ts";

setLogSink(() => {});

const BIDDER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const PROVIDER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const PROVIDER = privateKeyToAddress(PROVIDER_KEY);
const BIDDER = getAddress(privateKeyToAddress(BIDDER_KEY));
const domains = protocolDomains(31337n, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
const TOP_TENTH = { options: [{ positionConstraint: { anchor: 1, basis: 1, value: 10 } }] };
const TOP_TENTH_JSON = {
  options: [{ positionConstraint: { anchor: "ANCHOR_TOP", basis: "BASIS_PERCENTILE", value: 10 } }],
};

/** providerapi.v1.Bid of v1.2 built independently by protobufjs from its field numbers (upstream-head-delta §1.5). */
const V12Bid = protobuf.Root.fromJSON({
  nested: {
    PositionConstraint: {
      fields: { anchor: { type: "int32", id: 1 }, basis: { type: "int32", id: 2 }, value: { type: "int32", id: 3 } },
    },
    BidOption: { fields: { positionConstraint: { type: "PositionConstraint", id: 1 } } },
    BidOptions: { fields: { options: { rule: "repeated", type: "BidOption", id: 1 } } },
    Bid: {
      fields: {
        bidAmount: { type: "string", id: 2 },
        bidOptions: { type: "BidOptions", id: 10 },
        bidderAddress: { type: "string", id: 11 },
      },
    },
  },
}).lookupType("Bid");

/** What a gRPC client of v1.2 reads of fields 10 and 11 off the wire bytes of a received bid. */
function v12FieldsOnTheWire(bytes: Uint8Array) {
  const m = V12Bid.toObject(V12Bid.decode(bytes), { defaults: false }) as Record<string, unknown>;
  return { bidAmount: m.bidAmount, bidOptions: m.bidOptions ?? null, bidderAddress: m.bidderAddress ?? "" };
}

beforeAll(async () => {
  await initCrypto();
});

const nodes: NodeServer[] = [];
const stores: NodeStore[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const n of nodes) await n.stop();
  for (const s of stores) s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A provider node's bid path and its API over HTTP and gRPC; the balance check lets every bid through. */
async function providerNode(protocol: ProtocolVersion) {
  const dispatcher = new BidDispatcher();
  const dir = mkdtempSync(join(tmpdir(), "receive-bids-"));
  dirs.push(dir);
  const store = new NodeStore(join(dir, "provider.db"));
  stores.push(store);
  const commitments = new CommitmentStore(store);
  const provider = new ProviderService({
    dispatcher,
    stake: undefined as never, // nothing here touches the stake
    commitments: () => commitments,
    rules: rulesOf(protocol),
  });
  const served = await serveNode(
    {
      role: "provider",
      address: PROVIDER,
      provider,
      notifications: new NotificationsService(new Notifier(), rulesOf(protocol)),
      validator: new ValidatorApiService({ currentEpoch: async () => 1n, getValidators: async () => new Map() }),
      debug: new DebugService(new InProcessNetwork(), PROVIDER, "provider"),
    },
    { host: "127.0.0.1", httpPort: 0, rpcPort: 0 },
    `provider ${protocol}`,
  );
  nodes.push(served);
  const intake = new BidIntake({
    privateKey: PROVIDER_KEY,
    address: PROVIDER,
    nikeSecret: 777n,
    domains,
    deposits: { checkAndReserve: async () => () => {} } as unknown as WindowBalanceCheck,
    dispatcher,
    decisionTimeoutMs: 10_000,
    onCommitted: (c, bidder) => commitments.record(toRecord(c, bidder, "pending")),
  });
  /** Sends a bid into the intake as the network would; resolves when the application accepted it. */
  const receive = (bid: Bid) => {
    const { signedBid } = signBid(bid, BIDDER_KEY, domains.bid);
    return intake.handle(signedBid, new AbortController().signal);
  };
  const waitReceivers = async (n: number) => {
    while (dispatcher.activeReceivers < n) await Bun.sleep(10);
  };
  /** Accepts the bid of `bidDigest` (base64, as streamed) the way the application does. */
  const accept = (bidDigest: Uint8Array) => provider.decide({ bidDigest, status: 1, dispatchTimestamp: 5n });
  return { served, receive, waitReceivers, accept, dispatcher };
}

const bid = (amount: bigint, bidOptions?: Uint8Array): Bid => ({
  txHashes: ["ab".repeat(32)],
  rawTransactions: [],
  amount,
  blockNumber: 9n,
  decayStartTimestamp: 1n,
  decayEndTimestamp: 2n,
  revertingTxHashes: [],
  slashAmount: amount,
  ...(bidOptions ? { bidOptions } : {}),
});

/** Every commitment GetCommitmentInfo lists, in its order. */
async function commitmentInfo(url: string): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${url}/v1/provider/get_commitment_info`);
  const json = (await res.json()) as { commitments: { commitments: Record<string, unknown>[] }[] };
  return json.commitments.flatMap((b) => b.commitments);
}

/** Opens ReceiveBids over HTTP, then over gRPC: the dispatcher's round robin gives bid 1 to HTTP, bid 2 to gRPC. */
async function bothStreams(node: Awaited<ReturnType<typeof providerNode>>) {
  const http = await NdjsonStream.open<Record<string, unknown>>("GET", `${node.served.url}/v1/provider/receive_bids`);
  await node.waitReceivers(1);
  const client = new GrpcClient(Provider, node.served.rpcUrl);
  const grpc = client.serverStream("receiveBids");
  await grpc.opened;
  await node.waitReceivers(2);
  return {
    async nextHttp() {
      const line = await http.next();
      if (!line || !("result" in line)) throw new Error(`no bid on the HTTP stream: ${JSON.stringify(line)}`);
      return line.result;
    },
    async nextGrpc() {
      const r = await grpc.next();
      if (r.done) throw new Error("the gRPC stream ended");
      return r.value;
    },
    close() {
      http.close();
      grpc.cancel();
      client.close();
    },
  };
}

describe("ReceiveBids per protocol version", () => {
  test("v1.2: each bid carries its options (null when none) and the recovered bidder, over HTTP and gRPC", async () => {
    const node = await providerNode("v1.2");
    const streams = await bothStreams(node);
    try {
      const committed = [node.receive(bid(1001n, encodeBidOptions(TOP_TENTH))), node.receive(bid(1002n))];
      const overHttp = await streams.nextHttp();
      expect(overHttp.bidAmount).toBe("1001");
      expect(overHttp.bidOptions).toEqual(TOP_TENTH_JSON);
      expect(overHttp.bidderAddress).toBe(BIDDER);
      const overGrpc = await streams.nextGrpc();
      expect(v12FieldsOnTheWire(toBinary(BidSchema, overGrpc))).toEqual({
        bidAmount: "1002",
        bidOptions: null,
        bidderAddress: BIDDER,
      });
      node.accept(Buffer.from(overHttp.bidDigest as string, "base64"));
      node.accept(overGrpc.bidDigest);
      await Promise.all(committed);

      // The other way round: options over gRPC, none over HTTP.
      const again = [node.receive(bid(1003n)), node.receive(bid(1004n, encodeBidOptions(TOP_TENTH)))];
      const none = await streams.nextHttp();
      expect(none.bidOptions).toBeNull();
      expect(none.bidderAddress).toBe(BIDDER);
      const withOptions = await streams.nextGrpc();
      expect(v12FieldsOnTheWire(toBinary(BidSchema, withOptions))).toEqual({
        bidAmount: "1004",
        bidOptions: TOP_TENTH,
        bidderAddress: BIDDER,
      });
      node.accept(Buffer.from(none.bidDigest as string, "base64"));
      node.accept(withOptions.bidDigest);
      await Promise.all(again);

      // GetCommitmentInfo declares bidOptions on each commitment in v1.2; upstream's v1.2.x never fills it.
      const info = await commitmentInfo(node.served.url);
      expect(info.map((c) => c.amount)).toEqual(["1004", "1003", "1002", "1001"]);
      for (const c of info) expect(c.bidOptions).toBeNull();
    } finally {
      streams.close();
    }
  }, 30_000);

  test("v1.2: options that do not decode fail the bid before any application sees it", async () => {
    const node = await providerNode("v1.2");
    const streams = await bothStreams(node);
    try {
      const e = await node.receive(bid(1005n, Uint8Array.from([0x0a, 0x05]))).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(RpcError);
      expect((e as RpcError).code).toBe(3);
      expect((e as Error).message).toMatch(/^unmarshalling bid options: /);
      // The next bid is the first either stream sees.
      const next = node.receive(bid(1006n));
      const first = await streams.nextHttp();
      expect(first.bidAmount).toBe("1006");
      node.accept(Buffer.from(first.bidDigest as string, "base64"));
      await next;
    } finally {
      streams.close();
    }
  }, 30_000);

  test("v1.1: the stream is unchanged, without bidOptions or bidderAddress", async () => {
    const node = await providerNode("v1.1");
    const streams = await bothStreams(node);
    try {
      const committed = [node.receive(bid(1007n)), node.receive(bid(1008n))];
      const overHttp = await streams.nextHttp();
      expect(overHttp.bidAmount).toBe("1007");
      expect("bidOptions" in overHttp).toBe(false);
      expect("bidderAddress" in overHttp).toBe(false);
      const overGrpc = await streams.nextGrpc();
      expect(overGrpc.$unknown ?? []).toEqual([]);
      expect(v12FieldsOnTheWire(toBinary(BidSchema, overGrpc))).toEqual({
        bidAmount: "1008",
        bidOptions: null,
        bidderAddress: "",
      });
      node.accept(Buffer.from(overHttp.bidDigest as string, "base64"));
      node.accept(overGrpc.bidDigest);
      await Promise.all(committed);
      const info = await commitmentInfo(node.served.url);
      expect(info.map((c) => c.amount)).toEqual(["1008", "1007"]);
      for (const c of info) expect("bidOptions" in c).toBe(false);
    } finally {
      streams.close();
    }
  }, 30_000);
});

/** The fields of a message as the node's server reflection describes them (what `grpcurl describe` prints). */
async function reflectedFields(url: string, message: string): Promise<Record<string, number>> {
  const def = loadSync(
    join(import.meta.dir, "../../../node_modules/@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto"),
    { keepCase: true },
  );
  const pkg = grpc.loadPackageDefinition(def) as any;
  const t = grpcTarget(url);
  const client = new pkg.grpc.reflection.v1.ServerReflection(t.address, t.credentials);
  try {
    const files = await new Promise<Uint8Array[]>((resolve, reject) => {
      const call = client.ServerReflectionInfo();
      call.on("data", (r: { file_descriptor_response?: { file_descriptor_proto: Uint8Array[] } }) => {
        resolve(r.file_descriptor_response?.file_descriptor_proto ?? []);
        call.end();
      });
      call.on("error", reject);
      call.write({ file_containing_symbol: `providerapi.v1.${message.split(".")[0]}` });
    });
    for (const bytes of files) {
      const file = fromBinary(FileDescriptorProtoSchema, bytes);
      if (file.package !== "providerapi.v1") continue;
      let found = file.messageType.find((m) => m.name === message.split(".")[0]);
      for (const nested of message.split(".").slice(1)) found = found?.nestedType.find((m) => m.name === nested);
      if (found) return Object.fromEntries(found.field.map((f) => [f.name, f.number]));
    }
    throw new Error(`reflection has no providerapi.v1.${message}`);
  } finally {
    client.close();
  }
}

describe("server reflection per protocol version", () => {
  test("v1.2 describes bid_options (10) and bidder_address (11) on Bid and bid_options (14) on a commitment", async () => {
    const node = await providerNode("v1.2");
    const bidFields = await reflectedFields(node.served.rpcUrl, "Bid");
    expect(bidFields.bid_options).toBe(10);
    expect(bidFields.bidder_address).toBe(11);
    expect((await reflectedFields(node.served.rpcUrl, "CommitmentInfoResponse.Commitment")).bid_options).toBe(14);
    expect(await reflectedFields(node.served.rpcUrl, "BidOption")).toEqual({ position_constraint: 1 });
  });

  test("v1.1 describes neither", async () => {
    const node = await providerNode("v1.1");
    const bidFields = await reflectedFields(node.served.rpcUrl, "Bid");
    expect(Object.values(bidFields).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect("bid_options" in (await reflectedFields(node.served.rpcUrl, "CommitmentInfoResponse.Commitment"))).toBe(
      false,
    );
  });
});
