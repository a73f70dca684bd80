import { BodyDecodeError, GrpcCode, toRpcError } from "../../protocol/grpcCodes.ts";
import { PayloadTooLargeError } from "./limits.ts";

const JSON_HEADERS = { "content-type": "application/json" };

/** A unary error: bare status body, HTTP status mapped from the gRPC code. */
export function unaryErrorResponse(err: unknown): Response {
  const e = toRpcError(err);
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (e.code === GrpcCode.Unauthenticated) headers["www-authenticate"] = "Bearer";
  return new Response(JSON.stringify(e.toStatusBody()), { status: e.httpStatus, headers });
}

/** A stream that fails before its first message: the `{"error":…}` envelope line, HTTP status mapped. */
export function streamErrorResponse(err: unknown): Response {
  const e = toRpcError(err);
  return new Response(`${JSON.stringify({ error: e.toStatusBody() })}\n`, {
    status: e.httpStatus,
    headers: JSON_HEADERS,
  });
}

/**
 * A streaming call that fails before it starts: a body that does not decode or is too large is refused before the
 * call (grpc-gateway), so in the unary format; anything else in the stream envelope.
 */
export function streamStartErrorResponse(err: unknown): Response {
  return err instanceof BodyDecodeError || err instanceof PayloadTooLargeError
    ? unaryErrorResponse(err)
    : streamErrorResponse(err);
}

/** Success for a unary call; grpc-gateway also forwards the gRPC content type as a header. */
export function unaryResponse(body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status: 200,
    headers: { ...JSON_HEADERS, "grpc-metadata-content-type": "application/grpc" },
  });
}
