import { describe, expect, test } from "bun:test";
import {
  BodyDecodeError,
  FailedPreconditionError,
  GrpcCode,
  grpcCodeName,
  httpStatusOf,
  InternalError,
  InvalidArgumentError,
  NotFoundError,
  RpcError,
  toRpcError,
  UnimplementedError,
} from "./grpcCodes.ts";

describe("gRPC code → HTTP status (api-behaviour §0.4)", () => {
  test("the whole table", () => {
    const table: [number, number][] = [
      [0, 200],
      [1, 499],
      [2, 500],
      [3, 400],
      [4, 504],
      [5, 404],
      [6, 409],
      [7, 403],
      [8, 429],
      [9, 400],
      [10, 409],
      [11, 400],
      [12, 501],
      [13, 500],
      [14, 503],
      [15, 500],
      [16, 401],
      [17, 500],
      [99, 500],
    ];
    for (const [code, status] of table) expect(httpStatusOf(code)).toBe(status);
  });
  test("names", () => {
    expect(grpcCodeName(GrpcCode.FailedPrecondition)).toBe("FailedPrecondition");
    expect(grpcCodeName(42)).toBe("Code(42)");
  });
});

describe("error classes", () => {
  test("carry code, status and body", () => {
    const e = new InvalidArgumentError("empty bid");
    expect(e).toBeInstanceOf(RpcError);
    expect(e.name).toBe("InvalidArgumentError");
    expect(e.httpStatus).toBe(400);
    expect(e.toStatusBody()).toEqual({ code: 3, message: "empty bid", details: [] });
    expect(new FailedPreconditionError("auto deposit is already running").httpStatus).toBe(400);
    expect(new NotFoundError("Not Found").code).toBe(5);
    expect(new UnimplementedError("Method Not Allowed").httpStatus).toBe(501);
    expect(new InternalError("no providers available").httpStatus).toBe(500);
    expect(new BodyDecodeError("unexpected EOF")).toBeInstanceOf(InvalidArgumentError);
  });
  test("plain errors become Unknown", () => {
    const e = toRpcError(new Error("EOF"));
    expect(e.code).toBe(2);
    expect(e.message).toBe("EOF");
    const same = new InternalError("x");
    expect(toRpcError(same)).toBe(same);
  });
});
