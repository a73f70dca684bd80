import { t } from "elysia";

/**
 * Helpers for the OpenAPI documentation of routes. Routes parse their own input (upstream's validation texts),
 * so schemas here document the wire format; they do not validate.
 */
// biome-ignore lint/suspicious/noExplicitAny: OpenAPI objects passed to Elysia's `detail` are documentation, typed loosely on purpose
type Doc = any;

const UINT64_MAX = Number(2n ** 64n - 1n); // JSON cannot hold it exactly: the document says 18446744073709552000
const INT64_MAX = Number(2n ** 63n - 1n);

/**
 * A pattern of exactly the decimals from 1 to `max` without leading zeros: any shorter than max, or as long and, at
 * the first digit where they differ, smaller (one alternative per digit of max).
 */
export function positiveDecimalAtMostPattern(max: bigint): string {
  const m = max.toString();
  const alternatives = [m.length > 1 ? `[1-9][0-9]{0,${m.length - 2}}` : ""].filter(Boolean);
  for (let i = 0; i < m.length; i++) {
    const d = Number(m[i]);
    const lowest = i === 0 ? 1 : 0;
    if (d - 1 < lowest) continue;
    const rest = m.length - 1 - i;
    alternatives.push(`${m.slice(0, i)}[${lowest}-${d - 1}]${rest ? `[0-9]{${rest}}` : ""}`);
  }
  alternatives.push(m);
  return `^(${alternatives.join("|")})$`;
}

/** `positiveDecimalAtMostPattern` without its anchors, to build larger patterns from. */
function positiveDecimalAtMost(max: bigint): string {
  return positiveDecimalAtMostPattern(max).slice(1, -1);
}

/**
 * A positive integer as protojson reads it from a JSON string: a decimal from 1 to `max` without leading zeros, with
 * an optional fraction of zeros ("5.0"). protojson also reads exponent spellings ("5e0", "0.5e1"); the pattern leaves
 * them out (the description names them), since a pattern that took them would take many out of range too.
 */
function positiveIntegerTextPattern(max: bigint): string {
  return `^${positiveDecimalAtMost(max)}(\\.0+)?$`;
}

/**
 * protojson's int64 as a string: a decimal from -2^63 to 2^63-1 without leading zeros, with an optional fraction of
 * zeros (exponent spellings left out, as for positiveIntegerTextPattern).
 */
const INT64_TEXT = `^(-?0|-?${positiveDecimalAtMost(2n ** 63n - 1n)}|-9223372036854775808)(\\.0+)?$`;

/** A decimal of at most `max` with any leading zeros (strconv.ParseUint's digits), or the empty string. */
export function optionalDecimalAtMostPattern(max: bigint): string {
  return `^(0*${positiveDecimalAtMost(max)}|0+)?$`;
}

/**
 * JSON Schemas of the wire's scalar forms, bounded as the node's validation bounds them. Where a bound cannot be
 * written exactly (2^64-1 is not a JSON double; protojson also reads "1e3" as an integer), the schema is the
 * smallest superset that can: nothing the node accepts violates it.
 */
