/**
 * The protocol v1.2 contracts' ABI against the selectors and topic0 values of upstream v1.2.5 listed in
 * reference/upstream-head-delta.md §2.1–§2.3 (computed there from upstream's ABI files), and the v1.1 items §2.1 lists
 * as removed. Selectors and topics are computed here from our compiled ABI.
 */
import { describe, expect, test } from "bun:test";
import { type Abi, type AbiEvent, type AbiFunction, toEventSelector, toFunctionSelector } from "viem";
import { compileContracts, formatHumanReadableAbi } from "./compile.ts";
import { compileV12Contracts, type V12ContractName } from "./compileV12.ts";

const compiled = await compileV12Contracts();
const abiOf = (name: V12ContractName): Abi => compiled.contracts[name].abi;

function functionSelectors(name: V12ContractName): Map<string, string> {
  const fns = abiOf(name).filter((i): i is AbiFunction => i.type === "function");
  return new Map(fns.map((f) => [toFunctionSelector(f), f.name]));
}
function eventTopics(name: V12ContractName): Map<string, string> {
  const evs = abiOf(name).filter((i): i is AbiEvent => i.type === "event");
  return new Map(evs.map((e) => [toEventSelector(e), e.name]));
}
/** A topic0 given in the fact sheet as `0xabcd1234…ef5678` (prefix and suffix) or in full. */
function findTopic(topics: Map<string, string>, given: string): string | undefined {
  const [head, tail = ""] = given.split("…");
  return [...topics.entries()].find(([t]) => t.startsWith(head!) && t.endsWith(tail))?.[1];
}

const FUNCTIONS: Record<V12ContractName, Record<string, string>> = {
  BidderRegistry: {
    "0xef9c26a0": "depositAsBidder",
    "0x1f405064": "depositEvenlyAsBidder",
    "0x2c923b17": "requestWithdrawalsAsBidder",
    "0x5b6dabb2": "withdrawAsBidder",
    "0xc35082a9": "getDeposit",
    "0x9a0cb706": "getDepositConsideringWithdrawalRequest",
    "0xf519c7bb": "getEscrowedAmount",
    "0xdff5b43b": "withdrawalRequestExists",
    "0x8f601f66": "deposits",
    "0xda1c072c": "openBid",
    "0xde40a6ca": "convertFundsToProviderReward",
    "0x147c04e8": "unlockFunds",
    "0xcffec38e": "setDepositManagerImpl",
    "0x4da03772": "depositManagerImpl",
    "0xb21c5195": "depositManagerHash",
    "0x91a61cd9": "bidderWithdrawalPeriodMs",
  },
  DepositManager: {
    "0xbf524608": "BIDDER_REGISTRY",
    "0x867378c5": "MIN_BALANCE",
    "0x77936281": "targetDeposits",
    "0x5b79493e": "setTargetDeposits",
    "0x2d902b07": "setTargetDeposit",
    "0x07b49cd9": "topUpDeposits",
    "0xbe8c9cc0": "topUpDeposit",
  },
  PreconfManager: {
    "0xee20a6fb": "openCommitment",
    "0x95d5d5aa": "getBidHash",
    "0xd9848726": "verifyBid",
    "0x6012a4f7": "initiateSlash",
    "0x5903c647": "getOpenedCommitmentIndex",
  },
  ProviderRegistry: {
    "0xbe995dc2": "slash",
    "0x8dc4ce17": "areProvidersValid",
    "0x52f3a20b": "overrideRemoveBLSKey",
  },
  BlockTracker: {},
  Oracle: {},
};

const EVENTS: Record<V12ContractName, Record<string, string>> = {
  BidderRegistry: {
    "0x1776fcfbda205cf573c261f45edd9729e9c163e18c632259c4ada3b990ceeacb": "BidderDeposited",
    "0x3aeb15af61588a39bcfafb19ed853140d195c2a924537afbf9a6d04348e76a69": "WithdrawalRequested",
    "0xd31e0eb19177a3f05b460dd887249c5b3e8e2ca0e48a806c3d3a4a9797522565": "BidderWithdrawal",
    "0x8786873b1c0d8aefe1c7141028145afdbf1cf1b37fcb3df9eead17a1424367a4": "FundsRewarded",
    "0x6e1c6ca1bf1040edd35af10bd76f7d1a379f91f28a726a00239e833db2abf363": "FundsUnlocked",
    "0x25be4840…132dce": "BidAmountReduced",
    "0x2ad23691…c254bb": "TopUpFailed",
    "0xc7194fb7…3570e7": "DepositManagerImplUpdated",
  },
  DepositManager: {
    "0x6cb9e47917968530985729bd0855f1d40e32bfe78c5f738734c4f1f4e7e5e0ba": "TargetDepositSet",
    "0xb5f2e468403466e947cb06c78c9b37008f6ff157cbf947e7cc8c675e128222e0": "DepositToppedUp",
    "0x3d3e22ca…bcc2": "TopUpReduced",
    "0xf53ce586…600b": "CurrentDepositIsSufficient",
    "0x2816f654…8079": "CurrentBalanceAtOrBelowMin",
    "0xd4a180e3…9bfe": "TargetDepositDoesNotExist",
    "0xd172492c…b4c8": "WithdrawalRequestExists",
  },
  PreconfManager: {
    "0xb71cdedc4cf5c26e95090c52d1ede759c017aef182298b15f65dcf4d2f67b1f6": "OpenedCommitmentStored",
  },
  ProviderRegistry: {
    // The sheet prints "0x2af0a07b…b2b8e6"; keccak256("BLSKeyRemoved(address,bytes)") ends in …ff2b8e6, so the
    // sheet's tail has a slip (its 8-digit head matches): checked against the tail both agree on.
    "0x2af0a07b…2b8e6": "BLSKeyRemoved",
    "0x8500678d…29dab4": "InsufficientFundsToSlash",
  },
  BlockTracker: {
    "0x2fa9ac702e37c10159294633f20ab8f1e33e7d01607be3603ec0aa3676969d7b": "NewL1Block",
  },
  Oracle: {},
};

