/**
 * ABI compatibility with upstream mev-commit (5f1068d1): every function, event and error of ours whose name
 * exists upstream must have upstream's exact signature — parameter types and order, tuple layouts (with
 * component names), indexed flags, outputs and state mutability — so upstream clients work against us.
 *
 * Upstream ABIs are read at test time from `<repo>/../shared/reference/abi/*.abi` (never copied into the repo).
 * If that folder is missing the suite fails under CI and is skipped with a warning elsewhere.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Abi } from "viem";
import { CONTRACT_NAMES, type ContractName, compileContracts } from "./compile.ts";

const UPSTREAM_DIR = resolve(import.meta.dir, "..", "..", "..", "shared", "reference", "abi");
const available = existsSync(UPSTREAM_DIR);

/** Upstream functions and events the node, oracle and harness code rely on: they must exist, identical. */
const REQUIRED: Record<ContractName, { functions: string[]; events: string[] }> = {
  BlockTracker: {
    functions: [
      "recordL1Block",
      "getBlockWinner",
      "getCurrentWindow",
      "currentWindow",
      "getBlocksPerWindow",
      "blockWinners",
      "setProviderRegistry",
      "providerRegistry",
      "oracleAccount",
      "addBuilderAddress",
      "getBuilder",
    ],
    events: ["NewL1Block", "NewWindow"],
  },
  ProviderRegistry: {
    functions: [
      "registerAndStake",
      "delegateRegisterAndStake",
      "stake",
      "delegateStake",
      "unstake",
      "withdraw",
      "slash",
      "isProviderValid",
      "overrideAddBLSKey",
      "addVerifiedBLSKey",
      "getEoaFromBLSKey",
      "getBLSKeys",
      "getProviderStake",
      "providerStakes",
      "providerRegistered",
      "minStake",
      "withdrawalRequests",
      "withdrawalDelay",
      "withdrawSlashedAmount",
      "bidderSlashedAmount",
      "setPreconfManager",
      "getAccumulatedPenaltyFee",
      "feePercent",
    ],
    events: [
      "ProviderRegistered",
      "FundsDeposited",
      "FundsSlashed",
      "Unstake",
      "Withdraw",
      "BLSKeyAdded",
      "InsufficientFundsToSlash",
      "BidderWithdrawSlashedAmount",
    ],
  },
  BidderRegistry: {
    functions: [
      "depositForWindow",
      "depositForWindows",
      "getDeposit",
      "lockedFunds",
      "maxBidPerBlock",
      "usedFunds",
      "bidPayment",
      "openBid",
      "retrieveFunds",
      "unlockFunds",
      "withdrawFromWindows",
      "withdrawBidderAmountFromWindow",
      "withdrawProviderAmount",
      "getProviderAmount",
      "providerAmount",
      "setPreconfManager",
      "getAccumulatedProtocolFee",
      "feePercent",
      "blockTrackerContract",
    ],
    events: ["BidderRegistered", "BidderWithdrawal", "FundsRewarded", "FundsRetrieved", "TransferToBidderFailed"],
  },
  PreconfManager: {
    functions: [
      "storeUnopenedCommitment",
      "openCommitment",
      "initiateReward",
      "initiateSlash",
      "getBidHash",
      "getPreConfHash",
      "verifyBid",
      "verifyPreConfCommitment",
      "getCommitment",
      "getUnopenedCommitment",
      "getTxnHashFromCommitment",
      "commitmentsCount",
      "processedTxnHashes",
      "openedCommitments",
      "unopenedCommitments",
      "commitmentDispatchWindow",
      "domainSeparatorBid",
      "domainSeparatorPreconf",
      "zkContextHash",
      "updateOracleContract",
      "blockTracker",
      "bidderRegistry",
      "providerRegistry",
      "oracleContract",
    ],
    events: ["UnopenedCommitmentStored", "OpenedCommitmentStored"],
  },
  Oracle: {
    functions: [
      "processBuilderCommitmentForBlockNumber",
      "setPreconfManager",
      "setBlockTracker",
      "setOracleAccount",
      "oracleAccount",
    ],
    events: ["CommitmentProcessed"],
  },
  // The L1 opt-in registry: the node's validator service calls areValidatorsOptedIn (OptInStatus tuple).
  ValidatorOptInRouter: {
    functions: [
      "areValidatorsOptedIn",
      "vanillaRegistry",
      "mevCommitAVS",
      "mevCommitMiddleware",
      "owner",
      "transferOwnership",
    ],
    events: ["OwnershipTransferred"],
  },
};

interface Param {
  name?: string;
  type: string;
  indexed?: boolean;
  components?: readonly Param[];
}
type Item = Abi[number] & {
  name?: string;
  inputs?: readonly Param[];
  outputs?: readonly Param[];
  stateMutability?: string;
};

