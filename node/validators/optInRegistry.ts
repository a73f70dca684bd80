/**
 * The L1 side of the validator service: reading the opt-in registry (`areValidatorsOptedIn`, one call for many
 * keys) and L1 blocks, and sending opt-in / opt-out transactions.
 */
import {
  type Address,
  BaseError,
  createPublicClient,
  encodeFunctionData,
  type Hex,
  http,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { MevCommitError } from "../../lib/errors.ts";
import { decodeRevert, validatorOptInRouterAbi } from "../chain/contracts.ts";
import { logger } from "../util/log.ts";

/** What the validator service needs from L1. */
export interface ValidatorChain {
  /** The latest L1 block number (the last mined slot). */
  blockNumber(): Promise<bigint>;
  /** Timestamp (Unix seconds) of a mined block; undefined if the block does not exist yet. */
  blockTimestamp(blockNumber: bigint): Promise<bigint | undefined>;
  /**
   * Whether each key is opted in (upstream's rule: vanilla or AVS or middleware), in the order given, read at the
   * latest block with one `areValidatorsOptedIn` call.
   */
  areValidatorsOptedIn(keys: readonly Hex[]): Promise<boolean[]>;
}

export class ValidatorRegistryError extends MevCommitError {}

/** Reads the opt-in registry and blocks of an L1 chain over JSON-RPC. */
export class L1ValidatorChain implements ValidatorChain {
  readonly registry: Address;
  private readonly client: PublicClient;
  private readonly log = logger("validators");
  private warnedNoCode = false;

  constructor(opts: { rpcUrl: string; registry: Address } | { client: PublicClient; registry: Address }) {
    this.client =
      "client" in opts
        ? opts.client
        : createPublicClient({ transport: http(opts.rpcUrl, { retryCount: 1 }), cacheTime: 0 });
    this.registry = opts.registry;
  }

  blockNumber(): Promise<bigint> {
    return this.client.getBlockNumber({ cacheTime: 0 });
  }

  async blockTimestamp(blockNumber: bigint): Promise<bigint | undefined> {
    try {
      return (await this.client.getBlock({ blockNumber })).timestamp;
    } catch (e) {
      if (e instanceof BaseError && e.walk((x) => (x as { name?: string }).name === "BlockNotFoundError"))
        return undefined;
      throw e;
    }
  }

  /**
   * A registry address without code (for example, its deployment is still pending on a manual-mining L1) has no
   * opt-ins: every key reads as not opted in (logged once).
   */
  async areValidatorsOptedIn(keys: readonly Hex[]): Promise<boolean[]> {
    if (keys.length === 0) return [];
    try {
      const statuses = await this.client.readContract({
        address: this.registry,
        abi: validatorOptInRouterAbi,
        functionName: "areValidatorsOptedIn",
        args: [keys],
      });
      if (statuses.length !== keys.length) {
        throw new ValidatorRegistryError(
          `areValidatorsOptedIn answered ${statuses.length} statuses for ${keys.length} keys`,
        );
      }
      return statuses.map((s) => s.isVanillaOptedIn || s.isAvsOptedIn || s.isMiddlewareOptedIn);
    } catch (e) {
      if (e instanceof ValidatorRegistryError) throw e;
      const code = await this.client.getCode({ address: this.registry }).catch(() => "unknown");
      if (code === undefined || code === "0x") {
        if (!this.warnedNoCode)
          this.log.info("validator registry has no code (yet): no validator is opted in", { registry: this.registry });
        this.warnedNoCode = true;
        return keys.map(() => false);
      }
      throw e;
    }
  }
}

export interface SendOptInOptions {
  /** L1 RPC. */
  rpcUrl: string;
  /** Registry address (from deployValidatorRegistry). */
  registry: Address;
  /** Key of the sender (the devnet uses dev account 18). */
  privateKey: Hex;
  /** 48-byte BLS public keys. */
  keys: readonly Hex[];
  /**
   * false (default): resolve with the transaction hash once the node accepted it (on a manual-mining L1 it lands
   * in the next block the driver mines). true: also wait until it is mined and succeeded.
   */
  wait?: boolean;
}

export class ValidatorOptInError extends MevCommitError {}

async function sendRegistryCall(fn: "optIn" | "optOut", opts: SendOptInOptions): Promise<Hex> {
  const client = createPublicClient({
    transport: http(opts.rpcUrl, { retryCount: 0 }),
    pollingInterval: 25,
    cacheTime: 0,
  });
  const account = privateKeyToAccount(opts.privateKey);
  const data = encodeFunctionData({ abi: validatorOptInRouterAbi, functionName: fn, args: [opts.keys] });
  try {
    const [chainId, nonce, gas, block] = await Promise.all([
      client.getChainId(),
      client.getTransactionCount({ address: account.address, blockTag: "pending" }),
      // Estimation runs the call: a refused opt-in (bad length, already opted in, …) fails here with its reason.
      client.estimateGas({ account: account.address, to: opts.registry, data }),
      client.getBlock({ blockTag: "latest" }),
    ]);
    const tip = 1_000_000_000n;
    const raw = await account.signTransaction({
      type: "eip1559",
      chainId,
      nonce,
      to: opts.registry,
      data,
      gas: (gas * 6n) / 5n,
      maxFeePerGas: (block.baseFeePerGas ?? 1_000_000_000n) * 2n + tip,
      maxPriorityFeePerGas: tip,
    });
    const hash = await client.sendRawTransaction({ serializedTransaction: raw });
    if (opts.wait) {
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 25 });
      if (receipt.status !== "success") throw new ValidatorOptInError(`${fn}: transaction ${hash} failed`);
    }
    return hash;
  } catch (e) {
    if (e instanceof ValidatorOptInError) throw e;
    const revert = decodeRevert(e);
    throw new ValidatorOptInError(`${fn}: ${revert?.text ?? (e as Error).message}`, { cause: e });
  }
}

/** Opts keys in (the sender becomes their opt-in account). Resolves with the transaction hash. */
export function optInValidators(opts: SendOptInOptions): Promise<Hex> {
  return sendRegistryCall("optIn", opts);
}

/** Opts keys out (sender: their opt-in account or the registry owner). Resolves with the transaction hash. */
export function optOutValidators(opts: SendOptInOptions): Promise<Hex> {
  return sendRegistryCall("optOut", opts);
}
