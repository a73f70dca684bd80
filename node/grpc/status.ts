import { Metadata, type ServiceError } from "@grpc/grpc-js";
import { RpcError, toRpcError } from "../protocol/grpcCodes.ts";
import { logger } from "../util/log.ts";

const log = logger("grpc");

/**
 * An error of the node's services as a gRPC status: the same code and the same text the HTTP gateway puts in
 * `{code, message}` (upstream's grpc-gateway renders its gRPC status the same way).
 */
export function grpcStatusOf(err: unknown, method: string): ServiceError {
  const e = toRpcError(err);
  if (err instanceof RpcError) log.debug("call failed", { method, code: e.code, message: e.message });
  else log.error("handler crashed", { method, error: err });
  const status = Object.assign(new Error(e.message), { code: e.code, details: e.message, metadata: new Metadata() });
  return status as ServiceError;
}
