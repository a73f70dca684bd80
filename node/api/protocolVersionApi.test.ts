/**
 * A node's API surface follows the protocol version its services were built with (the node's `protocol` config):
 * one in-process bidder node per version, served over real HTTP and gRPC, its bids committed by an in-process
 * provider. v1.2: SendBid takes and echoes bidOptions (HTTP, and gRPC fields 9 and 14) and an empty slash amount is
 * the bid's amount (HTTP and gRPC), GetBidInfo has `bidOptions: null` on each bid, Subscribe takes the v1.2 topics,
 * and the OpenAPI document says so.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import Ajv from "ajv";
import protobuf from "protobufjs";
import { NdjsonStream } from "../clients/ndjson.ts";
import { Bidder, BidSchema, CommitmentSchema } from "../gen/proto/bidderapi/v1/bidderapi_pb.ts";
import { Notifications } from "../gen/proto/notificationsapi/v1/notifications_pb.ts";
import { GrpcCallError, GrpcClient } from "../grpc/client.ts";
import { Notifier } from "../notify/notifier.ts";
import { parseBidRequestText } from "../protocol/bidValidation.ts";
import { InvalidArgumentError } from "../protocol/grpcCodes.ts";
import { initCrypto } from "../protocol/initCrypto.ts";
import type { ProtocolVersion } from "../protocol/protocolVersion.ts";
import { rulesOf } from "../protocol/rules.ts";
import { type NodeServer, serveNode } from "../server/nodeServer.ts";
import { DebugService } from "../services/debugService.ts";
import { NotificationsService } from "../services/notificationsService.ts";
import { ValidatorApiService } from "../services/validatorApiService.ts";
import { InProcessBidders } from "../testing/inProcessBidders.ts";
import { setLogSink } from "../util/log.ts";

setLogSink(() => {});

const OPTIONS = { options: [{ positionConstraint: { anchor: "ANCHOR_BOTTOM", basis: "BASIS_ABSOLUTE", value: 2 } }] };

const bidders = new InProcessBidders();
const nodes: NodeServer[] = [];
const clients: GrpcClient<never>[] = [];

beforeAll(async () => {
  await initCrypto();
});

afterAll(async () => {
  for (const c of clients) c.close();
  for (const n of nodes) await n.stop();
  bidders.close();
});

/** A bidder node's services of `protocol`, served, with one in-process provider that commits to every bid. */
async function bidderNode(protocol: ProtocolVersion) {
  const { address, network, service, received } = bidders.bidder(rulesOf(protocol));
  const served = await serveNode(
    {
      role: "bidder",
      address,
      bidder: service,
      notifications: new NotificationsService(new Notifier(), rulesOf(protocol)),
      validator: new ValidatorApiService({ currentEpoch: async () => 1n, getValidators: async () => new Map() }),
      debug: new DebugService(network, address, "bidder"),
    },
    { host: "127.0.0.1", httpPort: 0, rpcPort: 0 },
    `bidder ${protocol}`,
  );
  nodes.push(served);
  const grpc = <S extends typeof Bidder | typeof Notifications>(service: S) => {
    const c = new GrpcClient(service, served.rpcUrl);
    clients.push(c as never);
    return c;
  };
  return { url: served.url, grpc, received };
}

/** bidderapi.v1's v1.2 fields built independently by protobufjs from their numbers (upstream-head-delta §1.2). */
const v12 = protobuf.Root.fromJSON({
  nested: {
    PositionConstraint: {
      fields: { anchor: { type: "int32", id: 1 }, basis: { type: "int32", id: 2 }, value: { type: "int32", id: 3 } },
    },
    BidOption: { fields: { positionConstraint: { type: "PositionConstraint", id: 1 } } },
    BidOptions: { fields: { options: { rule: "repeated", type: "BidOption", id: 1 } } },
    Bid: { fields: { bidOptions: { type: "BidOptions", id: 9 } } },
    Commitment: { fields: { bidAmount: { type: "string", id: 2 }, bidOptions: { type: "BidOptions", id: 14 } } },
  },
});
const V12_OPTIONS = { options: [{ positionConstraint: { anchor: 2, basis: 2, value: 2 } }] };

