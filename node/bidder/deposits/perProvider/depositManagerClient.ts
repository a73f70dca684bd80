import { type Address, concat, getAddress, type Hex, keccak256, parseEventLogs, zeroAddress } from "viem";
import { chainReadError, sendTransactionError } from "../../../chain/chainErrors.ts";
import type { ChainClients } from "../../../chain/clients.ts";
import { depositManagerV12Abi } from "../../../chain/contractsV12.ts";
import { DEFAULT_GAS_LIMIT, TransactionFailedError, transact } from "../../../chain/transact.ts";
import { InternalError } from "../../../protocol/grpcCodes.ts";

/** The EIP-7702 delegation designator: an account delegated to `impl` has exactly this as its code. */
export function delegationCode(impl: Address): Hex {
  return concat(["0xef0100", impl]);
}

export interface TargetDeposit {
  provider: Address;
  amount: bigint;
}

/**
 * The bidder's deposit manager (upstream-head-delta §2.3, §3.1): the bidder's own EOA delegates to the DepositManager
 * implementation with a self-sponsored EIP-7702 (type 4) transaction, after which the contract's code runs on the EOA's
 * address and storage: target deposits per provider, and top-ups to them from the EOA's balance (by SetTargetDeposits,
 * and by BidderRegistry.openBid each time a commitment of this bidder is opened). Disabling delegates to the zero
 * address, which clears the code; the targets stay in the EOA's storage.
 */
export class DepositManagerClient {
  /** The implementation, as BidderRegistry.depositManagerImpl() names it (read when the deposit service starts). */
  impl: Address = zeroAddress;

  constructor(
    private readonly c: ChainClients,
    /** Tells the account's transaction pipeline its nonce moved (the type-4 transaction does not go through it). */
    private readonly nonceMoved: () => void,
  ) {}

  private get self(): Address {
    return this.c.account.address;
  }

  /** Whether the EOA delegates to the implementation; other code is an error (`codehash is not correct`). */
  async enabled(): Promise<boolean> {
    let code: Hex | undefined;
    try {
      code = await this.c.publicClient.getCode({ address: this.self });
    } catch (e) {
      throw chainReadError("getting code", e);
    }
    if (!code || code === "0x") return false;
    if (keccak256(code) !== keccak256(delegationCode(this.impl)))
      throw new InternalError("codehash is not correct", { context: { code, impl: this.impl } });
    return true;
  }

  /**
   * The latest TargetDepositSet per provider that the EOA emitted (zero targets included), in the order of their
   * providers' first target.
   */
  async targets(): Promise<TargetDeposit[]> {
    let logs: Awaited<ReturnType<typeof this.c.publicClient.getContractEvents>>;
    try {
      logs = await this.c.publicClient.getContractEvents({
        address: this.self,
        abi: depositManagerV12Abi,
        eventName: "TargetDepositSet",
        fromBlock: 0n,
        toBlock: "latest",
      });
    } catch (e) {
      throw chainReadError("filtering target deposits", e);
    }
    const latest = new Map<Address, bigint>();
    // Logs come in chain order (block, then log index): the last one per provider wins.
    for (const l of logs as { args: { provider?: Address; amount?: bigint } }[])
      latest.set(getAddress(l.args.provider!), l.args.amount!);
    return [...latest].map(([provider, amount]) => ({ provider, amount }));
  }

  /** Delegates the EOA to the implementation. */
  enable(): Promise<void> {
    return this.setCode(this.impl);
  }

  /** Clears the delegation. */
  disable(): Promise<void> {
    return this.setCode(zeroAddress);
  }

  /**
   * Sets the targets (a call of the EOA to itself), then tops every listed provider up to its target; answers the
   * targets set and the providers topped up, from the events. As upstream, a failed top-up answers no providers.
   */
  async setTargets(targets: TargetDeposit[]): Promise<{ set: TargetDeposit[]; toppedUp: Address[] }> {
    const providers = targets.map((t) => t.provider);
    const setReceipt = await transact(
      this.c,
      {
        address: this.self,
        abi: depositManagerV12Abi,
        functionName: "setTargetDeposits",
        args: [providers, targets.map((t) => t.amount)],
      },
      "setting target deposits",
    );
    const set = this.logs(setReceipt.logs, "TargetDepositSet").map((l) => ({
      provider: l.args.provider,
      amount: l.args.amount,
    }));
    let toppedUp: Address[] = [];
    try {
      const topUp = await transact(
        this.c,
        { address: this.self, abi: depositManagerV12Abi, functionName: "topUpDeposits", args: [providers] },
        "topping up deposits",
      );
      toppedUp = this.logs(topUp.logs, "DepositToppedUp").map((l) => l.args.provider);
    } catch (e) {
      // A mined revert of the top-up is not an error (upstream does not check that receipt's status).
      if (!((e as { cause?: unknown }).cause instanceof TransactionFailedError)) throw e;
    }
    return { set, toppedUp };
  }

  /**
   * A type-4 transaction from the EOA to the zero address carrying one authorization signed by the EOA itself: the
   * authorization's nonce is the transaction's + 1, since the sender's nonce is bumped before authorizations apply.
   */
  private async setCode(address: Address): Promise<void> {
    let hash: Hex;
    try {
      const nonce = await this.c.publicClient.getTransactionCount({ address: this.self, blockTag: "pending" });
      const authorization = await this.c.walletClient.signAuthorization({
        account: this.c.account,
        contractAddress: address,
        chainId: this.c.chain.id,
        nonce: nonce + 1,
      });
      hash = await this.c.walletClient.sendTransaction({
        account: this.c.account,
        chain: this.c.chain,
        to: zeroAddress,
        value: 0n,
        gas: DEFAULT_GAS_LIMIT,
        nonce,
        authorizationList: [authorization],
      });
    } catch (e) {
      throw await sendTransactionError("setting code", e, { from: this.self, value: 0n }, () =>
        this.c.publicClient.getBalance({ address: this.self }),
      );
    } finally {
      this.nonceMoved();
    }
    let status: string;
    try {
      status = (await this.c.txs.receipt(hash, 60_000)).status;
    } catch (e) {
      throw new InternalError(`waiting for receipt: ${(e as Error).message.split("\n")[0]}`, { cause: e });
    }
    if (status !== "success") throw new InternalError(`receipt status: 0`);
  }

  private logs<E extends "TargetDepositSet" | "DepositToppedUp">(
    logs: Parameters<typeof parseEventLogs>[0]["logs"],
    eventName: E,
  ) {
    const self = this.self.toLowerCase();
    return parseEventLogs({
      abi: depositManagerV12Abi,
      eventName,
      logs: logs.filter((l) => l.address.toLowerCase() === self),
    });
  }
}
