/**
 * The L1 accounts that sign a bidder's transactions: a pool derived from the scenario's seed, one account per
 * transaction slot of a block (bid j's k-th transaction always comes from the same account), so that a
 * transaction a builder left out delays no other, and the same seed signs the same transactions.
 */
import {
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  parseEther,
  stringToHex,
} from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { MevCommitError } from "../../../lib/errors.ts";
import { devAccount, ROLES } from "../../../node/chain/accounts.ts";
import { localChain } from "../../../node/chain/clients.ts";

/** Dev account (Anvil mnemonic) that funds the pools on the L1 and opts validators in. */
export const SIM_L1_ACCOUNT = ROLES.simulationL1;
/** Each pool account gets this much L1 ether (a transaction costs at most 21000 × 10 gwei). */
export const SENDER_FUNDING = parseEther("1");
const MAX_FEE = 10_000_000_000n;

export class SenderFundingError extends MevCommitError {}

export class SenderPool {
  readonly accounts: PrivateKeyAccount[];

  constructor(
    private readonly l1: PublicClient,
    private readonly chainId: number,
    seed: number,
    bidder: number,
    size: number,
  ) {
    this.accounts = Array.from({ length: size }, (_, i) =>
      privateKeyToAccount(keccak256(stringToHex(`mev-commit sim sender/${seed}/${bidder}/${i}`))),
    );
  }

  /**
   * Signs one transaction per slot for L1 block `block`: a self-transfer of `block` wei (unique per block) at the
   * account's next nonce on the latest L1 block. Answers raw payloads without 0x and their hashes.
   */
  async sign(slots: number[], block: bigint): Promise<{ raw: string; hash: string }[]> {
    const accounts = slots.map((s) => this.accounts[s]!);
    const nonces = await Promise.all(
      accounts.map((a) => this.l1.getTransactionCount({ address: a.address, blockTag: "latest" })),
    );
    return Promise.all(
      accounts.map(async (a, i) => {
        const raw = await a.signTransaction({
          chainId: this.chainId,
          nonce: nonces[i]!,
          to: a.address,
          value: block,
          gas: 21_000n,
          maxFeePerGas: MAX_FEE,
          maxPriorityFeePerGas: 1n,
        });
        return { raw: raw.slice(2), hash: keccak256(raw).slice(2) };
      }),
    );
  }
}

/**
 * Sends SENDER_FUNDING to every account that holds less, from dev account SIM_L1_ACCOUNT; answers how many
 * transactions it sent (they land in the next L1 block).
 */
export async function fundSenders(l1RpcUrl: string, chainId: number, pools: SenderPool[]): Promise<number> {
  const l1 = createPublicClient({ transport: http(l1RpcUrl), cacheTime: 0 });
  const funder = createWalletClient({
    account: privateKeyToAccount(devAccount(SIM_L1_ACCOUNT).privateKey),
    chain: localChain(chainId, l1RpcUrl, "l1"),
    transport: http(l1RpcUrl),
  });
  const accounts = pools.flatMap((p) => p.accounts);
  const have = await l1.getBalance({ address: funder.account.address });
  if (have < SENDER_FUNDING * BigInt(accounts.length))
    throw new SenderFundingError(
      `the simulation funds its ${accounts.length} L1 sender accounts from dev account ${SIM_L1_ACCOUNT} (${funder.account.address}), which holds ${have} wei on this L1; ` +
        `it needs ${SENDER_FUNDING * BigInt(accounts.length)} (the devnet's Anvil funds 30 dev accounts)`,
    );
  let nonce = await l1.getTransactionCount({ address: funder.account.address, blockTag: "pending" });
  let sent = 0;
  for (const a of accounts) {
    if ((await l1.getBalance({ address: a.address })) >= SENDER_FUNDING / 2n) continue;
    await funder.sendTransaction({
      to: a.address,
      value: SENDER_FUNDING,
      nonce: nonce++,
      gas: 21_000n,
      maxFeePerGas: MAX_FEE,
      maxPriorityFeePerGas: 1n,
    });
    sent++;
  }
  return sent;
}

export async function sendRawToL1(l1: PublicClient, raws: string[]): Promise<Hex[]> {
  return Promise.all(raws.map((r) => l1.request({ method: "eth_sendRawTransaction", params: [`0x${r}` as Hex] })));
}
