import { expect } from "bun:test";
import { type Address, createPublicClient, type Hex, http, parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { NdjsonStream } from "../clients/ndjson.ts";
import type { LocalDevnet } from "../devnet/localDevnet.ts";
import { until } from "../util/deadline.ts";

/**
 * A bid through the devnet's bidder for a raw transaction of `buyerKey`'s, two L1 blocks ahead, that `provider` (a
 * process joined to the devnet) commits to; answers once the provider's bundle for it is in the devnet's book, so
 * that the devnet's builder puts the transaction into the block the provider wins.
 */
export async function rawTransactionBidCommittedBy(
  d: LocalDevnet["devnet"],
  buyerKey: Hex,
  provider: Address,
): Promise<{ raw: Hex; block: bigint }> {
  const l1 = createPublicClient({ transport: http(d.chains.l1.rpcUrl) });
  const buyer = privateKeyToAccount(buyerKey);
  const raw: Hex = await buyer.signTransaction({
    type: "eip1559",
    chainId: d.chains.l1.chainId,
    nonce: await l1.getTransactionCount({ address: buyer.address, blockTag: "latest" }),
    to: buyer.address,
    value: 1n,
    gas: 21_000n,
    maxFeePerGas: parseGwei("20"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
  const block = (await d.driver.blockNumber()) + 2n;
  const now = Date.now();
  const stream = await NdjsonStream.open<{ providerAddress: string }>("POST", `${d.bidder!.url}/v1/bidder/bid`, {
    rawTransactions: [raw.slice(2)],
    amount: "1000",
    blockNumber: block.toString(),
    decayStartTimestamp: String(now),
    decayEndTimestamp: String(now + 60_000),
  });
  const committed = (await stream.all()).flatMap((l) => ("result" in l ? [`0x${l.result.providerAddress}`] : []));
  expect(committed.map((a) => a.toLowerCase())).toContain(provider.toLowerCase());
  // The provider process, not the devnet's node, holds this commitment: the devnet's builder learns it by a post.
  await until("the provider process's bundle in the devnet's book", 10_000, () =>
    d.bundles.bundlesFor(provider, block).some((b) => b.includes(raw) || b.includes(raw.slice(2))),
  );
  return { raw, block };
}
