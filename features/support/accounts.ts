/**
 * Accounts the suite signs with: Anvil's default mnemonic (m/44'/60'/0'/0/i), which funds the accounts of a local
 * devnet's chains. Indices 10–15 sign the settlement scenarios' L1 transactions, 16 funds fresh accounts on the
 * settlement chain, 17 sends validator opt-ins; 0–9 belong to the devnet itself (deployer, oracle, nodes).
 */
import type { Hex } from "viem";
import { bytesToHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";

export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";

export function devAccount(index: number): { address: `0x${string}`; privateKey: Hex } {
  const a = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index });
  return { address: a.address, privateKey: bytesToHex(a.getHdKey().privateKey!) };
}
