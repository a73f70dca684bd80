import { GrpcCode, RpcError } from "../protocol/grpcCodes.ts";

export class ResourceExhaustedError extends RpcError {
  override name = "ResourceExhaustedError";
  constructor(message: string) {
    super(GrpcCode.ResourceExhausted, message);
  }
}
