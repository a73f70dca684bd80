/**
 * Test support for the contract tests: a minimal, self-contained TS twin of the on-chain digests
 * (crypto-contracts.md §1), the BN254 ZK opening proof (§5), and a chain harness (Anvil + deployment +
 * clients + snapshot helpers). The production digest code lives elsewhere (node/protocol); this file only
 * exists so the contract tests do not depend on it.
 */

import { afterAll, afterEach, beforeAll, beforeEach } from "bun:test";
import { bn254 } from "@noble/curves/bn254.js";
import {
  type Abi,
  type Account,
  type Address,
  type Chain,
  concat,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  encodeAbiParameters,
  encodePacked,
  type Hex,
  http,
  keccak256,
  type Log,
  type PublicClient,
  parseEventLogs,
  stringToHex,
  type TestClient,
  type TransactionReceipt,
  type Transport,
  toHex,
  type WalletClient,
} from "viem";
import { nonceManager, privateKeyToAccount, sign } from "viem/accounts";
import { devAccount, ROLES } from "../chain/accounts.ts";
import { type AnvilChain, startAnvil } from "../chain/anvil.ts";
import { nonceManagerFor } from "../chain/clients.ts";
import {
  ABI_BY_KEY,
  ALL_ERRORS_ABI,
  type ContractAddresses,
  type ContractRevertError,
  type Contracts,
  decodeRevert,
  getContracts,
} from "../chain/contracts.ts";
import { builderKeyFor, type DeployParams, deployContracts, registerProvider } from "../chain/deploy.ts";
import { forgetNonces } from "../chain/txPipeline.ts";
import { freePort } from "../util/ports.ts";

// ------------------------------------------------------------------------------------------------ digests

export const EIP712_DOMAIN_TYPEHASH = keccak256(
  stringToHex("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
);
export const BID_TYPEHASH = keccak256(
  stringToHex(
    "PreConfBid(string txnHash,string revertingTxHashes,uint256 bidAmt,uint64 blockNumber,uint64 decayStartTimeStamp,uint64 decayEndTimeStamp,uint256 slashAmt,uint256 bidderPKx,uint256 bidderPKy)",
  ),
);
export const COMMITMENT_TYPEHASH = keccak256(
  stringToHex("OpenedCommitment(bytes32 bidHash,string signature,uint256 sharedKeyX,uint256 sharedKeyY)"),
);

/** Upstream's non-standard domain separator: name and version ABI-encoded as dynamic strings. */
export function domainSeparator(name: string, chainId: number | bigint, verifyingContract: Address): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: "bytes32" }, { type: "string" }, { type: "string" }, { type: "uint256" }, { type: "address" }],
      [EIP712_DOMAIN_TYPEHASH, name, "1", BigInt(chainId), verifyingContract],
    ),
  );
}

export interface BidFields {
  txnHash: string;
  revertingTxHashes: string;
  bidAmt: bigint;
  blockNumber: bigint;
  decayStartTimeStamp: bigint;
  decayEndTimeStamp: bigint;
  slashAmt: bigint;
  bidderPKx: bigint;
  bidderPKy: bigint;
}

const typed = (domainSep: Hex, structHash: Hex): Hex => keccak256(concat(["0x1901", domainSep, structHash]));

export function bidDigest(bid: BidFields, chainId: number | bigint, preconfManager: Address): Hex {
  const structHash = keccak256(
    encodeAbiParameters(
      [
        { type: "bytes32" },
        { type: "bytes32" },
        { type: "bytes32" },
        { type: "uint256" },
        { type: "uint64" },
        { type: "uint64" },
        { type: "uint64" },
        { type: "uint256" },
        { type: "uint256" },
        { type: "uint256" },
      ],
      [
        BID_TYPEHASH,
        keccak256(stringToHex(bid.txnHash)),
        keccak256(stringToHex(bid.revertingTxHashes)),
        bid.bidAmt,
        bid.blockNumber,
        bid.decayStartTimeStamp,
        bid.decayEndTimeStamp,
        bid.slashAmt,
        bid.bidderPKx,
        bid.bidderPKy,
      ],
    ),
  );
  return typed(domainSeparator("PreConfBid", chainId, preconfManager), structHash);
}