function canonicalType(p: Param): string {
  if (p.type.startsWith("tuple")) return `(${(p.components ?? []).map(canonicalType).join(",")})${p.type.slice(5)}`;
  return p.type;
}
const signature = (item: Item) => `${item.name}(${(item.inputs ?? []).map(canonicalType).join(",")})`;

/** Everything that matters on the wire: canonical types, tuple component names, indexed flags, event field names. */
function shape(item: Item): unknown {
  const param = (p: Param, named: boolean): unknown => ({
    type: canonicalType(p),
    ...(named ? { name: p.name ?? "" } : {}),
    ...(p.indexed ? { indexed: true } : {}),
    ...(p.components ? { components: p.components.map((c) => param(c, true)) } : {}),
  });
  // Event field names are what clients key on; function/error parameter names are documentation only.
  const namedInputs = item.type === "event";
  return {
    type: item.type,
    signature: signature(item),
    inputs: (item.inputs ?? []).map((p) => param(p, namedInputs)),
    ...(item.type === "function"
      ? { outputs: (item.outputs ?? []).map((p) => param(p, false)), stateMutability: item.stateMutability }
      : {}),
  };
}

function loadUpstream(name: ContractName): Item[] {
  return JSON.parse(readFileSync(join(UPSTREAM_DIR, `${name}.abi`), "utf8")) as Item[];
}

const byKind = (abi: readonly Item[], kind: string) => abi.filter((i) => i.type === kind);

if (!available) {
  if (process.env.CI) {
    test("upstream ABIs are present", () => {
      throw new Error(`upstream ABI folder missing: ${UPSTREAM_DIR} (required under CI)`);
    });
  } else {
    console.warn(
      `\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n` +
        `!! abi-compat.test.ts SKIPPED: upstream ABIs not found at ${UPSTREAM_DIR}\n` +
        `!! ABI compatibility with upstream mev-commit is NOT being checked.\n` +
        `!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n`,
    );
  }
}

describe.skipIf(!available)("ABI compatibility with upstream", () => {
  for (const name of CONTRACT_NAMES) {
    describe(name, () => {
      for (const kind of ["function", "event", "error"] as const) {
        test(`every ${kind} shared by name has upstream's exact signature`, async () => {
          const ours = byKind((await compileContracts()).contracts[name].abi as Item[], kind);
          const upstream = byKind(loadUpstream(name), kind);
          const mismatches: string[] = [];
          let shared = 0;
          for (const item of ours) {
            const candidates = upstream.filter((u) => u.name === item.name);
            if (candidates.length === 0) continue;
            shared++;
            const mine = JSON.stringify(shape(item));
            if (!candidates.some((u) => JSON.stringify(shape(u)) === mine)) {
              mismatches.push(
                `${kind} ${item.name}\n    ours:     ${mine}\n    upstream: ${candidates.map((u) => JSON.stringify(shape(u))).join(" | ")}`,
              );
            }
          }
          expect(mismatches).toEqual([]);
          if (kind !== "error") expect(shared).toBeGreaterThan(0);
        });
      }

      test("functions and events the node relies on exist", async () => {
        const ours = (await compileContracts()).contracts[name].abi as Item[];
        const upstream = loadUpstream(name);
        const missing: string[] = [];
        for (const [kind, names] of [
          ["function", REQUIRED[name].functions],
          ["event", REQUIRED[name].events],
        ] as const) {
          for (const n of names) {
            const u = upstream.find((i) => i.type === kind && i.name === n);
            if (!u) {
              missing.push(`${kind} ${n}: not in upstream ABI (fix the REQUIRED list)`);
              continue;
            }
            const o = ours.find((i) => i.type === kind && i.name === n);
            if (!o) missing.push(`${kind} ${signature(u)}: missing in ours`);
            else if (JSON.stringify(shape(o)) !== JSON.stringify(shape(u)))
              missing.push(`${kind} ${signature(u)}: differs`);
          }
        }
        expect(missing).toEqual([]);
      });

      test("upstream items we do not implement (informational)", async () => {
        const ours = new Set(
          ((await compileContracts()).contracts[name].abi as Item[]).map((i) => `${i.type} ${i.name}`),
        );
        const absent = loadUpstream(name)
          .filter((i) => ["function", "event", "error"].includes(i.type) && !ours.has(`${i.type} ${i.name}`))
          .map((i) => `${i.type} ${signature(i)}`);
        if (absent.length) console.info(`[abi-compat] ${name}: not implemented (by design): ${absent.join(", ")}`);
        expect(Array.isArray(absent)).toBe(true);
      });
    });
  }
});
