import { t } from "elysia";

/**
 * Helpers for the OpenAPI documentation of routes. Routes parse their own input (upstream's validation texts),
 * so schemas here document the wire format; they do not validate.
 */
// OpenAPI objects are passed to Elysia's `detail`, typed loosely on purpose: they are documentation.
type Doc = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export function queryParam(name: string, description: string, type: "string" | "boolean" | "integer" = "string"): Doc {
  return { name, in: "query", required: false, schema: { type }, description };
}

export function pathParam(name: string, description: string, pattern?: string): Doc {
  return { name, in: "path", required: true, schema: { type: "string", ...(pattern ? { pattern } : {}) }, description };
}

export function jsonBody(schema: unknown, description?: string): Doc {
  return { required: true, description, content: { "application/json": { schema } } };
}

export const Status = t.Object({
  code: t.Integer({ description: "gRPC status code" }),
  message: t.String(),
  details: t.Array(t.Object({ "@type": t.String() }, { additionalProperties: true })),
});

/** `responses` of a unary operation: 200 with `ok`, otherwise the status body with a mapped HTTP status. */
export function unaryResponses(ok: unknown, description = "OK"): Doc {
  return {
    200: { description, content: { "application/json": { schema: ok } } },
    default: { description: "gRPC status mapped to HTTP (400 InvalidArgument/FailedPrecondition, 500 Internal, …)", content: { "application/json": { schema: Status } } },
  };
}

/** `responses` of a server stream: newline-delimited `{"result":…}` lines, `{"error":…}` on failure. */
export function streamResponses(item: unknown, description: string): Doc {
  return {
    200: {
      description: `${description} A stream: one JSON object per line, {"result": <item>} or a final {"error": <status>}.`,
      content: { "application/json": { schema: t.Object({ result: item as never, error: t.Optional(Status) }) } },
    },
    default: { description: "failure before the first message: {\"error\": <status>} with a mapped HTTP status", content: { "application/json": { schema: t.Object({ error: Status }) } } },
  };
}