export function commitmentDigest(
  bidHash: Hex,
  bidSignature: Hex,
  sharedX: bigint,
  sharedY: bigint,
  chainId: number | bigint,
  preconfManager: Address,
): Hex {
  const structHash = keccak256(
    encodeAbiParameters(
      [{ type: "bytes32" }, { type: "bytes32" }, { type: "bytes32" }, { type: "uint256" }, { type: "uint256" }],
      [COMMITMENT_TYPEHASH, bidHash, keccak256(bidSignature), sharedX, sharedY],
    ),
  );
  return typed(domainSeparator("OpenedCommitment", chainId, preconfManager), structHash);
}

/** keccak256(digest ‖ signature): index of both the unopened and the opened commitment. */
export const commitmentIndex = (digest: Hex, signature: Hex): Hex => keccak256(concat([digest, signature]));

/** 65-byte r‖s‖v signature over the raw digest, low-S, v = 27/28. */
export async function signDigest(digest: Hex, privateKey: Hex): Promise<Hex> {
  const sig = await sign({ hash: digest, privateKey, to: "hex" });
  const v = sig.slice(-2);
  if (v !== "1b" && v !== "1c") throw new Error(`unexpected v byte ${v}`);
  return sig;
}

// ------------------------------------------------------------------------------------------------ BN254 / ZK

const G1 = bn254.G1.Point;
export const BN254_ORDER: bigint = G1.Fn.ORDER;
const MASK_253 = (1n << 253n) - 1n;

export interface G1Affine {
  x: bigint;
  y: bigint;
}

export function randomScalar(): bigint {
  const bytes = crypto.getRandomValues(new Uint8Array(48));
  const n = BigInt(toHex(bytes)) % (BN254_ORDER - 1n);
  return n + 1n;
}

export const g1Mul = (p: G1Affine, k: bigint): G1Affine => G1.fromAffine(p).multiply(k).toAffine();
export const g1Base = (k: bigint): G1Affine => G1.BASE.multiply(k).toAffine();

export const zkContextHash = (chainId: number | bigint): Hex => keccak256(stringToHex(`mev-commit opening ${chainId}`));

function challenge(ctx: Hex, pts: G1Affine[]): bigint {
  const words = pts.flatMap((p) => [p.x, p.y]);
  const h = keccak256(encodePacked(["bytes32", ...words.map(() => "uint256" as const)], [ctx, ...words]));
  return BigInt(h) & MASK_253;
}

/**
 * Chaum–Pedersen proof that A = a·G and C = a·B share a: zkProof = [A.x, A.y, B.x, B.y, C.x, C.y, c, z].
 */
export function makeZkProof(providerSk: bigint, bidderPk: G1Affine, chainId: number | bigint): bigint[] {
  const A = g1Base(providerSk);
  const C = g1Mul(bidderPk, providerSk);
  const k = randomScalar();
  const T1 = g1Base(k);
  const T2 = g1Mul(bidderPk, k);
  const c = challenge(zkContextHash(chainId), [A, bidderPk, C, T1, T2]);
  const z = (((k - providerSk * c) % BN254_ORDER) + BN254_ORDER) % BN254_ORDER;
  return [A.x, A.y, bidderPk.x, bidderPk.y, C.x, C.y, c, z];
}

