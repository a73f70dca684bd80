/**
 * gRPC status codes, their HTTP mapping (grpc-gateway v2.20 `runtime/errors.go`, api-behaviour §0.4)
 * and the error classes the protocol code throws. The HTTP layer renders an RpcError as
 * `{"code":<code>,"message":<message>,"details":[]}` with the status from `httpStatusOf`.
 */

import { MevCommitError, type MevCommitErrorOptions } from "../../lib/errors.ts";

export const GrpcCode = {
  OK: 0,
  Canceled: 1,
  Unknown: 2,
  InvalidArgument: 3,
  DeadlineExceeded: 4,
  NotFound: 5,
  AlreadyExists: 6,
  PermissionDenied: 7,
  ResourceExhausted: 8,
  FailedPrecondition: 9,
  Aborted: 10,
  OutOfRange: 11,
  Unimplemented: 12,
  Internal: 13,
  Unavailable: 14,
  DataLoss: 15,
  Unauthenticated: 16,
} as const;

export type GrpcCode = (typeof GrpcCode)[keyof typeof GrpcCode];

const HTTP_STATUS_BY_CODE: Readonly<Record<number, number>> = {
  0: 200,
  1: 499,
  2: 500,
  3: 400,
  4: 504,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400, // FailedPrecondition is 400 in grpc-gateway, not 412
  10: 409,
  11: 400,
  12: 501,
  13: 500,
  14: 503,
  15: 500,
  16: 401,
};

/** HTTP status grpc-gateway answers for a gRPC code; any unknown code maps to 500. */
export function httpStatusOf(code: number): number {
  return HTTP_STATUS_BY_CODE[code] ?? 500;
}

/** Name of a gRPC code as grpc-go spells it (`InvalidArgument`), or `Code(<n>)`. */
export function grpcCodeName(code: number): string {
  for (const [name, value] of Object.entries(GrpcCode)) if (value === code) return name;
  return `Code(${code})`;
}

/** One entry of a Status `details` array (`google.protobuf.Any` as JSON). */
export interface StatusDetail {
  "@type": string;
  [key: string]: unknown;
}

/** The JSON body of a unary error, and the `error` member of a stream line. */
export interface StatusBody {
  code: number;
  message: string;
  details: StatusDetail[];
}

/** An error that carries a gRPC status. */
export class RpcError extends MevCommitError {
  readonly code: GrpcCode;
  readonly details: StatusDetail[];

  /** `context` is for logs and tests: it is never serialised to clients. */
  constructor(code: GrpcCode, message: string, options: MevCommitErrorOptions & { details?: StatusDetail[] } = {}) {
    super(message, options);
    this.code = code;
    this.details = options.details ?? [];
  }

  get httpStatus(): number {
    return httpStatusOf(this.code);
  }

  toStatusBody(): StatusBody {
    return { code: this.code, message: this.message, details: this.details };
  }
}

type RpcErrorOptions = ConstructorParameters<typeof RpcError>[2];

export class CanceledError extends RpcError {
  constructor(message: string, options?: RpcErrorOptions) {
    super(GrpcCode.Canceled, message, options);
  }
}

/** A plain (non-status) error in upstream: code Unknown, HTTP 500. */
export class UnknownError extends RpcError {
  constructor(message: string, options?: RpcErrorOptions) {
    super(GrpcCode.Unknown, message, options);
  }
}

export class InvalidArgumentError extends RpcError {
  constructor(message: string, options?: RpcErrorOptions) {
    super(GrpcCode.InvalidArgument, message, options);
  }
}

export class DeadlineExceededError extends RpcError {
  constructor(message: string, options?: RpcErrorOptions) {
    super(GrpcCode.DeadlineExceeded, message, options);
  }
}

export class NotFoundError extends RpcError {
  constructor(message: string, options?: RpcErrorOptions) {
    super(GrpcCode.NotFound, message, options);
  }
}

export class AlreadyExistsError extends RpcError {
  constructor(message: string, options?: RpcErrorOptions) {
    super(GrpcCode.AlreadyExists, message, options);
  }
}

export class PermissionDeniedError extends RpcError {
  constructor(message: string, options?: RpcErrorOptions) {
    super(GrpcCode.PermissionDenied, message, options);
  }
}

export class FailedPreconditionError extends RpcError {
  constructor(message: string, options?: RpcErrorOptions) {
    super(GrpcCode.FailedPrecondition, message, options);
  }
}

export class UnimplementedError extends RpcError {
  constructor(message: string, options?: RpcErrorOptions) {
    super(GrpcCode.Unimplemented, message, options);
  }
}

export class InternalError extends RpcError {
  constructor(message: string, options?: RpcErrorOptions) {
    super(GrpcCode.Internal, message, options);
  }
}

export class UnavailableError extends RpcError {
  constructor(message: string, options?: RpcErrorOptions) {
    super(GrpcCode.Unavailable, message, options);
  }
}

/**
 * A request body that could not be decoded as JSON / protojson. grpc-gateway raises these before the
 * gRPC call, so even on streaming routes they are answered in the unary format (bare Status, no
 * `{"error":…}` envelope, api-behaviour §0.5).
 */
export class BodyDecodeError extends InvalidArgumentError {}

/** Maps any thrown value to an RpcError the way grpc-go does for a handler's plain error. */
export function toRpcError(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  if (err instanceof Error) return new UnknownError(err.message, { cause: err });
  return new UnknownError(String(err));
}