export const Wire = {
  /** A uint64 query value (grpc-gateway parses it with strconv.ParseUint). */
  uint: (minimum = 0) => ({ type: "integer", minimum, maximum: UINT64_MAX }),
  int32NonNegative: { type: "integer", minimum: 0, maximum: 2147483647 },
  int64: { type: "integer", minimum: -INT64_MAX - 1, maximum: INT64_MAX },
  /** An amount in wei: a decimal from 1 to 2^256-1 without leading zeros. */
  wei: {
    type: "string",
    pattern: positiveDecimalAtMostPattern(2n ** 256n - 1n),
    description: "wei, a positive decimal that fits in a uint256 (1 to 2^256-1)",
  },
  /** An int64 body field the node requires positive: a JSON number, or a string protojson reads as one. */
  positiveInt64: (description: string) => ({
    description: `${description}; a positive JSON integer or a decimal string (protojson also reads "1e3" and "1000.0")`,
    anyOf: [
      { type: "integer", minimum: 1, maximum: INT64_MAX },
      { type: "string", pattern: positiveIntegerTextPattern(2n ** 63n - 1n) },
    ],
  }),
  /** A uint64 body value the node requires positive: a JSON number, or a string protojson reads as one. */
  positiveUint64Json: (description: string) => ({
    description: `${description}; a positive JSON integer or a decimal string (protojson also reads "1e3" and "1000.0")`,
    anyOf: [
      { type: "integer", minimum: 1, maximum: UINT64_MAX },
      { type: "string", pattern: positiveIntegerTextPattern(2n ** 64n - 1n) },
    ],
  }),
  /** Any int64 body field. */
  int64Json: (description: string) => ({
    description: `${description}; a JSON integer or a decimal string (protojson also reads "1e3" and "1000.0")`,
    anyOf: [
      { type: "integer", minimum: -INT64_MAX - 1, maximum: INT64_MAX },
      { type: "string", pattern: INT64_TEXT },
    ],
  }),
} as const;

/** A query parameter; `schema` is a JSON type name or a whole schema. */
export function queryParam(
  name: string,
  description: string,
  schema: "string" | "boolean" | "integer" | Doc = "string",
): Doc {
  return {
    name,
    in: "query",
    required: false,
    schema: typeof schema === "string" ? { type: schema } : schema,
    description,
  };
}

/** `block_number`, `page` and `limit` of GetBidInfo and GetCommitmentInfo. */
export function pagingParams(defaultLimit: number, maxLimit: number): Doc[] {
  return [
    queryParam(
      "block_number",
      "only this L1 block (exact match; also blockNumber); 0 or absent: every block",
      Wire.int64,
    ),
    queryParam("page", "page number, from 0 (default 0)", Wire.int32NonNegative),
    queryParam("limit", `commitments per page, 0…${maxLimit} (0 or absent: ${defaultLimit})`, {
      type: "integer",
      minimum: 0,
      maximum: maxLimit,
    }),
  ];
}

/** A repeated query parameter (`?k=a&k=b`). */
export function repeatedQueryParam(name: string, description: string, item: Doc): Doc {
  return {
    name,
    in: "query",
    required: false,
    style: "form",
    explode: true,
    schema: { type: "array", items: item },
    description,
  };
}

export function pathParam(name: string, description: string, schema: Doc = { type: "string" }): Doc {
  return { name, in: "path", required: true, schema, description };
}

/**
 * An object schema whose optional properties are nullable: protojson reads `null` as "unset". A required property
 * stays non-nullable, since unset is what the node refuses for it. The branches of an `anyOf`, nested messages and
 * the items of repeated messages are treated alike (an item itself is never null).
 */
function nullableWhereOptional(schema: unknown): unknown {
  const s = schema as { properties?: Record<string, object>; required?: string[]; anyOf?: unknown[]; items?: unknown };
  if (s.anyOf) return { ...s, anyOf: s.anyOf.map(nullableWhereOptional) };
  if (s.items) return { ...s, items: nullableWhereOptional(s.items) };
  if (!s.properties) return schema;
  const required = new Set(s.required ?? []);
  return {
    ...s,
    properties: Object.fromEntries(
      Object.entries(s.properties).map(([k, v]) => {
        const inner = nullableWhereOptional(v) as object;
        return [k, required.has(k) ? inner : nullable(inner)];
      }),
    ),
  };
}

/** OpenAPI 3.0's `nullable` only applies beside a `type`: a schema of alternatives gets it on each alternative. */
function nullable(schema: object): object {
  const s = schema as { type?: unknown; anyOf?: object[] };
  if (s.type === undefined && s.anyOf) return { ...s, anyOf: s.anyOf.map(nullable) };
  return { ...s, nullable: true };
}