/** TS twin of the on-chain check: T1 = z·G + c·A, T2 = z·B + c·C, hash mod 2^253 == c. */
export function verifyZkProof(p: readonly bigint[], chainId: number | bigint): boolean {
  const [ax, ay, bx, by, cx, cy, c, z] = p as [bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint];
  const A = { x: ax, y: ay };
  const B = { x: bx, y: by };
  const C = { x: cx, y: cy };
  const mulOrZero = (pt: G1Affine, k: bigint) =>
    k % BN254_ORDER === 0n ? G1.ZERO : G1.fromAffine(pt).multiply(k % BN254_ORDER);
  const T1 = mulOrZero({ x: 1n, y: 2n }, z).add(mulOrZero(A, c)).toAffine();
  const T2 = mulOrZero(B, z).add(mulOrZero(C, c)).toAffine();
  return challenge(zkContextHash(chainId), [A, B, C, T1, T2]) === c;
}

// ------------------------------------------------------------------------------------------------ commitments

export interface OpenParams {
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
}

export interface BuiltCommitment {
  bid: BidFields;
  bidDigest: Hex;
  bidSignature: Hex;
  commitmentDigest: Hex;
  commitmentSignature: Hex;
  index: Hex;
  /** Proof the winning provider must send. */
  providerProof: bigint[];
  /** What a bidder sends: zeros at 0, 1, 6, 7. */
  bidderProof: bigint[];
  openParams(proof: "provider" | "bidder"): OpenParams;
}

export interface BidInput {
  txnHash?: string;
  revertingTxHashes?: string;
  bidAmt: bigint;
  blockNumber: bigint;
  decayStartTimeStamp?: bigint;
  decayEndTimeStamp?: bigint;
  slashAmt?: bigint;
}

/** Builds a signed bid and the provider's signed commitment to it, as the off-chain protocol would. */
export async function buildCommitment(opts: {
  chainId: number | bigint;
  preconfManager: Address;
  bidderKey: Hex;
  providerKey: Hex;
  bid: BidInput;
  /** Fixed BN254 keys (default: random). */
  bidderNikeSk?: bigint;
  providerNikeSk?: bigint;
  /** Override the bidder public key / shared key words (for vector tests). */
  bidderPk?: G1Affine;
  sharedKey?: G1Affine;
}): Promise<BuiltCommitment> {
  const bSk = opts.bidderNikeSk ?? randomScalar();
  const aSk = opts.providerNikeSk ?? randomScalar();
  const B = opts.bidderPk ?? g1Base(bSk);
  const C = opts.sharedKey ?? g1Mul(B, aSk);
  const bid: BidFields = {
    txnHash: opts.bid.txnHash ?? `${"ab".repeat(32)}`,
    revertingTxHashes: opts.bid.revertingTxHashes ?? "",
    bidAmt: opts.bid.bidAmt,
    blockNumber: opts.bid.blockNumber,
    decayStartTimeStamp: opts.bid.decayStartTimeStamp ?? 1000n,
    decayEndTimeStamp: opts.bid.decayEndTimeStamp ?? 2000n,
    slashAmt: opts.bid.slashAmt ?? 0n,
    bidderPKx: B.x,
    bidderPKy: B.y,
  };
  const bHash = bidDigest(bid, opts.chainId, opts.preconfManager);
  const bidSignature = await signDigest(bHash, opts.bidderKey);
  const cHash = commitmentDigest(bHash, bidSignature, C.x, C.y, opts.chainId, opts.preconfManager);
  const commitmentSignature = await signDigest(cHash, opts.providerKey);
  const providerProof = opts.sharedKey ? [0n, 0n, B.x, B.y, C.x, C.y, 0n, 0n] : makeZkProof(aSk, B, opts.chainId);
  const bidderProof = [0n, 0n, B.x, B.y, C.x, C.y, 0n, 0n];
  const index = commitmentIndex(cHash, commitmentSignature);
  return {
    bid,
    bidDigest: bHash,
    bidSignature,
    commitmentDigest: cHash,
    commitmentSignature,
    index,
    providerProof,
    bidderProof,
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
    }),
  };
}

