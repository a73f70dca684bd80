/**
 * Dev accounts of the local chains: Anvil's default mnemonic, BIP-44 path m/44'/60'/0'/0/i, and the role each
 * index plays in the devnet.
 *
 * Anvil funds 10 accounts by default (indices 0-9), which covers the deployer, oracle, bidder and up to
 * 7 providers (indices 3-9). More providers need Anvil started with more accounts (`--accounts N`).
 */
import { type Address, bytesToHex, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";

export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";
/** Accounts Anvil funds when started without `--accounts`. */
export const ANVIL_DEFAULT_ACCOUNT_COUNT = 10;

export interface DevAccount {
  index: number;
  address: Address;
  privateKey: Hex;
}

/** Account index of each role. Provider i (0-based) uses index `ROLES.firstProvider + i`. */
export const ROLES = {
  /** Deploys the contracts and owns them. */
  deployer: 0,
  owner: 0,
  /** Oracle EOA: records L1 winners in BlockTracker and settles through the Oracle contract. */
  oracle: 1,
  bidder: 2,
  firstProvider: 3,
  /**
   * The devnet's libp2p bootnode (its peer ID; it holds no funds and sends no transactions): an index past the
   * accounts the chains fund, none of which the docs hand to another node (docs/conformance.md gives upstream's
   * bootnode account 16), so that no other node shares its peer ID.
   */
  bootnode: 100,
  /**
   * Deploys the validator opt-in registry on the L1 (the deployer owns it). A deployer of its own keeps L1 contract
   * addresses apart from the settlement chain's (both chains start every account at nonce 0), since upstream's node
   * keys its ABIs by contract address.
   */
  l1Deployer: 17,
  /** Bidder node i ≥ 1 of a devnet started with `--bidders N` uses index `firstExtraBidder + i - 1` (20–27). */
  firstExtraBidder: 20,
  maxBidders: 9,
  /** Funds the simulations' L1 transaction senders and opts their validators in (L1 only). */
  simulationL1: 28,
  /** Opts the devnet's initial validators in on the L1 registry. */
  validatorOptIn: 18,
  /** Sends the unrelated transactions the devnet's "gap" builder puts inside bundles (L1 only). */
  l1Filler: 19,
  /** Providers that fit in Anvil's default 10 accounts. */
  maxProvidersWithDefaultAccounts: ANVIL_DEFAULT_ACCOUNT_COUNT - 3,
} as const;

const cache = new Map<number, DevAccount>();

/** Dev account at HD index `i` of the Anvil mnemonic (derived once, then cached). */
export function devAccount(i: number): DevAccount {
  if (!Number.isInteger(i) || i < 0) throw new RangeError(`dev account index must be a non-negative integer, got ${i}`);
  let acc = cache.get(i);
  if (!acc) {
    const hd = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: i });
    const pk = hd.getHdKey().privateKey;
    if (!pk) throw new Error(`no private key derived for dev account ${i}`);
    acc = { index: i, address: hd.address, privateKey: bytesToHex(pk) };
    cache.set(i, acc);
  }
  return acc;
}

/** Account index of bidder node `i` (0-based): the devnet's bidder, then 10, 11, … */
export function bidderAccountIndex(i: number): number {
  return i === 0 ? ROLES.bidder : ROLES.firstExtraBidder + i - 1;
}

/** Account index of provider `i` (0-based). */
export function providerAccountIndex(i: number): number {
  return ROLES.firstProvider + i;
}

export const deployerAccount = (): DevAccount => devAccount(ROLES.deployer);
export const oracleAccount = (): DevAccount => devAccount(ROLES.oracle);
export const bidderAccount = (): DevAccount => devAccount(ROLES.bidder);
export const providerAccount = (i: number): DevAccount => devAccount(providerAccountIndex(i));

/** Number of accounts Anvil must fund for `providers` providers (at least Anvil's default 10). */
export function requiredAnvilAccounts(providers: number): number {
  return Math.max(ANVIL_DEFAULT_ACCOUNT_COUNT, ROLES.firstProvider + providers);
}
