/**
 * SendBid's bid options over a bidder node's real gRPC server (its services of a protocol version, a real BidSender
 * and an in-process provider that verifies and commits to every bid), with grpc-js clients:
 * v1.2 signs the request's options (field 9) with the bid and echoes them on each commitment (field 14); field 9
 * that does not decode is grpc-go's Internal and sends nothing; v1.1 ignores field 9, decodable or not.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import * as grpc from "@grpc/grpc-js";
import * as bidderPb from "../gen/proto/bidderapi/v1/bidderapi_pb.ts";
import * as bidderV12Pb from "../gen/proto/v1.2/bidderapi/v1/bidderapi_pb.ts";
import { Notifier } from "../notify/notifier.ts";
import { encodeBidOptions } from "../protocol/bidOptions.ts";
import { GrpcCode } from "../protocol/grpcCodes.ts";
import { initCrypto } from "../protocol/initCrypto.ts";
import type { ProtocolVersion } from "../protocol/protocolVersion.ts";
import { rulesOf } from "../protocol/rules.ts";
import { DebugService } from "../services/debugService.ts";
import { NotificationsService } from "../services/notificationsService.ts";
import { ValidatorApiService } from "../services/validatorApiService.ts";
import { InProcessBidders } from "../testing/inProcessBidders.ts";
import { rawServerStream } from "../testing/rawGrpc.ts";
import { setLogSink } from "../util/log.ts";
import { GrpcCallError, GrpcClient, grpcTarget } from "./client.ts";
import { type ServedGrpc, serveGrpc } from "./server.ts";

setLogSink(() => {});

const bidders = new InProcessBidders();
const servers: ServedGrpc[] = [];
const closers: (() => void)[] = [];

beforeAll(async () => {
  await initCrypto();
});

afterAll(async () => {
  for (const c of closers) c();
  for (const s of servers) await s.stop();
  bidders.close();
});

/** A bidder node of `protocol` serving gRPC. */
async function bidderNode(protocol: ProtocolVersion) {
  const { address, network, service, received } = bidders.bidder(rulesOf(protocol));
  const served = await serveGrpc(
    {
      role: "bidder",
      address,
      bidder: service,
      notifications: new NotificationsService(new Notifier(), rulesOf(protocol)),
      validator: new ValidatorApiService({ currentEpoch: async () => 1n, getValidators: async () => new Map() }),
      debug: new DebugService(network, address, "bidder"),
    },
    { host: "127.0.0.1", port: 0 },
    `bidder ${protocol}`,
  );
  servers.push(served);
  return { url: served.url, address, received };
}

const BID = {
  txHashes: ["cd".repeat(32)],
  amount: "400",
  blockNumber: 12n,
  decayStartTimestamp: 1n,
  decayEndTimestamp: 2n,
};

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** SendBid with raw request bytes; the commitments' bytes, or the final status. */
function rawSendBid(url: string, bytes: Uint8Array): Promise<{ messages: Buffer[]; error?: grpc.ServiceError }> {
  const t = grpcTarget(url);
  const client = new grpc.Client(t.address, t.credentials);
  closers.push(() => client.close());
  return rawServerStream(client, "/bidderapi.v1.Bidder/SendBid", bytes);
}

/** A v1.1 Bid's bytes followed by field 9 holding `field9`. */
function withField9(field9: Uint8Array): Uint8Array {
  const base = toBinary(bidderPb.BidSchema, create(bidderPb.BidSchema, BID));
  return Uint8Array.from([...base, ...new BinaryWriter().tag(9, 2).bytes(field9).finish()]);
}

const OPTIONS = create(bidderV12Pb.BidOptionsSchema, {
  options: [
    {
      opt: {
        case: "positionConstraint",
        value: {
          anchor: bidderV12Pb.PositionConstraint_Anchor.BOTTOM,
          basis: bidderV12Pb.PositionConstraint_Basis.ABSOLUTE,
          value: 2,
        },
      },
    },
  ],
});
const OPTIONS_BYTES = encodeBidOptions({ options: [{ positionConstraint: { anchor: 2, basis: 2, value: 2 } }] });

describe("SendBid's bid options over gRPC", () => {
  test("v1.2: the options are signed with the bid and echoed on each commitment; none, none echoed", async () => {
    const node = await bidderNode("v1.2");
    const client = new GrpcClient(bidderV12Pb.Bidder, node.url);
    closers.push(() => client.close());

    const withOptions = await collect(client.serverStream("sendBid", { ...BID, bidOptions: OPTIONS }));
    expect(withOptions.length).toBe(1);
    expect(toBinary(bidderV12Pb.BidOptionsSchema, withOptions[0]!.bidOptions!)).toEqual(Uint8Array.from(OPTIONS_BYTES));
    const sent = node.received.at(-1)!;
    expect(sent.bid.bid.bidOptions).toEqual(OPTIONS_BYTES);
    // The provider recovered the bidder from a signature over the v1.2 digest, options included.
    expect(sent.bidder).toBe(node.address);
    expect(withOptions[0]!.receivedBidDigest).toBe(Buffer.from(sent.bid.digest).toString("hex"));

    const without = await collect(client.serverStream("sendBid", BID));
    expect(without.length).toBe(1);
    expect(without[0]!.bidOptions).toBeUndefined();
    expect(node.received.at(-1)!.bid.bid.bidOptions).toEqual(new Uint8Array(0));

    // Empty options: signed as zero bytes, echoed as a present, empty message.
    const empty = await rawSendBid(node.url, withField9(new Uint8Array(0)));
    expect(empty.error).toBeUndefined();
    expect(fromBinary(bidderV12Pb.CommitmentSchema, empty.messages[0]!).bidOptions?.options).toEqual([]);
    expect(node.received.length).toBe(3);
  }, 60_000);

  test("v1.2: field 9 that does not decode is Internal with grpc-go's text, and no bid is sent", async () => {
    const node = await bidderNode("v1.2");
    const r = await rawSendBid(node.url, withField9(Uint8Array.from([0x0a, 0x05, 0x0a])));
    expect(r.messages).toEqual([]);
    expect([r.error?.code, r.error?.details]).toEqual([
      GrpcCode.Internal,
      "grpc: failed to unmarshal the received message: proto: cannot parse invalid wire-format data",
    ]);
    expect(node.received).toEqual([]);
  }, 60_000);

  test("v1.1: field 9 is ignored, decodable or not; commitments have no field 14", async () => {
    const node = await bidderNode("v1.1");
    for (const field9 of [OPTIONS_BYTES, Uint8Array.from([0x0a, 0x05, 0x0a])]) {
      const r = await rawSendBid(node.url, withField9(field9));
      expect(r.error).toBeUndefined();
      expect(r.messages.length).toBe(1);
      const c = fromBinary(bidderV12Pb.CommitmentSchema, r.messages[0]!);
      expect(c.bidAmount).toBe("400");
      expect(c.bidOptions).toBeUndefined();
      expect(node.received.at(-1)!.bid.bid.bidOptions).toBeUndefined();
    }
    expect(node.received.length).toBe(2);
    // A v1.2 method is not served on a v1.1 node.
    const v12 = new GrpcClient(bidderV12Pb.Bidder, node.url);
    closers.push(() => v12.close());
    const e = await v12.unary("getAllDeposits").catch((x) => x);
    expect(e).toBeInstanceOf(GrpcCallError);
    expect((e as GrpcCallError).code).toBe(GrpcCode.Unimplemented);
  }, 60_000);
});