// ------------------------------------------------------------------------------------------------ chain harness

type Key = keyof ContractAddresses;

export interface Harness {
  anvil: AnvilChain;
  rpcUrl: string;
  chainId: number;
  chain: Chain;
  addresses: ContractAddresses;
  publicClient: PublicClient;
  testClient: TestClient;
  read: Contracts;
  /** Wallet client of dev account i. */
  wallet(i: number): WalletClient<Transport, Chain, Account>;
  /** Sends a transaction from dev account i and waits for a successful receipt (throws the revert otherwise). */
  tx(
    i: number,
    contract: Key,
    functionName: string,
    args?: readonly unknown[],
    value?: bigint,
  ): Promise<TransactionReceipt>;
  /** Expects the call to revert with custom error `name`; returns the decoded revert. */
  expectRevert(promise: Promise<unknown>, name: string): Promise<ContractRevertError>;
  events(receipt: TransactionReceipt, contract: Key, eventName: string): (Log & { args: Record<string, unknown> })[];
  balance(address: Address): Promise<bigint>;
  gasCost(receipt: TransactionReceipt): bigint;
  snapshot(): Promise<Hex>;
  revertTo(id: Hex): Promise<void>;
  /** Records L1 block `block` as won by provider `providerIndex`'s builder key (or no one if null). */
  recordWinner(block: bigint, providerAddress: Address | null): Promise<TransactionReceipt>;
  stop(): Promise<void>;
}

/** An automining Anvil with viem's clients around it and a wallet per dev account, for a harness to deploy into. */
export interface TestChain {
  anvil: AnvilChain;
  rpcUrl: string;
  chain: Chain;
  publicClient: PublicClient;
  testClient: TestClient;
  wallet(i: number): WalletClient<Transport, Chain, Account>;
}

