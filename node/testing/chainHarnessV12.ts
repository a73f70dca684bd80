/**
 * Test support for the protocol v1.2 contract tests: the v1.2 bid digest (upstream-head-delta.md §2.6: the v1.1 type
 * string plus `bytes bidOptions`, and keccak256(bidOptions) as the 11th word), commitments built on it, and a chain
 * harness: an automining Anvil on the Prague hardfork (EIP-7702), the v1.2 contracts deployed, providers registered,
 * a snapshot per test.
 */

import { afterAll, afterEach, beforeAll, beforeEach } from "bun:test";
import {
  type Abi,
  type Account,
  type Address,
  type Chain,
  concat,
  encodeAbiParameters,
  type Hex,
  keccak256,
  type Log,
  type PublicClient,
  parseEventLogs,
  stringToHex,
  type TestClient,
  type TransactionReceipt,
  type Transport,
  type WalletClient,
} from "viem";
import { nonceManager } from "viem/accounts";
import { MevCommitError } from "../../lib/errors.ts";
import { ROLES } from "../chain/accounts.ts";
import type { AnvilChain } from "../chain/anvil.ts";
import { ALL_ERRORS_ABI, V12_ABIS } from "../chain/contracts.ts";
import { builderKeyFor } from "../chain/deploy.ts";
import { type DeployV12Params, deployV12Contracts, type V12ContractAddresses } from "../chain/deployV12.ts";
import {
  addr,
  type BidFields,
  type BidInput,
  commitmentDigest,
  commitmentIndex,
  domainSeparator,
  g1Base,
  g1Mul,
  key,
  makeZkProof,
  randomScalar,
  registerTestProviders,
  signDigest,
  startTestChain,
} from "./chainHarness.ts";

export const BID_TYPEHASH_V12 = keccak256(
  stringToHex(
    "PreConfBid(string txnHash,string revertingTxHashes,uint256 bidAmt,uint64 blockNumber,uint64 decayStartTimeStamp,uint64 decayEndTimeStamp,uint256 slashAmt,uint256 bidderPKx,uint256 bidderPKy,bytes bidOptions)",
  ),
);

/** The v1.2 bid digest: v1.1's ten words plus keccak256(bidOptions), under the same non-standard domain. */
export function bidDigestV12(bid: BidFields, bidOptions: Hex, chainId: number | bigint, preconfManager: Address): Hex {
  const structHash = keccak256(
    encodeAbiParameters(
      [
        "bytes32",
        "bytes32",
        "bytes32",
        "uint256",
        "uint64",
        "uint64",
        "uint64",
        "uint256",
        "uint256",
        "uint256",
        "bytes32",
      ].map((type) => ({ type })),
      [
        BID_TYPEHASH_V12,
        keccak256(stringToHex(bid.txnHash)),
        keccak256(stringToHex(bid.revertingTxHashes)),
        bid.bidAmt,
        bid.blockNumber,
        bid.decayStartTimeStamp,
        bid.decayEndTimeStamp,
        bid.slashAmt,
        bid.bidderPKx,
        bid.bidderPKy,
        keccak256(bidOptions),
      ],
    ),
  );
  return keccak256(concat(["0x1901", domainSeparator("PreConfBid", chainId, preconfManager), structHash]));
}

export interface OpenParamsV12 {
  unopenedCommitmentIndex: Hex;
  bidAmt: bigint;
  slashAmt: bigint;
  blockNumber: bigint;
  decayStartTimeStamp: bigint;
  decayEndTimeStamp: bigint;
  txnHash: string;
  revertingTxHashes: string;
  bidSignature: Hex;
  zkProof: bigint[];
  bidOptions: Hex;
}

export interface BuiltCommitmentV12 {
  bid: BidFields;
  bidOptions: Hex;
  bidDigest: Hex;
  commitmentDigest: Hex;
  commitmentSignature: Hex;
  index: Hex;
  openParams(proof: "provider" | "bidder"): OpenParamsV12;
}

