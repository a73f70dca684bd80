import {
  type Abi,
  type AbiFunction,
  type Address,
  encodeFunctionData,
  type Hex,
  prepareEncodeFunctionData,
  type TransactionReceipt,
} from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { revertedTransactionError, sendTransactionError } from "./chainErrors.ts";
import type { ChainClients } from "./clients.ts";
import { decodeRevert } from "./contracts.ts";
import { type SimpleCallEncoder, simpleCallEncoder } from "./simpleCallEncoder.ts";

/** Upstream's default gas limit (`--gas-limit` 2000000): no estimation, so a revert shows after mining. */
export const DEFAULT_GAS_LIMIT = 2_000_000n;

export interface TransactRequest {
  address: Address;
  abi: Abi;
  functionName: string;
  args?: readonly unknown[];
  value?: bigint;
  gas?: bigint;
}

/** A mined transaction that reverted; `reason` is upstream's rendering (`Name(arg=value, …)`). */
export class TransactionFailedError extends MevCommitError {
  constructor(
    readonly hash: Hex,
    readonly reason: string,
    readonly errorName: string,
    readonly args: readonly unknown[] = [],
  ) {
    super(`transaction failed: ${reason}`, { context: { hash, errorName, args } });
  }
}

/**
 * Sends a contract transaction and waits for its receipt, as upstream's transactor does: a fixed gas limit
 * (no estimation round trip), and a revert found after mining. Sending and receipts go through the account's
 * TxPipeline (txPipeline.ts), so many transactions of one node share blocks. The revert reason is recovered by replaying the
 * call on the state the transaction saw. Messages are upstream's texts: `<what>: <err>` when the transaction cannot
 * be sent, `<receiptText>: transaction failed: <reason>` when it reverted. Codes follow chainErrors.ts: the
 * caller's own state (a revert it can avoid, too small a balance) is FailedPrecondition, an unreachable chain
 * Unavailable, anything else Internal.
 */
export async function transact(
  c: ChainClients,
  req: TransactRequest,
  what: string,
  receiptText = "waiting for receipt",
): Promise<TransactionReceipt> {
  const data = encodeCall(req.abi, req.functionName, req.args ?? []);
  let hash: Hex;
  try {
    hash = await c.txs.send({ to: req.address, data, value: req.value, gas: req.gas ?? DEFAULT_GAS_LIMIT });
  } catch (e) {
    throw await sendTransactionError(what, e, { from: c.account.address, value: req.value }, () =>
      c.publicClient.getBalance({ address: c.account.address }),
    );
  }
  let receipt: TransactionReceipt;
  try {
    receipt = await c.txs.receipt(hash, 60_000);
  } catch (e) {
    throw await sendTransactionError(receiptText, e, { from: c.account.address, value: req.value }, async () => 0n);
  }
  if (receipt.status === "success") return receipt;
  const failure = await revertReason(c, req, data, receipt);
  throw revertedTransactionError(
    `${receiptText}: transaction failed: ${failure.reason}`,
    failure.errorName,
    failure.args,
    { hash, errorName: failure.errorName },
    failure,
  );
}

interface PreparedCall {
  viem: ReturnType<typeof prepareEncodeFunctionData>;
  simple: SimpleCallEncoder | undefined;
}

const prepared = new WeakMap<Abi, Map<string, PreparedCall>>();

/**
 * `encodeFunctionData` with the function looked up in the ABI and its selector hashed once per ABI and name (every
 * store and open transaction of a run calls the same few functions), and written by simpleCallEncoder.ts when its
 * parameters are simple (viem's encoder otherwise, and for any argument that encoder does not accept). An overloaded
 * name is encoded the long way, as its arguments pick the overload.
 */
export function encodeCall(abi: Abi, functionName: string, args: readonly unknown[]): Hex {
  let byName = prepared.get(abi);
  if (!byName) prepared.set(abi, (byName = new Map()));
  let p = byName.get(functionName);
  if (!p) {
    const overloads = abi.filter((x): x is AbiFunction => x.type === "function" && x.name === functionName);
    if (overloads.length !== 1) return encodeFunctionData({ abi, functionName, args } as never);
    p = { viem: prepareEncodeFunctionData({ abi, functionName } as never), simple: simpleCallEncoder(overloads[0]!) };
    byName.set(functionName, p);
  }
  return p.simple?.(args) ?? encodeFunctionData({ ...p.viem, args } as never);
}

async function revertReason(
  c: ChainClients,
  req: TransactRequest,
  data: Hex,
  receipt: TransactionReceipt,
): Promise<TransactionFailedError> {
  // On the state the transaction saw; a chain that keeps no past states (the devnet's settlement chain) answers
  // with no revert data there, and the latest state usually reverts the same way.
  for (const blockNumber of [receipt.blockNumber - 1n, undefined]) {
    try {
      await c.publicClient.call({
        account: c.account.address,
        to: req.address,
        data,
        value: req.value,
        gas: req.gas ?? DEFAULT_GAS_LIMIT,
        blockNumber,
      });
    } catch (e) {
      const revert = decodeRevert(e);
      if (revert)
        return new TransactionFailedError(receipt.transactionHash, revert.text, revert.errorName, revert.args);
    }
  }
  // The replay passed (state moved on within the block) or gave no data: say what we know.
  return new TransactionFailedError(receipt.transactionHash, "execution reverted", "");
}