/** v1.1 selectors / topics §2.1 lists as removed in v1.2. */
const REMOVED: Partial<Record<V12ContractName, { functions: string[]; events: string[] }>> = {
  BidderRegistry: {
    functions: ["0xde7fa558", "0x531a2052", "0x6745206a", "0xa4bf023c", "0x2726b506"],
    events: [],
  },
  PreconfManager: { functions: ["0x82a9ba0f", "0xc9e66dc5", "0x9d243a6a", "0x30778c78"], events: ["0x4e798091"] },
  ProviderRegistry: { functions: ["0x76ddeafc"], events: [] },
  BlockTracker: { functions: ["0x0f67e7d5", "0x8711a019"], events: ["0x8323d3e5"] },
};

/** Full event declarations (indexed flags and field names matter to log filters and decoders). */
const EVENT_DECLARATIONS: Partial<Record<V12ContractName, string[]>> = {
  BidderRegistry: [
    "event BidderDeposited(address indexed bidder, address indexed provider, uint256 indexed depositedAmount, uint256 newAvailableAmount)",
    "event WithdrawalRequested(address indexed bidder, address indexed provider, uint256 availableAmount, uint256 escrowedAmount, uint256 indexed timestamp)",
    "event BidderWithdrawal(address indexed bidder, address indexed provider, uint256 indexed amountWithdrawn, uint256 amountStillEscrowed)",
    "event FundsRewarded(bytes32 indexed commitmentDigest, address indexed bidder, address indexed provider, uint256 amount)",
    "event FundsUnlocked(bytes32 indexed commitmentDigest, address indexed bidder, address indexed provider, uint256 amount)",
    "event BidAmountReduced(address indexed bidder, address indexed provider, uint256 indexed newBidAmt)",
    "event TopUpFailed(address indexed bidder, address indexed provider)",
  ],
  DepositManager: ["event TargetDepositSet(address indexed provider, uint256 amount)"],
  ProviderRegistry: [
    "event InsufficientFundsToSlash(address indexed provider, uint256 providerStake, uint256 penaltyFee, uint256 bidderPortion)",
  ],
  BlockTracker: ["event NewL1Block(uint256 indexed blockNumber, address indexed winner)"],
};

describe("v1.2 ABI against upstream v1.2.5's selectors and topics", () => {
  for (const name of Object.keys(FUNCTIONS) as V12ContractName[]) {
    test(`${name}: functions, events, removed items`, () => {
      const fns = functionSelectors(name);
      for (const [selector, fn] of Object.entries(FUNCTIONS[name]))
        expect(`${selector} ${fns.get(selector)}`).toBe(`${selector} ${fn}`);
      const topics = eventTopics(name);
      for (const [topic, ev] of Object.entries(EVENTS[name]))
        expect(`${topic} ${findTopic(topics, topic)}`).toBe(`${topic} ${ev}`);
      for (const s of REMOVED[name]?.functions ?? []) expect(fns.get(s)).toBeUndefined();
      for (const t of REMOVED[name]?.events ?? []) expect(findTopic(topics, `${t}…`)).toBeUndefined();
      const declared = formatHumanReadableAbi(abiOf(name));
      for (const d of EVENT_DECLARATIONS[name] ?? []) expect(declared).toContain(d);
    });
  }

  test("BidderRegistry: the constructor takes upstream's initialize parameters; deposits() returns the nested struct", () => {
    const ctor = abiOf("BidderRegistry").find((i) => i.type === "constructor")!;
    const types = ctor.inputs.map((p) => p.type).join(",");
    expect(toFunctionSelector(`initialize(${types})`)).toBe("0x8d3839d2");
    expect(formatHumanReadableAbi(abiOf("BidderRegistry"))).toContain(
      "function deposits(address, address) view returns (bool exists, uint256 availableAmount, uint256 escrowedAmount, (bool exists, uint256 timestamp) withdrawalRequestOccurrence)",
    );
  });

  test("DepositManager: constructor(bidderRegistry, minBalance), receive, reverting fallback", () => {
    const lines = formatHumanReadableAbi(abiOf("DepositManager"));
    expect(lines).toContain("constructor(address bidderRegistry, uint256 minBalance)");
    expect(lines).toContain("receive() external payable");
    expect(lines).toContain("fallback() external payable");
    expect(lines).toContain("error NotThisEOA(address msgSender, address thisAddress)");
  });

  test("Oracle: the same ABI as v1.1's", async () => {
    const v11 = await compileContracts();
    expect(formatHumanReadableAbi(abiOf("Oracle"))).toEqual(formatHumanReadableAbi(v11.contracts.Oracle.abi));
  });
});
