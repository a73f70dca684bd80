import { GrpcCode, RpcError } from "../protocol/grpcCodes.ts";

export class ResourceExhaustedError extends RpcError {
  constructor(message: string) {
    super(GrpcCode.ResourceExhausted, message);
  }
}
