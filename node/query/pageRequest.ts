/**
 * The query of GetBidInfo / GetCommitmentInfo (api-behaviour §1.5, §1.6, §3.4): `block_number` / `blockNumber`
 * (int64), `page` and `limit` (int32), parsed as grpc-gateway does (Go strconv texts for values that do not parse).
 *
 * Divergences (DESIGN.md rule 2, docs/divergences.md): a block number is an exact filter and paging applies with
 * it too; a negative page or limit, or a limit above MAX_PAGE_LIMIT, is refused with InvalidArgument (upstream
 * skips nothing for a negative page, crashes on a negative limit and allocates any limit up front).
 */
import { InvalidArgumentError } from "../protocol/grpcCodes.ts";
import { parseQueryField, type QueryFieldSpec, type QueryValues } from "../protocol/queryParams.ts";

export const BLOCK_NUMBER_FIELD: QueryFieldSpec = { name: "block_number", jsonName: "blockNumber", kind: "int64" };
export const PAGE_FIELD: QueryFieldSpec = { name: "page", jsonName: "page", kind: "int32" };
export const LIMIT_FIELD: QueryFieldSpec = { name: "limit", jsonName: "limit", kind: "int32" };

/** GetCommitmentInfo's limit when none (or 0) is given (interface.md §4.5, upstream). */
export const COMMITMENT_INFO_DEFAULT_LIMIT = 100;
/** GetBidInfo's limit when none (or 0) is given (interface.md §4.6; upstream's code uses 100). */
export const BID_INFO_DEFAULT_LIMIT = 50;
/** The largest limit accepted. */
export const MAX_PAGE_LIMIT = 1000;

/** A validated query: which commitments to read, as an offset and a count in the store's order. */
export interface PageRequest {
  /** Exact block filter; undefined when absent or 0 (upstream treats 0 as "no filter"). */
  readonly blockNumber?: bigint;
  readonly page: number;
  /** Commitments per page, after the default is applied (1…MAX_PAGE_LIMIT). */
  readonly limit: number;
  /** `page * limit`: commitments to skip. */
  readonly offset: number;
}

/** The fields of GetBidInfoRequest / GetCommitmentInfoRequest as either transport decoded them. */
export interface PageRequestFields {
  readonly blockNumber?: bigint;
  readonly page?: number;
  readonly limit?: number;
}

/** Checks page and limit and applies the defaults; throws InvalidArgumentError with our text. */
export function validatePageRequest(f: PageRequestFields, defaultLimit: number): PageRequest {
  const page = f.page ?? 0;
  const rawLimit = f.limit ?? 0;
  if (page < 0)
    throw new InvalidArgumentError(`page must be a non-negative integer, got ${page}`, { context: { page } });
  if (rawLimit < 0 || rawLimit > MAX_PAGE_LIMIT) {
    throw new InvalidArgumentError(`limit must be between 0 and ${MAX_PAGE_LIMIT}, got ${rawLimit}`, {
      context: { limit: rawLimit },
    });
  }
  const limit = rawLimit === 0 ? defaultLimit : rawLimit;
  const block = f.blockNumber;
  return { ...(block !== undefined && block !== 0n ? { blockNumber: block } : {}), page, limit, offset: page * limit };
}

/** The fields of the query, parsed as grpc-gateway does (its texts for values that do not parse). */
export function pageRequestFieldsOf(query: QueryValues): PageRequestFields {
  // grpc-gateway fills the whole request message before the handler sees it: parse errors come first.
  return {
    blockNumber: parseQueryField(query, BLOCK_NUMBER_FIELD) as bigint | undefined,
    page: parseQueryField(query, PAGE_FIELD) as number | undefined,
    limit: parseQueryField(query, LIMIT_FIELD) as number | undefined,
  };
}

/** Parses and checks the query; throws InvalidArgumentError with grpc-gateway's or our text. */
export function parsePageRequest(query: QueryValues, defaultLimit: number): PageRequest {
  return validatePageRequest(pageRequestFieldsOf(query), defaultLimit);
}
