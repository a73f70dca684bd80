import { GrpcCode, RpcError } from "../../protocol/grpcCodes.ts";
import { JsonSequenceSplitter, JsonValueTooLongError } from "../../protocol/jsonText.ts";

/**
 * How much a request body may carry, per route (HTTP only; the README's "Request limits" lists them). No single
 * request may hold the event loop that every node of a devnet shares: bodies are read with a byte count and refused
 * as soon as they pass their limit, before anything is parsed.
 */
export const BODY_LIMITS = {
  /** SendBid: upstream's gRPC servers refuse messages above 4 MiB (grpc-go's default), which bounds the JSON too. */
  bid: 4 * 1024 * 1024,
  /** SendProcessedBids: each decision object; the body itself is a stream and has no total. */
  decision: 64 * 1024,
  /** Subscribe, WithdrawFromWindows. */
  small: 64 * 1024,
} as const;

/**
 * A body above its route's limit: ResourceExhausted (what a gRPC server answers for a message above its maximum)
 * with HTTP 413 instead of grpc-gateway's 429, since the client must send less, not wait.
 */
export class PayloadTooLargeError extends RpcError {
  override name = "PayloadTooLargeError";
  constructor(message: string) {
    super(GrpcCode.ResourceExhausted, message);
  }
  override get httpStatus(): number {
    return 413;
  }
}

function tooLarge(what: string, limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`${what} is larger than ${limit} bytes, the most this route accepts; send less`);
}

/**
 * The body as text, refused with PayloadTooLargeError beyond `limit` bytes (declared or counted). A body whose length
 * is declared within the limit is read whole (the HTTP framing holds it to that length); only a chunked one is read
 * piece by piece with a count. Bun 1.4.5 allocates ~256 KiB for the first read of a declared-length body through a
 * stream reader: once per SendBid, that was half of what the event loop's heap allocated, and a garbage collection
 * every ~30 bids.
 */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const length = request.headers.get("content-length");
  const declared = length === null ? NaN : Number(length);
  if (declared > limit) throw tooLarge("the request body", limit);
  if (declared >= 0) return await request.text();
  const reader = request.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, bytes).toString("utf8");
    bytes += value.byteLength;
    if (bytes > limit) {
      void reader.cancel().catch(() => {});
      throw tooLarge("the request body", limit);
    }
    chunks.push(value);
  }
}

/**
 * The top-level JSON values of a streamed body (NDJSON or concatenated), each as its own text, as soon as it is
 * complete: read in linear time however the body is cut into chunks. A value above `maxValueBytes` characters ends
 * the body with PayloadTooLargeError; an unfinished value at the end comes out as is (its reader reports it).
 */
export async function* jsonValuesOf(request: Request, maxValueBytes: number): AsyncGenerator<string> {
  const reader = request.body?.getReader();
  if (!reader) return;
  const decoder = new TextDecoder();
  const splitter = new JsonSequenceSplitter(maxValueBytes);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      try {
        yield* splitter.push(text);
      } catch (e) {
        if (e instanceof JsonValueTooLongError) throw tooLarge("a JSON object of the body", maxValueBytes);
        throw e;
      }
      if (done) break;
    }
    const rest = splitter.end();
    if (rest !== undefined) yield rest;
  } finally {
    void reader.cancel().catch(() => {});
  }
}
