/**
 * Upstream test vectors (crypto-contracts §1.6): inputs of encryptor_test.go / PreconfManagerTest.sol
 * at 5f1068d1 and their expected outputs. Shared by the unit tests and the benchmark.
 */
import type { Address } from "viem";
import type { BidDigestFields } from "../protocol/digest.ts";

export const VECTOR = {
  chainId: 31337n,
  preconfManager: "0xA4AD4f68d0b91CFD19687c881e50f3A00242828c" as Address,
  bidFields: {
    txnHash: "0xkartik",
    revertingTxHashes: "0xkartik",
    bidAmt: 2n,
    blockNumber: 2n,
    decayStart: 10n,
    decayEnd: 20n,
    slashAmt: 0n,
    bidderPK: { x: 1n, y: 2n },
  } satisfies BidDigestFields,
  bidDigest: "8d1f669e1d55329ba0dc133fba063c06c8ae146b8e815732f9951930c807ff7f",
  wrongEip712BidDigest: "c97113d35d21abc5630c905f642bc6fdc686b5373af0efd65f1173aa0c3f60be",
  /** Foundry makeAddrAndKey("alice"): keccak256("alice"); the same key as encryptor_test.go's alice. */
  aliceKey: "9c0257114eb9399a2985f8e75dad7600c5d89fe3824ffa99ec1c3eb8bf3b0501",
  aliceAddress: "0x328809Bc894f92807417D2dAD6b7C998c1aFdac6" as Address,
  bidSignature:
    "aeed5b345d04360c6ad52d4fb4fce32eec8a552f87686afb39ceea04f9fd1a782b180e4eef5e02af77015292840c541e2681c8e165b44be1d8276aba7211bde21b",
  commitmentDigest: "87d7e787de6386cba19d3d5680a8feaa5378c46f1c5e13c622ffcdb354485d23",
  /** Foundry makeAddrAndKey("bob"): keccak256("bob"). */
  bobKey: "38e47a7b719dce63662aeaf43440326f551b8a7ee198cee35cb5d517f2d296a2",
  bobAddress: "0x1D96F2f6BeF1202E4Ce1Ff6Dad0c2CB002861d3e" as Address,
  commitmentSignature:
    "a0b508b09c6942d73b8feb4feb308ea0b753e14e32cff231f75348f25feb07b02b97743c4c9c493825ec6730e2bc24a513d09a2996a20beac2013f134c047cd71b",
  zkContextHashPrefix: "7b16db65",
  zkContextHashSuffix: "45813d03",
  /** PreconfManagerTest.sol zkProof with A = B = C = (1, 2). */
  zkProof: [
    1n,
    2n,
    1n,
    2n,
    1n,
    2n,
    6086978054802466984342546804805639539210350900596926314244208215637076231818n,
    15801264817036808237903858940451635549338013499819108029453995970938732263800n,
  ],
} as const;
