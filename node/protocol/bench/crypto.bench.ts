/**
 * Crypto micro-benchmark: `bun node/protocol/bench/crypto.bench.ts [--quick]`.
 * Measures the chosen backends (native secp256k1, mcl-wasm BN254) and, for comparison, the
 * pure-JS @noble/curves equivalents. Prints ops/s and µs/op; never fails on speed.
 */
import os from "node:os";
import { bn254 } from "@noble/curves/bn254.js";
import { secp256k1 as noble } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { VECTOR } from "../../testing/testVectors.ts";
import { signBid, verifyBid } from "../bidSigning.ts";
import { publicKeyOf, randomKeyPair, sharedPoint } from "../bn254.ts";
import { signCommitment, verifyCommitment } from "../commitmentSigning.ts";
import { bidDigest, commitmentDigest, protocolDomains } from "../digest.ts";
import { initCrypto } from "../initCrypto.ts";
import { recoverAddress, signDigest } from "../secp256k1.ts";
import type { Bid } from "../types.ts";
import { proveOpening, verifyOpening, zkProofArray } from "../zkProof.ts";

const quick = process.argv.includes("--quick");
const targetMs = quick ? 150 : 1000;

interface Row {
  name: string;
  ops: number;
  usPerOp: number;
}
const rows: Row[] = [];

function bench(name: string, fn: () => unknown): void {
  for (let i = 0; i < 20; i++) fn(); // warm-up (JIT, wasm, precomputed tables)
  let n = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < targetMs) {
    for (let i = 0; i < 10; i++) fn();
    n += 10;
    elapsed = performance.now() - start;
  }
  const usPerOp = (elapsed * 1000) / n;
  rows.push({ name, ops: 1e6 / usPerOp, usPerOp });
  console.log(
    `${name.padEnd(48)} ${(1e6 / usPerOp).toFixed(0).padStart(9)} ops/s ${usPerOp.toFixed(1).padStart(9)} µs/op`,
  );
}

await initCrypto();
const cpus = os.cpus();
console.log(
  `Bun ${Bun.version} on ${os.platform()}-${os.arch()}, navigator.hardwareConcurrency=${navigator.hardwareConcurrency}, ` +
    `os.cpus().length=${cpus.length} (${cpus[0]?.model ?? "unknown CPU"})`,
);
console.log(`single-threaded; ${quick ? "quick run" : "~1 s per line"}\n`);

const domains = protocolDomains(VECTOR.chainId, VECTOR.preconfManager);
const digest = keccak_256(new TextEncoder().encode("bench"));
const sig = signDigest(VECTOR.aliceKey, digest);
const aliceKeyBytes = Uint8Array.from(Buffer.from(VECTOR.aliceKey, "hex"));

console.log("— secp256k1 (chosen: native libsecp256k1 binding)");
bench("sign digest (native)", () => signDigest(VECTOR.aliceKey, digest));
bench("recover address (native + keccak + EIP-55)", () => recoverAddress(digest, sig));
bench("sign digest (@noble/curves, comparison)", () =>
  noble.sign(digest, aliceKeyBytes, { prehash: false, format: "recovered" }),
);
const nobleSig = noble.sign(digest, aliceKeyBytes, { prehash: false, format: "recovered" });
bench("recover public key (@noble/curves, comparison)", () =>
  noble.recoverPublicKey(nobleSig, digest, { prehash: false }),
);

