import {
  type Address,
  BaseError,
  formatEther,
  HttpRequestError,
  InsufficientFundsError,
  InvalidParamsRpcError,
  TimeoutError,
  WebSocketRequestError,
} from "viem";
import {
  FailedPreconditionError,
  InternalError,
  InvalidArgumentError,
  type RpcError,
  UnavailableError,
} from "../protocol/grpcCodes.ts";

/**
 * gRPC codes for what the chain answers. Upstream answers every chain failure as Internal (HTTP 500); a revert the
 * caller can avoid (a delay not passed, a request already pending, a window still open) and a balance too small for
 * the transaction are the caller's state, not a server fault: FailedPrecondition (HTTP 400), with upstream's text
 * first and then what to change; a revert caused by an argument (a BLS signature that does not verify) is
 * InvalidArgument. A chain that cannot be reached is Unavailable (HTTP 503). Anything else stays
 * Internal. docs/divergences.md lists this.
 */

/** What the caller should change, for each revert that follows from the caller's own state; args as the ABI orders them. */
const CALLER_REVERTS: Readonly<Record<string, (args: readonly unknown[]) => string>> = {
  // ProviderRegistry
  DelayNotPassed: ([requestedAt, delay, now]) => {
    const ready = BigInt(requestedAt as bigint) + BigInt(delay as bigint);
    const left = ready - BigInt(now as bigint);
    return `the withdrawal delay has not passed; call withdraw_stake again after ${ready} (Unix ms, ${msText(left)} from the last block)`;
  },
  UnstakeRequestExists: () =>
    "an unstake request is already pending; call withdraw_stake once the withdrawal delay has passed",
  NoUnstakeRequest: () =>
    "there is no unstake request; call unstake first, then withdraw_stake after the withdrawal delay",
  NoStakeToWithdraw: () => "this provider has no stake",
  PendingWithdrawalRequest: () =>
    "an unstake request is pending; withdraw the stake (withdraw_stake) before staking again",
  InsufficientStake: ([, minStake]) => `stake at least the minimum stake of ${minStake} wei`,
  ProviderCommitmentsPending: ([, pending]) =>
    `${pending} commitment(s) of this provider are not settled yet; withdraw after they settle`,
  ProviderNotRegistered: () => "this provider is not registered; stake with BLS keys and signatures first",
  ProviderAlreadyRegistered: () => "this provider is already registered",
  BidderAmountIsZero: () => "there are no slashed funds to claim",
  // BidderRegistry
  WithdrawAfterWindowSettled: ([window, current]) =>
    `window ${window} has not closed yet (current window ${current}); withdraw it after it closes`,
  WindowNotSettled: () => "the window has not closed yet; withdraw it once the next window has begun",
  DepositAmountIsZero: () => "deposit a positive amount",
  ProviderAmountIsZero: () => "there is no reward to withdraw",
};

/** The first line of an error's message, without a closing full stop (viem's sentences end with one). */
function firstLine(e: unknown): string {
  return ((e as Error)?.message ?? String(e)).split("\n")[0]!.replace(/\.$/, "");
}

/** What the caller should change, for each revert caused by an argument the node cannot check itself. */
const ARGUMENT_REVERTS: Readonly<Record<string, (args: readonly unknown[]) => string>> = {
  BLSSignatureInvalid: () =>
    "the BLS signature does not verify for this key; sign the provider's address with the key's secret",
  PublicKeyLengthInvalid: ([expected]) => `a BLS public key has ${expected} bytes`,
  SignatureLengthInvalid: ([expected]) => `a BLS signature has ${expected} bytes`,
};

function msText(ms: bigint): string {
  return ms >= 1000n ? `${ms / 1000n} s` : `${ms} ms`;
}

/**
 * The error for a mined transaction that reverted: `message` is upstream's text (`…: transaction failed: Name(…)`).
 * FailedPrecondition with a hint when the revert is the caller's to avoid, else Internal.
 */
export function revertedTransactionError(
  message: string,
  errorName: string,
  args: readonly unknown[],
  context: Record<string, unknown>,
  cause: unknown,
): RpcError {
  const hint = CALLER_REVERTS[errorName];
  if (hint) return new FailedPreconditionError(`${message}: ${hint(args)}`, { cause, context });
  const argument = ARGUMENT_REVERTS[errorName];
  if (argument) return new InvalidArgumentError(`${message}: ${argument(args)}`, { cause, context });
  return new InternalError(message, { cause, context });
}

/** Is this the chain's node unreachable (connection refused, reset, timed out), rather than an answer? */
export function isChainUnreachable(e: unknown): boolean {
  if (!(e instanceof BaseError)) return false;
  return (
    e.walk((x) => x instanceof HttpRequestError || x instanceof TimeoutError || x instanceof WebSocketRequestError) !==
    null
  );
}

/**
 * The error for a transaction the chain refused to take (`<what>: <first line of the chain's error>`, upstream's text):
 * FailedPrecondition when the account cannot pay for it (with its balance), Unavailable when the chain cannot be reached,
 * else Internal. A value so close to 2^256 that value plus gas overflows a uint256 is refused by the chain as invalid
 * parameters rather than as insufficient funds; with a balance below the value it is the same refusal. `balanceOf`
 * reads the account's balance; it is only called for those two errors.
 */
export async function sendTransactionError(
  what: string,
  e: unknown,
  tx: { from: Address; value?: bigint },
  balanceOf: () => Promise<bigint>,
): Promise<RpcError> {
  const text = `${what}: ${firstLine(e)}`;
  const value = tx.value ?? 0n;
  const funds = e instanceof BaseError && e.walk((x) => x instanceof InsufficientFundsError) !== null;
  const invalidParams =
    value > 0n && e instanceof BaseError && e.walk((x) => x instanceof InvalidParamsRpcError) !== null;
  if (funds || invalidParams) {
    const balance = await balanceOf().catch(() => undefined);
    if (funds || (balance !== undefined && balance < value)) {
      const has =
        balance === undefined ? "" : `account ${tx.from} holds ${balance} wei (${formatEther(balance)} ETH), `;
      return new FailedPreconditionError(
        `${text}: insufficient funds: ${has}the transaction needs ${value} wei plus gas; send less or fund the account`,
        {
          cause: e,
          context: { from: tx.from, value, balance },
        },
      );
    }
  }
  if (isChainUnreachable(e))
    return new UnavailableError(`${text}: the settlement chain cannot be reached; try again`, { cause: e });
  return new InternalError(text, { cause: e });
}

/** The error for a failed chain read: Unavailable when the chain cannot be reached, else Internal (`<what>: <err>`). */
export function chainReadError(what: string, e: unknown): RpcError {
  const text = `${what}: ${firstLine(e)}`;
  return isChainUnreachable(e) ? new UnavailableError(text, { cause: e }) : new InternalError(text, { cause: e });
}
