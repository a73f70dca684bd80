import type { Address } from "viem";
import type { ChainClients } from "../chain/clients.ts";
import { preconfManagerAbi } from "../chain/contracts.ts";
import { preconfManagerV12Abi } from "../chain/contractsV12.ts";
import { transact } from "../chain/transact.ts";
import type { ProtocolRules } from "../protocol/rules.ts";
import { bidderZkProofArray, proveOpening, zkProofArray } from "../protocol/zkProof.ts";
import type { CommitmentRecord } from "./record.ts";

/** Which side opens: the winning provider proves its key with the ZK proof; the bidder sends zeros there. */
export type OpenerRole = { role: "provider"; nikeSecret: bigint } | { role: "bidder" };

/**
 * Sends PreconfManager.openCommitment for a stored commitment (crypto-contracts §3.2): the bid's fields in clear,
 * the bid signature, and the zkProof words [providerPk, bidderPk, shared key, c, z]; in protocol v1.2 also the bid's
 * options (raw proto bytes), which the contract hashes into the bid digest and stores with the commitment.
 */
export async function openCommitment(
  c: ChainClients,
  preconfManager: Address,
  r: CommitmentRecord,
  who: OpenerRole,
  corrupt: boolean,
  rules: ProtocolRules,
): Promise<void> {
  const bidderPk = { x: r.bidderPkX, y: r.bidderPkY };
  const zkProof =
    who.role === "provider"
      ? zkProofArray(
          proveOpening({
            providerSecret: who.nikeSecret,
            bidderPublicKey: bidderPk,
            sharedKey: { x: r.sharedX, y: r.sharedY },
            chainId: BigInt(c.chain.id),
          }),
        )
      : bidderZkProofArray(bidderPk, { x: r.sharedX, y: r.sharedY });
  const params = {
    unopenedCommitmentIndex: `0x${r.commitmentIndex}`,
    // `corrupt` (fault injection) changes the bid amount: the chain rejects the opening for real.
    bidAmt: corrupt ? r.bidAmount + 1n : r.bidAmount,
    slashAmt: r.slashAmount,
    blockNumber: r.blockNumber,
    decayStartTimeStamp: r.decayStart,
    decayEndTimeStamp: r.decayEnd,
    txnHash: r.txnHash,
    revertingTxHashes: r.revertingTxHashes,
    bidSignature: `0x${r.bidSignature}`,
    zkProof,
  };
  await transact(
    c,
    rules.bidOptions
      ? {
          address: preconfManager,
          abi: preconfManagerV12Abi,
          functionName: "openCommitment",
          args: [{ ...params, bidOptions: `0x${r.bidOptions ?? ""}` }],
        }
      : { address: preconfManager, abi: preconfManagerAbi, functionName: "openCommitment", args: [params] },
    "opening commitment",
  );
}