/** A gRPC SendBid request whose wire bytes carry field 9, as a v1.2 client sends it. */
function grpcBidWithOptions(amount: string, block: bigint) {
  const req = create(BidSchema, {
    txHashes: ["cd".repeat(32)],
    amount,
    blockNumber: block,
    decayStartTimestamp: 1n,
    decayEndTimestamp: 2n,
  });
  const Bid = v12.lookupType("Bid");
  const field9 = Bid.encode(Bid.fromObject({ bidOptions: V12_OPTIONS })).finish();
  const base = toBinary(BidSchema, req);
  const bytes = new Uint8Array(base.length + field9.length);
  bytes.set(base);
  bytes.set(field9, base.length);
  return bytes;
}

async function post(url: string, body: unknown) {
  const stream = await NdjsonStream.open<Record<string, unknown>>("POST", url, body);
  const lines = await stream.all();
  return { status: stream.status, lines };
}

const bid = (amount: string, block: number) => ({
  txHashes: ["cd".repeat(32)],
  amount,
  blockNumber: String(block),
  decayStartTimestamp: "1",
  decayEndTimestamp: "2",
});

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe("the API of a node follows its protocol version", () => {
  test("v1.2: SendBid echoes bidOptions, GetBidInfo has bidOptions null on each bid, gRPC signs v1.2 bids", async () => {
    const node = await bidderNode("v1.2");
    const sent = await post(`${node.url}/v1/bidder/bid`, { ...bid("700", 11), bidOptions: OPTIONS });
    expect(sent.status).toBe(200);
    expect(sent.lines.map((l) => ("result" in l ? l.result.bidOptions : l))).toEqual([OPTIONS]);
    await post(`${node.url}/v1/bidder/bid`, bid("600", 11));

    // gRPC SendBid on a v1.2 node: the request names no version, the node's is used (empty slash amount = amount).
    const overGrpc = await collect(
      node.grpc(Bidder).serverStream("sendBid", {
        ...bid("500", 12),
        blockNumber: 12n,
        decayStartTimestamp: 1n,
        decayEndTimestamp: 2n,
      }),
    );
    expect(overGrpc.map((c) => c.slashAmount)).toEqual(["500"]);

    // gRPC SendBid with field 9: the options are signed and sent with the bid, and echoed in field 14.
    const bytes = grpcBidWithOptions("400", 12n);
    const withOptions = await collect(node.grpc(Bidder).serverStream("sendBid", fromBinary(BidSchema, bytes)));
    const Commitment = v12.lookupType("Commitment");
    expect(
      withOptions.map((c) =>
        Commitment.toObject(Commitment.decode(toBinary(CommitmentSchema, c)), { defaults: false }),
      ),
    ).toEqual([{ bidAmount: "400", bidOptions: V12_OPTIONS }]);
    expect(Buffer.from(node.received.at(-1)!.bid.bid.bidOptions!).toString("hex")).toBe("0a080a06080210021802");

    const info = await (await fetch(`${node.url}/v1/bidder/get_bid_info`)).json();
    const bids = (info as { blockBidInfo: { bids: Record<string, unknown>[] }[] }).blockBidInfo.flatMap((b) => b.bids);
    expect(bids.map((b) => b.bidAmount)).toEqual(["700", "600", "500", "400"]);
    for (const b of bids) {
      expect("bidOptions" in b).toBe(true);
      expect(b.bidOptions).toBeNull();
    }
  }, 30_000);

  test("v1.1: SendBid ignores bidOptions, GetBidInfo has no bidOptions, gRPC keeps 0 for an empty slash amount", async () => {
    const node = await bidderNode("v1.1");
    const sent = await post(`${node.url}/v1/bidder/bid`, { ...bid("700", 11), bidOptions: OPTIONS });
    expect(sent.lines.length).toBe(1);
    expect("bidOptions" in (sent.lines[0] as { result: object }).result).toBe(false);
    const overGrpc = await collect(
      node.grpc(Bidder).serverStream("sendBid", {
        ...bid("500", 12),
        blockNumber: 12n,
        decayStartTimestamp: 1n,
        decayEndTimestamp: 2n,
      }),
    );
    expect(overGrpc.map((c) => c.slashAmount)).toEqual(["0"]);
    const info = (await (await fetch(`${node.url}/v1/bidder/get_bid_info`)).json()) as {
      blockBidInfo: { bids: Record<string, unknown>[] }[];
    };
    const bids = info.blockBidInfo.flatMap((b) => b.bids);
    expect(bids.length).toBe(2);
    for (const b of bids) expect("bidOptions" in b).toBe(false);
  }, 30_000);

  test("Subscribe takes the v1.2 topics on a v1.2 node only, over HTTP and gRPC", async () => {
    for (const version of ["v1.1", "v1.2"] as const) {
      const node = await bidderNode(version);
      const http = await NdjsonStream.open<unknown>("POST", `${node.url}/v1/subscribe`, {
        topics: ["transaction_settled", "other_provider_won_block"],
      });
      const grpc = node.grpc(Notifications).serverStream("subscribe", { topics: ["transaction_payment"] });
      const grpcOutcome = await grpc.opened.then(
        () => "opened",
        (e: unknown) => (e instanceof GrpcCallError ? `${e.code} ${e.details}` : String(e)),
      );
      if (version === "v1.2") {
        expect(http.status).toBe(200);
        expect(grpcOutcome).toBe("opened");
      } else {
        expect(http.status).toBe(400);
        expect(await http.next()).toEqual({
          error: { code: 3, message: "invalid topic: transaction_settled", details: [] },
        });
        expect(grpcOutcome).toBe("3 invalid topic: transaction_payment");
      }
      http.close();
      grpc.cancel();
    }
  }, 30_000);

  test("the OpenAPI document of a v1.2 node has upstream v1.2.5's version and describes bidOptions on the bid, the commitment and GetBidInfo", async () => {
    const schemaText = async (version: ProtocolVersion) => {
      const node = await bidderNode(version);
      const doc = (await (await fetch(`${node.url}/swagger/json`)).json()) as {
        info: { version: string };
        paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
      };
      const send = doc.paths["/v1/bidder/bid"]!.post!;
      const info = doc.paths["/v1/bidder/get_bid_info"]!.get!;
      const subscribe = doc.paths["/v1/subscribe"]!.post!;
      return {
        request: JSON.stringify(send.requestBody),
        commitment: JSON.stringify(send.responses["200"]),
        info: JSON.stringify(info.responses["200"]),
        topics: JSON.stringify(subscribe.requestBody),
        version: doc.info.version,
      };
    };
    const v12 = await schemaText("v1.2");
    const v11 = await schemaText("v1.1");
    for (const part of ["request", "commitment", "info"] as const) {
      expect(v12[part]).toContain('"bidOptions"');
      expect(v11[part]).not.toContain('"bidOptions"');
    }
    expect(v12.request).toContain("positionConstraint");
    expect(v12.topics).toContain("transaction_payment");
    expect(v11.topics).not.toContain("transaction_payment");
    // The document's version: the pinned interface's on v1.1, upstream v1.2.5's on v1.2.
    expect(v11.version).toBe("1.1.6-oas3");
    expect(v12.version).toBe("1.0.0-alpha");
  }, 30_000);

  test("the v1.2 OpenAPI bid accepts the bidOptions the node accepts, and refuses the forms it refuses", async () => {
    const node = await bidderNode("v1.2");
    const doc = (await (await fetch(`${node.url}/swagger/json`)).json()) as {
      paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: object }> } }>>;
    };
    const schema = doc.paths["/v1/bidder/bid"]!.post!.requestBody.content["application/json"]!.schema;
    const validate = new Ajv({ strict: false }).compile(schema);
    const nodeAccepts = (text: string) => {
      try {
        parseBidRequestText(text, rulesOf("v1.2"));
        return true;
      } catch (e) {
        if (e instanceof InvalidArgumentError) return false;
        throw e;
      }
    };
    const cases: [unknown, boolean][] = [
      [OPTIONS, true],
      [null, true],
      [{}, true],
      [{ options: null }, true],
      [{ options: [{}] }, true],
      [{ options: [{ positionConstraint: null }] }, true],
      [{ options: [{ positionConstraint: { anchor: 1, basis: "BASIS_GAS_PERCENTILE", value: "-5" } }] }, true],
      [{ options: [{ positionConstraint: { anchor: "NOT_A_NAME" } }] }, true],
      [{ options: [{ position_constraint: { anchor: 2 } }] }, true],
      [[], false],
      ["top", false],
      [{ options: {} }, false],
      [{ options: [null] }, false],
      [{ options: [{ positionConstraint: [] }] }, false],
      [{ options: [{ positionConstraint: { value: 2147483648 } }] }, false],
      [{ options: [{ positionConstraint: { anchor: true } }] }, false],
    ];
    for (const [options, accepted] of cases) {
      const body = { ...bid("1", 1), bidOptions: options };
      expect(nodeAccepts(JSON.stringify(body)), JSON.stringify(options)).toBe(accepted);
      expect(validate(body), JSON.stringify(options)).toBe(accepted);
    }
  }, 30_000);
});