/** A signed v1.2 bid and the provider's signed commitment to it. */
export async function buildCommitmentV12(opts: {
  chainId: number | bigint;
  preconfManager: Address;
  bidderKey: Hex;
  providerKey: Hex;
  bid: BidInput;
  bidOptions?: Hex;
}): Promise<BuiltCommitmentV12> {
  const bSk = randomScalar();
  const aSk = randomScalar();
  const B = g1Base(bSk);
  const C = g1Mul(B, aSk);
  const bid: BidFields = {
    txnHash: opts.bid.txnHash ?? "ab".repeat(32),
    revertingTxHashes: opts.bid.revertingTxHashes ?? "",
    bidAmt: opts.bid.bidAmt,
    blockNumber: opts.bid.blockNumber,
    decayStartTimeStamp: opts.bid.decayStartTimeStamp ?? 1000n,
    decayEndTimeStamp: opts.bid.decayEndTimeStamp ?? 2000n,
    slashAmt: opts.bid.slashAmt ?? 0n,
    bidderPKx: B.x,
    bidderPKy: B.y,
  };
  const bidOptions = opts.bidOptions ?? "0x";
  const bHash = bidDigestV12(bid, bidOptions, opts.chainId, opts.preconfManager);
  const bidSignature = await signDigest(bHash, opts.bidderKey);
  const cHash = commitmentDigest(bHash, bidSignature, C.x, C.y, opts.chainId, opts.preconfManager);
  const commitmentSignature = await signDigest(cHash, opts.providerKey);
  const providerProof = makeZkProof(aSk, B, opts.chainId);
  const bidderProof = [0n, 0n, B.x, B.y, C.x, C.y, 0n, 0n];
  const index = commitmentIndex(cHash, commitmentSignature);
  return {
    bid,
    bidOptions,
    bidDigest: bHash,
    commitmentDigest: cHash,
    commitmentSignature,
    index,
    openParams: (proof) => ({
      unopenedCommitmentIndex: index,
      bidAmt: bid.bidAmt,
      slashAmt: bid.slashAmt,
      blockNumber: bid.blockNumber,
      decayStartTimeStamp: bid.decayStartTimeStamp,
      decayEndTimeStamp: bid.decayEndTimeStamp,
      txnHash: bid.txnHash,
      revertingTxHashes: bid.revertingTxHashes,
      bidSignature,
      zkProof: proof === "provider" ? providerProof : bidderProof,
      bidOptions,
    }),
  };
}

// ------------------------------------------------------------------------------------------------ chain harness

type Key = keyof typeof V12_ABIS;

export interface HarnessV12 {
  anvil: AnvilChain;
  rpcUrl: string;
  chainId: number;
  chain: Chain;
  addresses: V12ContractAddresses;
  publicClient: PublicClient;
  testClient: TestClient;
  wallet(i: number): WalletClient<Transport, Chain, Account>;
  /** Reads `functionName` of contract `contract` (at `at`, default its deployed address). */
  read<T = unknown>(contract: Key, functionName: string, args?: readonly unknown[], at?: Address): Promise<T>;
  /** Sends from dev account i to `contract` (or `to`) and waits; throws the decoded revert on failure. */
  tx(
    i: number,
    contract: Key,
    functionName: string,
    args?: readonly unknown[],
    opts?: { value?: bigint; to?: Address; gas?: bigint },
  ): Promise<TransactionReceipt>;
  /** Like tx, but returns the receipt of a mined transaction whatever its status (needs `gas`: no estimate). */
  send(
    i: number,
    contract: Key,
    functionName: string,
    args: readonly unknown[],
    opts: { gas: bigint; value?: bigint; to?: Address },
  ): Promise<TransactionReceipt>;
  /** Expects a revert with custom error `name`; returns its arguments. */
  expectRevert(promise: Promise<unknown>, name: string): Promise<readonly unknown[]>;
  /** Decoded logs of event `eventName` of `contract`'s ABI emitted by `emitter` (default the contract's address). */
  events(
    receipt: TransactionReceipt,
    contract: Key,
    eventName: string,
    emitter?: Address,
  ): (Log & { args: Record<string, unknown> })[];
  balance(address: Address): Promise<bigint>;
  gasCost(receipt: TransactionReceipt): bigint;
  recordWinner(block: bigint, providerAddress: Address | null): Promise<TransactionReceipt>;
}

function revertName(e: unknown): { name: string; args: readonly unknown[] } | undefined {
  let cur = e as
    | { name?: string; data?: { errorName?: string; args?: readonly unknown[] }; cause?: unknown }
    | undefined;
  while (cur) {
    if (cur.name === "ContractFunctionRevertedError" && cur.data?.errorName)
      return { name: cur.data.errorName, args: cur.data.args ?? [] };
    cur = cur.cause as typeof cur;
  }
  return undefined;
}

