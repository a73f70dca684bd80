import { numberToHex, toRlp, type Address, type Hex } from "viem";
import { keccak256 } from "../protocol/keccak.ts";
import { signDigest } from "../protocol/secp256k1.ts";
import { bytesToHex } from "../protocol/bytes.ts";

/** An EIP-1559 transaction with no access list, as the nodes send them. */
export interface Eip1559Fields {
  chainId: number;
  nonce: number;
  maxPriorityFeePerGas: bigint;
  maxFeePerGas: bigint;
  gas: bigint;
  to: Address;
  value?: bigint;
  data?: Hex;
}

const quantity = (n: number | bigint): Hex => (n ? numberToHex(n) : "0x");

/**
 * Signs an EIP-1559 transaction and returns it serialized for eth_sendRawTransaction: the same bytes as viem's
 * `serializeTransaction` with the signature, which validates the fields and serializes twice (~100 µs against
 * ~55 µs here; the providers send one store transaction per commitment, the oracle one per settlement).
 */
export function signEip1559(tx: Eip1559Fields, privateKey: Hex): Hex {
  const fields: (Hex | Hex[])[] = [
    quantity(tx.chainId),
    quantity(tx.nonce),
    quantity(tx.maxPriorityFeePerGas),
    quantity(tx.maxFeePerGas),
    quantity(tx.gas),
    tx.to.toLowerCase() as Hex,
    quantity(tx.value ?? 0n),
    tx.data ?? "0x",
    [], // access list
  ];
  const unsigned = toRlp(fields, "bytes");
  const payload = new Uint8Array(unsigned.length + 1);
  payload[0] = 0x02;
  payload.set(unsigned, 1);
  const sig = signDigest(privateKey, keccak256(payload));
  const r = BigInt(`0x${bytesToHex(sig.subarray(0, 32))}`);
  const s = BigInt(`0x${bytesToHex(sig.subarray(32, 64))}`);
  // yParity 0 is the empty string in RLP, as are r and s with leading zeros dropped (viem's trim).
  const signed = toRlp([...fields, quantity(sig[64]! - 27), quantity(r), quantity(s)], "hex");
  return `0x02${signed.slice(2)}`;
}
