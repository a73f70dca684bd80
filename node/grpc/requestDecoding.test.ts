/**
 * A request whose bytes do not decode answers grpc-go's status (Internal, its text for the method's kind), over a
 * real grpc-js server with the node's service definitions and call shapes, and a grpc-js client that sends raw
 * bytes. grpc-js alone would answer Internal "Error deserializing request".
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import * as grpc from "@grpc/grpc-js";
import * as providerPb from "../gen/proto/providerapi/v1/providerapi_pb.ts";
import * as bidderV12Pb from "../gen/proto/v1.2/bidderapi/v1/bidderapi_pb.ts";
import { GrpcCode } from "../protocol/grpcCodes.ts";
import { rawServerStream } from "../testing/rawGrpc.ts";
import { setLogSink } from "../util/log.ts";
import { clientStream, serverStream, unary } from "./handlers.ts";
import { serviceDefinition } from "./serviceDefinition.ts";

setLogSink(() => {});

const UNARY = "grpc: error unmarshalling request";
const STREAM = "grpc: failed to unmarshal the received message";
const WIRE = "proto: cannot parse invalid wire-format data";

/** What each handler was given. */
const seen = { unary: [] as unknown[], sendBid: [] as bidderV12Pb.Bid[], decisions: [] as providerPb.BidResponse[] };
const server = new grpc.Server();
let client: grpc.Client;

beforeAll(async () => {
  server.addService(serviceDefinition(providerPb.Provider), {
    GetCommitmentInfo: unary("GetCommitmentInfo", (r: providerPb.GetCommitmentInfoRequest) => {
      seen.unary.push(r);
      return create(providerPb.CommitmentInfoResponseSchema);
    }),
    SendProcessedBids: clientStream("SendProcessedBids", async (reqs: AsyncIterable<providerPb.BidResponse>) => {
      for await (const r of reqs) seen.decisions.push(r);
      return create(providerPb.EmptyMessageSchema);
    }),
  });
  server.addService(serviceDefinition(bidderV12Pb.Bidder), {
    SendBid: serverStream("SendBid", (r: bidderV12Pb.Bid) => {
      seen.sendBid.push(r);
      return {
        messages: (async function* () {
          yield create(bidderV12Pb.CommitmentSchema, { bidAmount: r.amount });
        })(),
      };
    }),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
});

afterAll(() => {
  client.close();
  server.forceShutdown();
});

const raw = (b: Buffer) => b;

function unaryCall(path: string, bytes: Uint8Array): Promise<grpc.ServiceError | Buffer> {
  return new Promise((resolve) =>
    client.makeUnaryRequest(path, raw, raw, Buffer.from(bytes), (e, res) => resolve(e ?? res!)),
  );
}

const serverStreamCall = (path: string, bytes: Uint8Array) => rawServerStream(client, path, bytes);

function clientStreamCall(path: string, messages: Uint8Array[]): Promise<grpc.ServiceError | Buffer> {
  return new Promise((resolve) => {
    const call = client.makeClientStreamRequest(path, raw, raw, (e, res) => resolve(e ?? res!));
    for (const m of messages) call.write(Buffer.from(m));
    call.end();
  });
}

/** A v1.2 Bid with `amount`, then field 9 holding `field9` (its bytes as sent, well-formed or not). */
function bidBytes(amount: Uint8Array, field9?: Uint8Array): Uint8Array {
  const w = new BinaryWriter().tag(2, 2).bytes(amount);
  if (field9) w.tag(9, 2).bytes(field9);
  return w.finish();
}

const utf8 = (s: string) => new TextEncoder().encode(s);

describe("a request that does not decode", () => {
  test("unary: Internal, grpc-go's unary text; the handler is not called", async () => {
    const ok = await unaryCall("/providerapi.v1.Provider/GetCommitmentInfo", Uint8Array.from([0x08, 0x05]));
    expect(ok).toBeInstanceOf(Buffer);
    expect(seen.unary.length).toBe(1);
    // A tag of wire type 7 (none such).
    const e = (await unaryCall(
      "/providerapi.v1.Provider/GetCommitmentInfo",
      Uint8Array.from([0x0f]),
    )) as grpc.ServiceError;
    expect([e.code, e.details]).toEqual([GrpcCode.Internal, `${UNARY}: ${WIRE}`]);
    expect(seen.unary.length).toBe(1);
  });

  test("SendBid (server stream): field 9 that does not decode is grpc-go's streaming text; nothing is sent", async () => {
    const good = await serverStreamCall(
      "/bidderapi.v1.Bidder/SendBid",
      bidBytes(utf8("5"), Uint8Array.from([0x0a, 0x02, 0x0a, 0x00])),
    );
    expect(good.error).toBeUndefined();
    expect(good.messages.length).toBe(1);
    expect(seen.sendBid.length).toBe(1);
    expect(seen.sendBid[0]!.bidOptions?.options.length).toBe(1);

    // The option's length says 5 bytes, 1 follows.
    const truncated = await serverStreamCall(
      "/bidderapi.v1.Bidder/SendBid",
      bidBytes(utf8("5"), Uint8Array.from([0x0a, 0x05, 0x0a])),
    );
    expect(truncated.messages).toEqual([]);
    expect([truncated.error?.code, truncated.error?.details]).toEqual([GrpcCode.Internal, `${STREAM}: ${WIRE}`]);
    expect(seen.sendBid.length).toBe(1);
  });

  test("a proto3 string that is not UTF-8: protobuf-go's text", async () => {
    const r = await serverStreamCall("/bidderapi.v1.Bidder/SendBid", bidBytes(Uint8Array.from([0xff, 0xfe])));
    expect([r.error?.code, r.error?.details]).toEqual([
      GrpcCode.Internal,
      `${STREAM}: string field contains invalid UTF-8`,
    ]);
    expect(seen.sendBid.length).toBe(1);
  });

  test("client stream: the messages before it are handled, then the call ends with grpc-go's streaming text", async () => {
    const decision = toBinary(
      providerPb.BidResponseSchema,
      create(providerPb.BidResponseSchema, { bidDigest: Uint8Array.from([1, 2]), status: 1 }),
    );
    const e = (await clientStreamCall("/providerapi.v1.Provider/SendProcessedBids", [
      decision,
      Uint8Array.from([0x0a, 0x09, 0x01]),
      decision,
    ])) as grpc.ServiceError;
    expect([e.code, e.details]).toEqual([GrpcCode.Internal, `${STREAM}: ${WIRE}`]);
    expect(seen.decisions.map((d) => [...d.bidDigest])).toEqual([[1, 2]]);
  });
});
