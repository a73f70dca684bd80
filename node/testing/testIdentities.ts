import { protocolDomains } from "../protocol/digest.ts";
import type { ProtocolDomains } from "../protocol/types.ts";

/** Anvil's well-known development keys, by the part they play in tests of nodes on one machine. */
export const TEST_KEYS = {
  bidder: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  provider: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  bootnode: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9ad8cfee0ab8c",
  otherProvider: "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
} as const;

/** The provider's BN254 NIKE secret in tests. */
export const TEST_NIKE_SECRET = 987654321n;

/** Signing domains of a devnet chain (its id and the first contract Anvil deploys). */
export const TEST_DOMAINS: ProtocolDomains = protocolDomains(31337n, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
