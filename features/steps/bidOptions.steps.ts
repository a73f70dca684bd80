/**
 * Steps of features/bid-options.feature: the suite's own bid digest against upstream's vectors and the target's
 * PreconfManager, and the bidder's address the provider application sees (protocol v1.2).
 */
import { expect } from "bun:test";
import { Given, Then } from "@cucumber/cucumber";
import { getAddress, type Hex } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { preconfManagerV12Abi } from "../support/abi.ts";
import { type BidDigestInput, bidDigest, VECTOR_INPUT } from "../support/bidDigest.ts";
import { bidsOf } from "../support/bids.ts";
import { chainOf } from "../support/chain.ts";
import { perScenario } from "../support/perScenario.ts";
import { rulesOf } from "../support/protocolRules.ts";
import { isProtocolVersion } from "../support/protocolVersion.ts";
import type { ConformanceWorld } from "../support/world.ts";

export class BidOptionsCheckError extends MevCommitError {}

const vector = perScenario("bid digest scenario", () => ({
  input: undefined as BidDigestInput | undefined,
  async teardown() {},
}));

function inputOf(world: ConformanceWorld): BidDigestInput {
  return vector(world).input ?? fail('no bid was given (say "Given the bid of upstream\'s digest test vector…")');
}

function fail(message: string): never {
  throw new BidOptionsCheckError(message);
}

Given(
  /^the bid of upstream's digest test vector, with bid options (none|0x[0-9a-f]*)$/,
  function (this: ConformanceWorld, options: string) {
    vector(this).input = { ...VECTOR_INPUT, ...(options === "none" ? {} : { bidOptions: options as Hex }) };
  },
);

Then(
  /^its protocol (v[\d.]+) bid digest is ([0-9a-f]{64})$/,
  function (this: ConformanceWorld, version: string, digest: string) {
    if (!isProtocolVersion(version)) fail(`unknown protocol version ${version}`);
    expect(bidDigest(rulesOf(version), inputOf(this))).toBe(`0x${digest}`);
  },
);

// PreconfManager.getBidHash takes the bidder's key from zkProof[2], zkProof[3] (crypto-contracts §1.3).
Then(
  "the target's PreconfManager.getBidHash of it equals the suite's bid digest in the target's domain",
  async function (this: ConformanceWorld) {
    const b = inputOf(this);
    const t = this.target;
    const onChain = await chainOf(t).settlement.readContract({
      address: t.contracts.preconfManager as Hex,
      abi: preconfManagerV12Abi,
      functionName: "getBidHash",
      args: [
        {
          unopenedCommitmentIndex: `0x${"00".repeat(32)}`,
          bidAmt: b.bidAmt,
          slashAmt: b.slashAmt,
          blockNumber: b.blockNumber,
          decayStartTimeStamp: b.decayStart,
          decayEndTimeStamp: b.decayEnd,
          txnHash: b.txnHash,
          revertingTxHashes: b.revertingTxHashes,
          bidSignature: "0x",
          zkProof: [0n, 0n, b.bidderPKx, b.bidderPKy, 0n, 0n, 0n, 0n],
          bidOptions: b.bidOptions ?? "0x",
        },
      ],
    });
    const ours = bidDigest(t.rules, {
      ...b,
      chainId: BigInt(t.settlementChainId),
      verifyingContract: t.contracts.preconfManager as Hex,
    });
    expect(onChain, `PreconfManager ${t.contracts.preconfManager} on chain ${t.settlementChainId}`).toBe(ours);
  },
);

Then(
  /^provider (\d+)'s application was shown the bidder's address on the bid, EIP-55 with 0x$/,
  function (this: ConformanceWorld, provider: string) {
    const s = bidsOf(this);
    const got = s.appsOf(Number(provider)).flatMap((a) => a.received);
    if (!got.length) fail(`provider ${provider}'s application received no bid`);
    for (const r of got)
      expect((r as unknown as { bidderAddress?: unknown }).bidderAddress, JSON.stringify(r)).toBe(
        getAddress(this.target.bidderAddress),
      );
  },
);