export async function startTestChain(opts: {
  name: string;
  chainId: number;
  port?: number;
  hardfork?: "prague" | "cancun";
}): Promise<TestChain> {
  const anvil = await startAnvil({
    name: opts.name,
    port: opts.port ?? (await freePort()),
    chainId: opts.chainId,
    mining: "auto",
    hardfork: opts.hardfork,
  });
  const rpcUrl = anvil.rpcUrl;
  const chain = defineChain({
    id: opts.chainId,
    name: opts.name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const transport = http(rpcUrl);
  const wallets = new Map<number, WalletClient<Transport, Chain, Account>>();
  return {
    anvil,
    rpcUrl,
    chain,
    publicClient: createPublicClient({ chain, transport, pollingInterval: 10 }) as PublicClient,
    testClient: createTestClient({ chain, mode: "anvil", transport }) as TestClient,
    wallet(i) {
      let w = wallets.get(i);
      if (!w) wallets.set(i, (w = createWalletClient({ chain, transport, account: privateKeyToAccount(key(i)) })));
      return w;
    },
  };
}

/** Registers and stakes `providers` dev-account providers (default 2, 10 ETH each) with the deployed registry. */
export async function registerTestProviders(
  rpcUrl: string,
  chainId: number,
  addresses: Parameters<typeof registerProvider>[0]["addresses"],
  opts: { providers?: number; providerStake?: bigint },
): Promise<void> {
  for (let i = 0; i < (opts.providers ?? 2); i++) {
    await registerProvider({
      rpcUrl,
      chainId,
      addresses,
      providerKey: key(ROLES.firstProvider + i),
      ownerKey: key(ROLES.owner),
      stake: opts.providerStake ?? 10n * 10n ** 18n,
    });
  }
}

/**
 * One harness per test file, every test on a fresh snapshot: registers the bun hooks that start the chain, take a
 * snapshot before each test and revert to it after (resetting viem's shared nonce manager, whose handed-out
 * nonces the revert rewinds). `use` receives the harness once it is up.
 */
export function chainPerTestFile(opts: Parameters<typeof setupChain>[0], use: (h: Harness) => void): void {
  let h: Harness | undefined;
  let snap: Hex;
  beforeAll(async () => {
    h = await setupChain(opts);
    use(h);
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
  });
  beforeEach(async () => {
    snap = await h!.snapshot();
  });
  afterEach(async () => {
    await h!.revertTo(snap);
    for (let i = 0; i < 20; i++) {
      nonceManager.reset({ address: addr(i), chainId: h!.chainId });
      nonceManagerFor(h!.rpcUrl).reset({ address: addr(i), chainId: h!.chainId });
    }
    forgetNonces(h!.rpcUrl);
  });
}

export const addr = (i: number): Address => devAccount(i).address;
export const key = (i: number): Hex => devAccount(i).privateKey;

/** Starts an automining Anvil, deploys the contracts and registers `providers` providers (10 ETH each). */
export async function setupChain(opts: {
  name: string;
  /** Default: a free port (fixed ports collide when several checkouts run their tests at once). */
  port?: number;
  chainId?: number;
  params?: Partial<DeployParams>;
  providers?: number;
  providerStake?: bigint;
}): Promise<Harness> {
  const chainId = opts.chainId ?? 31337;
  const { anvil, rpcUrl, chain, publicClient, testClient, wallet } = await startTestChain({ ...opts, chainId });
  try {
    const addresses = await deployContracts({
      rpcUrl,
      chainId,
      owner: key(ROLES.owner),
      oracle: addr(ROLES.oracle),
      params: opts.params,
    });
    await registerTestProviders(rpcUrl, chainId, addresses, opts);
    const h: Harness = {
      anvil,
      rpcUrl,
      chainId,
      chain,
      addresses,
      publicClient,
      testClient,
      read: getContracts(addresses, publicClient),
      wallet,
      async tx(i, contract, functionName, args = [], value) {
        const hash = await wallet(i).writeContract({
          address: addresses[contract],
          abi: ABI_BY_KEY[contract] as Abi,
          functionName,
          args,
          value,
        } as never);
        const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 10 });
        if (receipt.status !== "success") throw new Error(`${contract}.${functionName} failed in ${hash}`);
        return receipt;
      },
      async expectRevert(promise, name) {
        let err: unknown;
        try {
          await promise;
        } catch (e) {
          err = e;
        }
        if (err === undefined) throw new Error(`expected revert ${name}, but the call succeeded`);
        const decoded = decodeRevert(err);
        if (!decoded) throw new Error(`expected revert ${name}, got non-revert error: ${(err as Error).message}`);
        if (decoded.errorName !== name) throw new Error(`expected revert ${name}, got ${decoded.text}`);
        return decoded;
      },
      events(receipt, contract, eventName) {
        return parseEventLogs({
          abi: [...(ABI_BY_KEY[contract] as Abi), ...ALL_ERRORS_ABI],
          logs: receipt.logs.filter((l) => l.address.toLowerCase() === addresses[contract].toLowerCase()),
          eventName,
        } as never) as never;
      },
      balance: (address) => publicClient.getBalance({ address }),
      gasCost: (r) => r.gasUsed * r.effectiveGasPrice,
      async snapshot() {
        return (await testClient.snapshot()) as Hex;
      },
      async revertTo(id) {
        await testClient.revert({ id });
      },
      recordWinner(block, providerAddress) {
        return h.tx(ROLES.oracle, "blockTracker", "recordL1Block", [
          block,
          providerAddress ? builderKeyFor(providerAddress) : "0x",
        ]);
      },
      stop: () => anvil.stop(),
    };
    return h;
  } catch (e) {
    await anvil.stop();
    throw e;
  }
}

export const ETH = 10n ** 18n;
export const toWei = (eth: string): bigint => {
  const [i, f = ""] = eth.split(".");
  return BigInt(i!) * ETH + BigInt((f + "0".repeat(18)).slice(0, 18));
};