/** A JSON request body (see nullableWhereOptional). */
export function jsonBody(schema: unknown, description?: string): Doc {
  return { required: true, description, content: { "application/json": { schema: nullableWhereOptional(schema) } } };
}

/** A gRPC status as grpc-gateway writes it. */
export const Status = t.Object(
  {
    code: t.Integer({ description: "gRPC status code", minimum: 1, maximum: 16 }),
    message: t.String(),
    details: t.Array(t.Object({ "@type": t.String() }, { additionalProperties: true })),
  },
  { additionalProperties: false },
);

const ERROR_DESCRIPTION =
  "A gRPC status, HTTP status mapped from its code: 400 InvalidArgument and FailedPrecondition, 404 NotFound (also an unknown path), " +
  "413 a body above the route's limit (ResourceExhausted), 501 Unimplemented (also a method the path does not have), 500 Internal, 503 Unavailable.";

/** `responses` of a unary operation: 200 with `ok`, otherwise the status body with a mapped HTTP status. */
export function unaryResponses(ok: unknown, description = "OK"): Doc {
  return {
    200: { description, content: { "application/json": { schema: ok } } },
    default: { description: ERROR_DESCRIPTION, content: { "application/json": { schema: Status } } },
  };
}

/**
 * `responses` of a server stream: newline-delimited `{"result":…}` lines, `{"error":…}` on failure. A failure
 * before the stream opens is the `{"error":…}` line with a mapped status, except a body that does not decode or is
 * too large, which grpc-gateway refuses before the call: a bare status.
 */
export function streamResponses(item: unknown, description: string): Doc {
  return {
    200: {
      description: `${description} A stream: one JSON object per line, {"result": <item>} or a final {"error": <status>}; blank lines keep an idle stream open.`,
      content: {
        "application/json": { schema: t.Object({ result: t.Optional(item as never), error: t.Optional(Status) }) },
      },
    },
    default: {
      description: `${ERROR_DESCRIPTION} Before the stream opens: {"error": <status>}, or a bare status when the body does not decode or is too large.`,
      content: {
        "application/json": { schema: t.Union([t.Object({ error: Status }, { additionalProperties: false }), Status]) },
      },
    },
  };
}

const INT32 = { type: "integer", minimum: -2147483648, maximum: 2147483647 };
/** An enum field as protojson reads it: a name (an unknown name is ignored: the field stays 0) or an int32. */
const protoEnum = (names: readonly string[], description: string) =>
  t.Optional(
    t.Unsafe({
      description: `${description}: ${names.join(", ")} (an unknown name is ignored), or the number`,
      anyOf: [{ type: "string" }, INT32],
    }),
  );

/**
 * Protocol v1.2's BidOptions (bidderapi.v1 and providerapi.v1, upstream-head-delta §1.2) as protojson reads it and
 * grpc-gateway writes it: a list of options, each a position constraint or `{}` (none set).
 */
export const BidOptionsDoc = t.Object(
  {
    options: t.Optional(
      t.Array(
        t.Object({
          positionConstraint: t.Optional(
            t.Object(
              {
                anchor: protoEnum(
                  ["ANCHOR_UNSPECIFIED", "ANCHOR_TOP", "ANCHOR_BOTTOM"],
                  "where the position counts from",
                ),
                basis: protoEnum(
                  ["BASIS_UNSPECIFIED", "BASIS_PERCENTILE", "BASIS_ABSOLUTE", "BASIS_GAS_PERCENTILE"],
                  "what the value measures",
                ),
                value: t.Optional(
                  t.Unsafe({
                    description: "int32: the position from the anchor (also a decimal string)",
                    anyOf: [INT32, { type: "string", pattern: "^-?[0-9]+$" }],
                  }),
                ),
              },
              { description: "the transactions' position in the block (also position_constraint)" },
            ),
          ),
        }),
      ),
    ),
  },
  { description: "v1.2 bid options; their protobuf encoding enters the bid digest and travels with the bid" },
);
