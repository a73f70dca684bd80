/**
 * The suite's own ABI fragments of the protocol contracts: only what the checks read or send, in upstream's exact
 * signatures (the reference contracts keep them, and so must any deployment a target names).
 */
import { parseAbi } from "viem";

export const blockTrackerAbi = parseAbi([
  "function getCurrentWindow() view returns (uint256)",
  "function getBlockWinner(uint256 blockNumber) view returns (address)",
]);

export const providerRegistryAbi = parseAbi([
  "function minStake() view returns (uint256)",
  "function feePercent() view returns (uint256)",
  "function getProviderStake(address provider) view returns (uint256)",
  "function getBLSKeys(address provider) view returns (bytes[])",
  "function withdrawalRequests(address) view returns (uint256)",
  "function bidderSlashedAmount(address) view returns (uint256)",
  "function penaltyFeeTracker() view returns (address recipient, uint256 accumulatedAmount, uint256 lastPayoutTimestamp, uint256 payoutTimePeriod)",
  "function registerAndStake() payable",
  "function stake() payable",
  "function delegateStake(address provider) payable",
  "function unstake()",
  "event FeeTransfer(uint256 amount, address indexed recipient)",
  "event FundsDeposited(address indexed provider, uint256 amount)",
  "event FundsSlashed(address indexed provider, uint256 amount)",
  "event InsufficientFundsToSlash(address indexed provider, uint256 providerStake, uint256 residualAmount, uint256 penaltyFee, uint256 slashAmt)",
  "event ProviderRegistered(address indexed provider, uint256 stakedAmount)",
  "event TransferToBidderFailed(address bidder, uint256 amount)",
  "event Unstake(address indexed provider, uint256 timestamp)",
]);

export const bidderRegistryAbi = parseAbi([
  "function getDeposit(address bidder, uint256 window) view returns (uint256)",
  "function providerAmount(address) view returns (uint256)",
  "function feePercent() view returns (uint256)",
  "function bidPayment(bytes32) view returns (address bidder, uint256 bidAmt, uint8 state)",
  "function protocolFeeTracker() view returns (address recipient, uint256 accumulatedAmount, uint256 lastPayoutTimestamp, uint256 payoutTimePeriod)",
  "event BidderRegistered(address indexed bidder, uint256 indexed depositedAmount, uint256 indexed windowNumber)",
  "event FeeTransfer(uint256 amount, address indexed recipient)",
  "event FundsRetrieved(bytes32 indexed commitmentDigest, address indexed bidder, uint256 indexed window, uint256 amount)",
  "event FundsRewarded(bytes32 indexed commitmentDigest, address indexed bidder, address indexed provider, uint256 window, uint256 amount)",
  "event TransferToBidderFailed(address bidder, uint256 amount)",
]);

/** Protocol v1.2's BidderRegistry: deposits per (bidder, provider) (upstream-head-delta §2.1). */
export const bidderRegistryV12Abi = parseAbi([
  "function getDeposit(address bidder, address provider) view returns (uint256)",
  "function getEscrowedAmount(address bidder, address provider) view returns (uint256)",
  "function withdrawalRequestExists(address bidder, address provider) view returns (bool)",
  "function bidderWithdrawalPeriodMs() view returns (uint256)",
  "function depositManagerImpl() view returns (address)",
]);

/** Protocol v1.2's PreconfManager bid digest: the opened commitment's parameters end with the bid options. */
export const preconfManagerV12Abi = parseAbi([
  "struct OpenCommitmentParams { bytes32 unopenedCommitmentIndex; uint256 bidAmt; uint256 slashAmt; uint64 blockNumber; uint64 decayStartTimeStamp; uint64 decayEndTimeStamp; string txnHash; string revertingTxHashes; bytes bidSignature; uint256[] zkProof; bytes bidOptions; }",
  "function getBidHash(OpenCommitmentParams params) view returns (bytes32)",
]);

export const preconfManagerAbi = parseAbi([
  "function getCommitment(bytes32 commitmentIndex) view returns ((address bidder, bool isSettled, uint64 blockNumber, uint64 decayStartTimeStamp, uint64 decayEndTimeStamp, uint64 dispatchTimestamp, address committer, uint256 bidAmt, uint256 slashAmt, bytes32 commitmentDigest, bytes commitmentSignature, string txnHash, string revertingTxHashes))",
  "function getUnopenedCommitment(bytes32 commitmentIndex) view returns ((bool isOpened, address committer, uint64 dispatchTimestamp, bytes32 commitmentDigest, bytes commitmentSignature))",
  "event OpenedCommitmentStored(bytes32 indexed commitmentIndex, address bidder, address committer, uint256 bidAmt, uint256 slashAmt, uint64 blockNumber, uint64 decayStartTimeStamp, uint64 decayEndTimeStamp, string txnHash, string revertingTxHashes, bytes32 commitmentDigest, uint64 dispatchTimestamp)",
  "event UnopenedCommitmentStored(bytes32 indexed commitmentIndex, address committer, bytes32 commitmentDigest, bytes commitmentSignature, uint64 dispatchTimestamp)",
]);

export const oracleAbi = parseAbi(["event CommitmentProcessed(bytes32 indexed commitmentIndex, bool isSlash)"]);

/** The router's read, plus the stake-free opt-in of the reference devnet's registry (capability `beacon`). */
export const validatorOptInAbi = parseAbi([
  "function isValidatorOptedIn(bytes valBLSPubKey) view returns (bool)",
  "function optIn(bytes[] valBLSPubKeys)",
  "function optOut(bytes[] valBLSPubKeys)",
]);