console.log(
  "\n— BN254 G1 (chosen: mcl-wasm; multiples of the generator and of a point used again and again from a table)",
);
const provider = randomKeyPair();
const bidderKeys = randomKeyPair();
// A bidder's key is new with every bid: cycling through more keys than bn254.ts counts uses of keeps each one
// below its table threshold, as in the node, where a provider meets each bidder key once.
const RING = 4096;
const ring = <T>(items: T[]) => {
  let i = 0;
  return () => items[i++ % items.length]!;
};
const nextBidderKey = ring(Array.from({ length: RING }, () => randomKeyPair().publicKey));
bench("key pair (random scalar + base mul, mcl, table)", () => randomKeyPair());
bench("shared point, a new bidder key (variable-base mul)", () => sharedPoint(provider.secret, nextBidderKey()));
bench("shared point, a provider key at a bidder (table)", () => sharedPoint(bidderKeys.secret, provider.publicKey));
const nobleB = bn254.G1.Point.fromAffine(bidderKeys.publicKey);
bench("variable-base mul (@noble/curves, comparison)", () => nobleB.multiply(provider.secret).toAffine());
bench("base mul (@noble/curves, comparison)", () => bn254.G1.Point.BASE.multiply(provider.secret).toAffine());
bench("publicKeyOf (mcl, table)", () => publicKeyOf(provider.secret));

console.log("\n— digests");
bench("bid digest", () => bidDigest(VECTOR.bidFields, domains.bid));
bench("commitment digest", () => commitmentDigest(digest, sig, { x: 1n, y: 2n }, domains.commitment));

console.log("\n— full paths");
const bid: Bid = {
  txHashes: ["aa".repeat(32), "bb".repeat(32)],
  rawTransactions: [],
  amount: 10n ** 18n,
  blockNumber: 42n,
  decayStartTimestamp: 1_700_000_000_000n,
  decayEndTimestamp: 1_700_000_012_000n,
  revertingTxHashes: [],
  slashAmount: 0n,
};
bench("bid sign (BN254 key pair + digest + sign)", () => signBid(bid, VECTOR.aliceKey, domains.bid));
const { signedBid, nikeSecret } = signBid(bid, VECTOR.aliceKey, domains.bid);
bench("bid verify (digest + recover)", () => verifyBid(signedBid, domains.bid));
const nextBid = ring(Array.from({ length: RING }, () => signBid(bid, VECTOR.aliceKey, domains.bid)));
bench("commitment sign (ECDH + digest + sign + recover)", () =>
  signCommitment({
    signedBid: nextBid().signedBid,
    providerPrivateKey: VECTOR.bobKey,
    providerNikeSecret: provider.secret,
    commitmentDomain: domains.commitment,
    dispatchTimestamp: 1n,
  }),
);
const commitment = signCommitment({
  signedBid,
  providerPrivateKey: VECTOR.bobKey,
  providerNikeSecret: provider.secret,
  commitmentDomain: domains.commitment,
  dispatchTimestamp: 1n,
});
bench("commitment verify (ECDH + digest + recover)", () =>
  verifyCommitment({
    signedBid,
    bidderNikeSecret: nikeSecret,
    providerNikePublicKey: provider.publicKey,
    digest: commitment.digest,
    signature: commitment.signature,
    commitmentDomain: domains.commitment,
  }),
);
bench("commitment sign + verify", () => {
  const b = nextBid();
  const c = signCommitment({
    signedBid: b.signedBid,
    providerPrivateKey: VECTOR.bobKey,
    providerNikeSecret: provider.secret,
    commitmentDomain: domains.commitment,
    dispatchTimestamp: 1n,
  });
  verifyCommitment({
    signedBid: b.signedBid,
    bidderNikeSecret: b.nikeSecret,
    providerNikePublicKey: provider.publicKey,
    digest: c.digest,
    signature: c.signature,
    commitmentDomain: domains.commitment,
  });
});
bench("opening proof: prove", () =>
  proveOpening({ providerSecret: provider.secret, bidderPublicKey: nextBidderKey(), chainId: 31337n }),
);
const proof = zkProofArray(
  proveOpening({ providerSecret: provider.secret, bidderPublicKey: bidderKeys.publicKey, chainId: 31337n }),
);
bench("opening proof: verify", () => verifyOpening(proof, 31337n));

const perCore = rows.find((r) => r.name.startsWith("bid sign"));
if (perCore) {
  console.log(
    `\nbid signing on one core ≈ ${perCore.ops.toFixed(0)}/s; × ${navigator.hardwareConcurrency} cores ≈ ${(perCore.ops * navigator.hardwareConcurrency).toFixed(0)}/s upper bound`,
  );
}
