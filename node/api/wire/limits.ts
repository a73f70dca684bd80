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

/** The request's Content-Length, or NaN for a body without one (chunked). */
function declaredLength(request: Request): number {
  const length = request.headers.get("content-length");
  return length === null ? NaN : Number(length);
}

/**
 * The body as text, refused with PayloadTooLargeError beyond `limit` bytes (declared or counted). A body whose length
 * is declared within the limit is read whole (the HTTP framing holds it to that length); only a chunked one is read
 * piece by piece with a count. Bun 1.4.5 allocates ~256 KiB for the first read of a declared-length body through a
 * stream reader: once per SendBid, that was half of what the event loop's heap allocated, and a garbage collection
 * every ~30 bids.
 */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = declaredLength(request);
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

/** A body of declared length up to this size is read whole by jsonValuesOf (the ~256 KiB read readBodyText avoids). */
const READ_WHOLE_MAX = 1024 * 1024;

/**
 * The top-level JSON values of a streamed body (NDJSON or concatenated), each as its own text, as soon as it is
 * complete: read in linear time however the body is cut into chunks. A value above `maxValueBytes` characters ends
 * the body with PayloadTooLargeError; an unfinished value at the end comes out as is (its reader reports it). A body
 * of declared length up to READ_WHOLE_MAX (a POST per decision) is read whole first: its sender had it all already.
 */
export async function* jsonValuesOf(request: Request, maxValueBytes: number): AsyncGenerator<string> {
  const splitter = new JsonSequenceSplitter(maxValueBytes);
  function* values(text: string): Generator<string> {
    try {
      yield* splitter.push(text);
    } catch (e) {
      if (e instanceof JsonValueTooLongError) throw tooLarge("a JSON object of the body", maxValueBytes);
      throw e;
    }
  }
  const declared = declaredLength(request);
  if (declared >= 0 && declared <= READ_WHOLE_MAX) yield* values(await request.text());
  else {
    const reader = request.body?.getReader();
    if (!reader) return;
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        yield* values(done ? decoder.decode() : decoder.decode(value, { stream: true }));
        if (done) break;
      }
    } finally {
      void reader.cancel().catch(() => {});
    }
  }
  const rest = splitter.end();
  if (rest !== undefined) yield rest;
}