export class UnexpectedOutcomeError extends MevCommitError {}

/** One v1.2 chain per test file; every test runs on a fresh snapshot. */
export function v12ChainPerTestFile(opts: Parameters<typeof setupV12Chain>[0], use: (h: HarnessV12) => void): void {
  let h: (HarnessV12 & { stop(): Promise<void> }) | undefined;
  let snap: Hex;
  beforeAll(async () => {
    h = await setupV12Chain(opts);
    use(h);
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
  });
  beforeEach(async () => {
    snap = (await h!.testClient.snapshot()) as Hex;
  });
  afterEach(async () => {
    await h!.testClient.revert({ id: snap });
    for (let i = 0; i < 20; i++) nonceManager.reset({ address: addr(i), chainId: h!.chainId });
  });
}

/** An automining Prague Anvil with the v1.2 contracts and `providers` registered providers (10 ETH stake each). */
export async function setupV12Chain(opts: {
  name: string;
  params?: Partial<DeployV12Params>;
  providers?: number;
  providerStake?: bigint;
}): Promise<HarnessV12 & { stop(): Promise<void> }> {
  const chainId = 31337;
  const { anvil, rpcUrl, chain, publicClient, testClient, wallet } = await startTestChain({
    name: opts.name,
    chainId,
    hardfork: "prague",
  });
  try {
    const addresses = await deployV12Contracts({
      rpcUrl,
      chainId,
      owner: key(ROLES.owner),
      oracle: addr(ROLES.oracle),
      params: opts.params,
    });
    await registerTestProviders(rpcUrl, chainId, addresses, opts);
    const abiWithErrors = (contract: Key) => [...(V12_ABIS[contract] as Abi), ...ALL_ERRORS_ABI] as Abi;
    const write = (
      i: number,
      contract: Key,
      functionName: string,
      args: readonly unknown[],
      o: { value?: bigint; to?: Address; gas?: bigint },
    ) =>
      wallet(i).writeContract({
        address: o.to ?? addresses[contract],
        abi: abiWithErrors(contract),
        functionName,
        args,
        value: o.value,
        gas: o.gas,
      } as never);
    const h: HarnessV12 & { stop(): Promise<void> } = {
      anvil,
      rpcUrl,
      chainId,
      chain,
      addresses,
      publicClient,
      testClient,
      wallet,
      read: (contract, functionName, args = [], at) =>
        publicClient.readContract({
          address: at ?? addresses[contract],
          abi: abiWithErrors(contract),
          functionName,
          args,
        } as never) as never,
      async tx(i, contract, functionName, args = [], o = {}) {
        const hash = await write(i, contract, functionName, args, o);
        const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 10 });
        if (receipt.status !== "success")
          throw new UnexpectedOutcomeError(`${contract}.${functionName} reverted in ${hash}`);
        return receipt;
      },
      async send(i, contract, functionName, args, o) {
        const hash = await write(i, contract, functionName, args, o);
        return publicClient.waitForTransactionReceipt({ hash, pollingInterval: 10 });
      },
      async expectRevert(promise, name) {
        let err: unknown;
        try {
          await promise;
        } catch (e) {
          err = e;
        }
        if (err === undefined) throw new UnexpectedOutcomeError(`expected revert ${name}, but it succeeded`);
        const decoded = revertName(err);
        if (decoded?.name !== name)
          throw new UnexpectedOutcomeError(`expected revert ${name}, got ${decoded?.name ?? (err as Error).message}`);
        return decoded.args;
      },
      events(receipt, contract, eventName, emitter) {
        const from = (emitter ?? addresses[contract]).toLowerCase();
        return parseEventLogs({
          abi: V12_ABIS[contract] as Abi,
          logs: receipt.logs.filter((l) => l.address.toLowerCase() === from),
          eventName,
        } as never) as never;
      },
      balance: (address) => publicClient.getBalance({ address }),
      gasCost: (r) => r.gasUsed * r.effectiveGasPrice,
      recordWinner: (block, provider) =>
        h.tx(ROLES.oracle, "blockTracker", "recordL1Block", [block, provider ? builderKeyFor(provider) : "0x"]),
      stop: () => anvil.stop(),
    };
    return h;
  } catch (e) {
    await anvil.stop();
    throw e;
  }
}
