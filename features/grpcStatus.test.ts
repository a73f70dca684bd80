import { describe, expect, test } from "bun:test";
import { sameGrpcStatus } from "./support/grpcStatus.ts";

const invalidEmptyTopic = '{"error":{"code":3,"message":"invalid topic: ","details":[]}}';

describe("sameGrpcStatus", () => {
  test("a message that arrived whole, percent-decoded (grpc-js), matches", () => {
    expect(sameGrpcStatus(`${invalidEmptyTopic}\n`, invalidEmptyTopic)).toBe(true);
  });

  test("a trailing-space message whose trailer the client's HTTP/2 layer dropped is judged on the code", () => {
    expect(sameGrpcStatus('{"error":{"code":3,"message":"","details":[]}}\n', invalidEmptyTopic)).toBe(true);
    expect(sameGrpcStatus('{"error":{"code":13,"message":"","details":[]}}\n', invalidEmptyTopic)).toBe(false);
  });

  test("outer whitespace aside, the message must be the expected one", () => {
    expect(sameGrpcStatus('{"error":{"code":3,"message":"invalid topic:","details":[]}}', invalidEmptyTopic)).toBe(
      true,
    );
    expect(sameGrpcStatus('{"error":{"code":3,"message":"invalid topic: x","details":[]}}', invalidEmptyTopic)).toBe(
      false,
    );
  });

  test("an empty message is no match when the expected one has no outer whitespace", () => {
    const nope = '{"error":{"code":3,"message":"invalid topic: nope","details":[]}}';
    expect(sameGrpcStatus('{"error":{"code":3,"message":"","details":[]}}', nope)).toBe(false);
  });

  test("a body that is no status envelope never matches", () => {
    expect(sameGrpcStatus("not json", invalidEmptyTopic)).toBe(false);
    expect(sameGrpcStatus('{"result":{}}', invalidEmptyTopic)).toBe(false);
  });
});
