import type { Address } from "viem";
import { NdjsonStream } from "../clients/ndjson.ts";

/**
 * Test helper for nodes in processes of their own: one bid (the n-th tx hash) for `block` through a bidder's HTTP
 * API, with a 60 s decay window; answers the lower-cased addresses of the providers that committed, sorted.
 */
export async function bidProviders(bidderUrl: string, block: bigint, n: number): Promise<Address[]> {
  const now = Date.now();
  const s = await NdjsonStream.open<{ providerAddress: string }>("POST", `${bidderUrl}/v1/bidder/bid`, {
    txHashes: [n.toString(16).padStart(64, "0")],
    amount: "1000",
    blockNumber: block.toString(),
    decayStartTimestamp: String(now),
    decayEndTimestamp: String(now + 60_000),
  });
  return (await s.all())
    .flatMap((l) => ("result" in l ? [`0x${l.result.providerAddress}`.toLowerCase() as Address] : []))
    .sort();
}
