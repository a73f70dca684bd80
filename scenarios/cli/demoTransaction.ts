/**
 * The L1 transaction `npm run bid` bids for: 1 wei from a dev account to itself, which the winning provider's builder
 * includes. Each run signs one no earlier run signed, so that two bids never carry the same transaction (the second
 * one's commitment could not be met: its winner cannot include a transaction already mined, and opening it fails
 * with TxnHashAlreadyProcessed):
 * - its nonce is the account's next one on the L1 (pending), or, when earlier bids' transactions are still waiting
 *   for their blocks, the one after theirs, so that each is includable after the ones before it;
 * - its data is a random salt, so that even a nonce used again (an earlier transaction never mined) makes a new hash.
 * The bids it sent are recorded in the target's directory (the devnet's data dir: `--fresh` forgets them with the
 * chain), with the L1 head they were signed at, so a chain that started over is told from one that went on.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Hex, keccak256, type PublicClient, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccount } from "../../node/chain/accounts.ts";

/** Dev account that signs the demo's L1 transaction (not used by the devnet or the features). */
export const DEMO_ACCOUNT = 9;
/** Earlier bids' transactions kept in the record (the oldest are dropped first). */
const KEPT = 200;
/** Bytes of random salt in the transaction's data. */
const SALT_BYTES = 16;

/** One transaction an earlier `npm run bid` bid for (and got at least one commitment for). */
export interface SentTransaction {
  hash: Hex;
  nonce: number;
  /** The L1 block the bid was for. */
  block: string;
  /** The L1 head when it was signed, and that block's hash: the chain no longer has it after starting over. */
  head: string;
  headHash: Hex;
}

interface Record_ {
  account: string;
  chainId: number;
  sent: SentTransaction[];
}

/** Where the bids sent to the target of `targetFile` are recorded: beside it, in the devnet's data dir. */
export function recordFileOf(targetFile: string): string {
  return join(dirname(targetFile), "bid-transactions.json");
}

function readRecord(file: string, account: string, chainId: number): SentTransaction[] {
  if (!existsSync(file)) return [];
  try {
    const r = JSON.parse(readFileSync(file, "utf8")) as Record_;
    return r.account === account && r.chainId === chainId && Array.isArray(r.sent) ? r.sent : [];
  } catch {
    return []; // a torn or foreign file: the salt still makes the hash new
  }
}

/**
 * The nonce to sign with: the account's pending nonce, or one past the highest of the earlier transactions still
 * waiting (not mined: nonce ≥ the account's mined count, bid for a block after the head, on this same chain).
 */
export function chooseNonce(o: {
  pending: number;
  mined: number;
  head: bigint;
  /** The block the new bid is for. */
  block: bigint;
  waiting: SentTransaction[];
}): { nonce: number; why: string } {
  const ahead = o.waiting.filter((t) => t.nonce >= o.mined && BigInt(t.block) > o.head);
  const top = ahead.reduce((m, t) => Math.max(m, t.nonce), -1);
  // A transaction waits for every lower nonce: one bid for a later block holds this one back until that block.
  const later = ahead.filter((t) => BigInt(t.block) > o.block).map((t) => t.block);
  const heldBack = later.length
    ? `; earlier bids for block(s) ${[...new Set(later)].join(", ")}, after ${o.block}, hold lower nonces, so this transaction cannot be included before them and its commitment for block ${o.block} may be slashed`
    : "";
  if (top + 1 > o.pending)
    return {
      nonce: top + 1,
      why: `one past ${top}, the highest nonce of the ${ahead.length} earlier bid transaction(s) still waiting for their blocks (the L1's next nonce for the account is ${o.pending})${heldBack}`,
    };
  return { nonce: o.pending, why: "the L1's next nonce for the account; no earlier bid transaction is waiting" };
}

export interface DemoTransaction {
  raw: Hex;
  hash: Hex;
  nonce: number;
  /** Why no earlier bid sent this transaction, in words. */
  why: string;
  /** Records it as sent (call once a provider committed to it: only then will a builder include it). */
  record(): string | undefined;
}

/** Signs a fresh demo transaction for a bid for `block`; see the module comment. */
export async function demoTransaction(
  l1: PublicClient,
  chainId: number,
  block: bigint,
  targetFile: string,
): Promise<DemoTransaction> {
  const account = privateKeyToAccount(devAccount(DEMO_ACCOUNT).privateKey);
  const file = recordFileOf(targetFile);
  const earlier = readRecord(file, account.address, chainId);
  const headBlock = await l1.getBlock({ blockTag: "latest" });
  const [pending, mined] = await Promise.all([
    l1.getTransactionCount({ address: account.address, blockTag: "pending" }),
    l1.getTransactionCount({ address: account.address, blockTag: "latest" }),
  ]);
  const waiting = await sameChain(
    l1,
    earlier.filter((t) => t.nonce >= mined && BigInt(t.block) > headBlock.number),
  );
  const { nonce, why } = chooseNonce({ pending, mined, head: headBlock.number, block, waiting });
  const raw = await account.signTransaction({
    chainId,
    nonce,
    to: account.address,
    value: 1n,
    data: toHex(randomBytes(SALT_BYTES)),
    // 21,000 plus the salt's calldata: at most 16 gas a byte, or EIP-7623's floor of 40 a non-zero byte.
    gas: 21_000n + 40n * BigInt(SALT_BYTES),
    maxFeePerGas: 100_000_000_000n,
    maxPriorityFeePerGas: 1n,
  });
  const hash = keccak256(raw);
  const used = earlier.some((t) => t.hash === hash);
  return {
    raw,
    hash,
    nonce,
    why: `${used ? "WARNING: an earlier bid sent this very transaction" : `new: no earlier bid recorded in ${file} sent it`} (nonce ${nonce}: ${why}; a random salt in its data makes its hash differ from any other bid's even at a nonce used before)`,
    record: () => {
      const sent: SentTransaction = {
        hash,
        nonce,
        block: block.toString(),
        head: headBlock.number.toString(),
        headHash: headBlock.hash,
      };
      const next: Record_ = { account: account.address, chainId, sent: [...earlier, sent].slice(-KEPT) };
      try {
        writeFileSync(`${file}.tmp`, `${JSON.stringify(next, null, 2)}\n`);
        renameSync(`${file}.tmp`, file);
        return file;
      } catch {
        return undefined; // a read-only directory: the next bid still signs a new hash (the salt)
      }
    },
  };
}

/** The recorded transactions signed on the chain the L1 still is (the block at their head has the same hash). */
async function sameChain(l1: PublicClient, sent: SentTransaction[]): Promise<SentTransaction[]> {
  const heads = [...new Set(sent.map((t) => t.head))];
  const hashes = new Map(
    await Promise.all(
      heads.map(
        async (h) =>
          [
            h,
            await l1.getBlock({ blockNumber: BigInt(h) }).then(
              (b) => b.hash,
              () => undefined,
            ),
          ] as const,
      ),
    ),
  );
  return sent.filter((t) => hashes.get(t.head) === t.headHash);
}
