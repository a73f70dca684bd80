import { type QueryValues, queryValuesOf } from "../../protocol/queryParams.ts";

/** Every value of every query key, as grpc-gateway sees them (repeated keys kept for its "too many values" rule). */
export function queryOf(request: Request): QueryValues {
  return queryValuesOf(new URL(request.url).searchParams);
}
