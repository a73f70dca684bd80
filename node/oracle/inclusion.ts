/** Where a transaction sits in its L1 block and whether it succeeded. */
export interface TxOutcome {
  position: number;
  success: boolean;
}

/**
 * The oracle's rule (crypto-contracts §4, step 7): the commitment is honoured iff every committed transaction is
 * in the block, in the committed order, contiguous from the first one, and each succeeded or is allowed to
 * revert. Hashes are compared as lower-case hex without 0x.
 */
export function isHonoured(txnHash: string, revertingTxHashes: string, block: ReadonlyMap<string, TxOutcome>): boolean {
  const txns = txnHash.split(",");
  const revertible = new Set(revertingTxHashes.split(",").filter((h) => h !== ""));
  const first = block.get(txns[0] ?? "");
  if (!first) return false;
  return txns.every((h, i) => {
    const t = block.get(h);
    return t !== undefined && t.position === first.position + i && (t.success || revertible.has(h));
  });
}
