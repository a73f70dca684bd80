/**
 * GetCommitmentInfo and GetBidInfo over a node's commitment records: validate the query, read one page in the
 * store's order (block ascending, highest bid first, then digest), group it. The page is counted in commitments
 * for both operations, as upstream does, so one bid's commitments can straddle two pages of GetBidInfo.
 */
import { InternalError, RpcError } from "../protocol/grpcCodes.ts";
import {
  type BidInfoResponse,
  type CommitmentInfoResponse,
  groupBidInfo,
  groupCommitmentInfo,
  type QueryRecord,
} from "./grouping.ts";
import {
  BID_INFO_DEFAULT_LIMIT,
  COMMITMENT_INFO_DEFAULT_LIMIT,
  type PageRequest,
  type PageRequestFields,
  validatePageRequest,
} from "./pageRequest.ts";

/** What the queries need of a commitment store (CommitmentStore.page). */
export interface CommitmentPages {
  page(offset: number, limit: number, block?: bigint): QueryRecord[];
}

function readPage(store: CommitmentPages, req: PageRequest): QueryRecord[] {
  try {
    return store.page(req.offset, req.limit, req.blockNumber);
  } catch (e) {
    if (e instanceof RpcError) throw e;
    throw new InternalError(`getting commitments: ${(e as Error).message}`, { cause: e });
  }
}

/** GetCommitmentInfo. */
export function commitmentInfo(store: CommitmentPages, req: PageRequestFields): CommitmentInfoResponse {
  return groupCommitmentInfo(readPage(store, validatePageRequest(req, COMMITMENT_INFO_DEFAULT_LIMIT)));
}

/** GetBidInfo. */
export function bidInfo(store: CommitmentPages, req: PageRequestFields): BidInfoResponse {
  return groupBidInfo(readPage(store, validatePageRequest(req, BID_INFO_DEFAULT_LIMIT)));
}
