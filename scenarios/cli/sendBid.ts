#!/usr/bin/env bun
/**
 * `npm run bid`: sends one bid to a running devnet (or any target) and prints the commitments that come back.
 * A first thing to try after `npm run node`.
 */
import { readFileSync } from "node:fs";
import { createPublicClient, http } from "viem";
import { CliFailure, exitOnCliErrors, parseCliArgs } from "../../lib/cli.ts";
import { NdjsonStream } from "../../node/clients/ndjson.ts";
import type { Target } from "../../node/clients/target.ts";
import { chooseProtocol } from "../util/protocolChoice.ts";
import { DEMO_ACCOUNT, type DemoTransaction, demoTransaction } from "./demoTransaction.ts";
import { missingCommitmentsLine, pastBlockNote, refusalLine, whyNotCommitted } from "./missingCommitments.ts";
import { putBackWhatTheSuiteLeft } from "./suiteLeftovers.ts";

exitOnCliErrors({ unreachable: "is the devnet running (npm run node)? --target names another target file" });

const { values } = parseCliArgs({
  options: {
    target: { type: "string", default: ".devnet/target.json" },
    amount: { type: "string", default: "1000000000000000" },
    block: { type: "string" },
    "tx-hash": { type: "string" },
    protocol: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(`Usage: npm run bid -- [--target .devnet/target.json] [--amount wei] [--block N] [--tx-hash hex] [--protocol v1.1|v1.2]
Sends one bid to the target's bidder node and prints each commitment; exits 1 with the reason (no deposit for the
window, no provider application attached, …) when fewer providers commit than the target has. Default: 0.001 ETH for the L1 block after the next one
(so the winner's builder has the commitment before that block is mined, even with 2 s blocks),
decay over the next 12 s, for a fresh signed L1 transaction (1 wei from dev account ${DEMO_ACCOUNT} to itself) that the
block's winning provider includes, so the commitment settles; --tx-hash bids for a transaction by hash instead.
Each run signs a transaction no earlier run signed, and says why: the account's next nonce on the L1, or the one
after those of earlier bids still waiting for their blocks (recorded in bid-transactions.json beside the target
file), and a random salt in its data, so bids in a row each get a transaction their winner can include.
The target file's "protocol" (absent: v1.1) says which protocol the target speaks; --protocol, when given, must
agree with it.`);
  process.exit(0);
}

let target: Target;
try {
  target = JSON.parse(readFileSync(values.target!, "utf8")) as Target;
} catch (e) {
  throw new CliFailure(
    `cannot read the target file ${values.target} (${(e as Error).message.split("\n")[0]}); is the devnet running (npm run node)?`,
    2,
  );
}
const protocol = chooseProtocol(values.protocol, target, values.target);
await putBackWhatTheSuiteLeft(values.target!);
if (values.amount !== undefined && !/^\d+$/.test(values.amount))
  throw new CliFailure(`--amount must be wei (digits), got "${values.amount}"`, 2);
if (values.block !== undefined && !/^[1-9]\d*$/.test(values.block))
  throw new CliFailure(`--block must be a block number, got "${values.block}"`, 2);
const l1 = createPublicClient({ transport: http(target.l1RpcUrl) });
const head = await l1.getBlockNumber();
// The next block may be mined while the bid is in flight; the one after it leaves a whole block time of slack.
const block = values.block ?? String(head + 2n);
if (BigInt(block) <= head) console.log(pastBlockNote(BigInt(block), head));
const now = Date.now();
const timing = {
  amount: values.amount,
  blockNumber: block,
  decayStartTimestamp: String(now),
  decayEndTimestamp: String(now + 12_000),
};
let bid: Record<string, unknown>;
let tx: DemoTransaction | undefined;
if (values["tx-hash"]) bid = { txHashes: [values["tx-hash"]], ...timing };
else {
  tx = await demoTransaction(l1, target.l1ChainId, BigInt(block), values.target!);
  bid = { rawTransactions: [tx.raw.slice(2)], ...timing };
  console.log(`transaction ${tx.hash}: 1 wei from dev account ${DEMO_ACCOUNT} to itself, ${tx.why}\n`);
}
console.log(`protocol ${protocol}: POST ${target.bidderUrl}/v1/bidder/bid\n${JSON.stringify(bid, null, 2)}\n`);
const stream = await NdjsonStream.open<Record<string, unknown>>("POST", `${target.bidderUrl}/v1/bidder/bid`, bid);
const committed = new Set<string>();
let bidDigest: unknown;
for (let line = await stream.next(); line; line = await stream.next()) {
  if (!("result" in line)) throw new CliFailure(refusalLine(stream.status, line));
  committed.add(String(line.result.providerAddress).toLowerCase().replace(/^0x/, ""));
  bidDigest ??= line.result.receivedBidDigest;
  console.log(
    `commitment from provider 0x${line.result.providerAddress} (dispatched at ${line.result.dispatchTimestamp}):\n${JSON.stringify(line.result, null, 2)}\n`,
  );
}
// Recorded once committed to: a transaction nobody committed to is never included, so its nonce is free again.
if (tx && committed.size) tx.record();
console.log(
  `${committed.size} commitment(s) for block ${block}. Watch them settle: GET ${target.bidderUrl}/v1/bidder/get_bid_info?block_number=${block}`,
);
if (target.controlUrl)
  console.log(
    `Each provider's outcome (and why a provider did not commit): ${target.controlUrl}/explorer/` +
      (bidDigest
        ? ` or GET ${target.controlUrl}/sim/v1/bids/0x${bidDigest}`
        : ` or GET ${target.controlUrl}/sim/v1/bids?limit=1`),
  );
const missing = (target.providerAddresses ?? []).filter((a) => !committed.has(a.toLowerCase().replace(/^0x/, "")));
if (missing.length) {
  const reasons = await whyNotCommitted(
    target,
    { blockNumber: BigInt(block), amount: BigInt(values.amount!), headAtSend: head },
    missing,
  );
  throw new CliFailure(
    missingCommitmentsLine(target.providerAddresses.length, target.providerAddresses.length - missing.length, reasons),
  );
}
