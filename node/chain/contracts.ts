/**
 * Typed access to the deployed contracts: the ABI of each contract as a typed viem constant, `getContract`
 * helpers, and `decodeRevert`, which turns a viem error into upstream's `Name(arg=value, ...)` rendering.
 *
 * The ABI constants below are generated from the compiled contracts (`bun node/chain/compile.ts --write-abi-ts`);
 * `contracts.test.ts` fails if they drift from the Solidity sources.
 */
import {
  type Abi,
  type Account,
  type Address,
  BaseError,
  type Chain,
  decodeErrorResult,
  type GetContractReturnType,
  getContract,
  type Hex,
  type PublicClient,
  parseAbi,
  type Transport,
  type WalletClient,
} from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import {
  bidderRegistryV12Abi,
  blockTrackerV12Abi,
  depositManagerV12Abi,
  oracleV12Abi,
  preconfManagerV12Abi,
  providerRegistryV12Abi,
} from "./contractsV12.ts";

type AbiError = Extract<Abi[number], { type: "error" }>;

/** Addresses of one deployment (checksummed). */
export interface ContractAddresses {
  blockTracker: Address;
  providerRegistry: Address;
  bidderRegistry: Address;
  preconfManager: Address;
  oracle: Address;
}

// BEGIN GENERATED ABIS (bun node/chain/compile.ts --write-abi-ts)

export const blockTrackerAbi = parseAbi([
  "constructor(address oracleAccount_, address owner_)",
  "error BlockNumberIsZero()",
  "error InvalidFallback()",
  "error InvalidReceive()",
  "error NotOracleAccount(address sender, address oracleAccount)",
  "error OwnableInvalidOwner(address owner)",
  "error OwnableUnauthorizedAccount(address account)",
  "event BuilderAddressAdded(string indexed builderName, address indexed builderAddress)",
  "event NewL1Block(uint256 indexed blockNumber, address indexed winner, uint256 indexed window)",
  "event NewWindow(uint256 indexed window)",
  "event OracleAccountSet(address indexed oldOracleAccount, address indexed newOracleAccount)",
  "event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)",
  "event ProviderRegistrySet(address indexed oldProviderRegistry, address indexed newProviderRegistry)",
  "fallback() external payable",
  "function addBuilderAddress(string builderName, address builderAddress)",
  "function blockBuilderNameToAddress(string) view returns (address)",
  "function blockWinners(uint256) view returns (address)",
  "function currentWindow() view returns (uint256)",
  "function getBlockWinner(uint256 blockNumber) view returns (address)",
  "function getBlocksPerWindow() pure returns (uint256)",
  "function getBuilder(string builderName) view returns (address)",
  "function getCurrentWindow() view returns (uint256)",
  "function oracleAccount() view returns (address)",
  "function owner() view returns (address)",
  "function providerRegistry() view returns (address)",
  "function recordL1Block(uint256 blockNumber, bytes winnerBLSKey)",
  "function setOracleAccount(address newOracleAccount)",
  "function setProviderRegistry(address newProviderRegistry)",
  "function transferOwnership(address newOwner)",
  "receive() external payable",
]);

export const providerRegistryAbi = parseAbi([
  "constructor(uint256 _minStake, address _penaltyFeeRecipient, uint256 _feePercent, address _owner, uint256 _withdrawalDelay, uint256 _penaltyFeePayoutPeriod)",
  "error BLSSignatureInvalid()",
  "error BidderAmountIsZero(address sender)",
  "error BidderWithdrawalTransferFailed(address sender, uint256 amount)",
  "error DelayNotPassed(uint256 withdrawalRequestTimestamp, uint256 withdrawalDelay, uint256 currentBlockTimestamp)",
  "error FeeRecipientIsZero()",
  "error InsufficientStake(uint256 stake, uint256 minStake)",
  "error InvalidBLSPublicKeyLength(uint256 length, uint256 expectedLength)",
  "error InvalidFallback()",
  "error InvalidReceive()",
  "error NoStakeToWithdraw(address sender)",
  "error NoUnstakeRequest(address sender)",
  "error NotPreconfContract(address sender, address preconfManager)",
  "error OwnableInvalidOwner(address owner)",
  "error OwnableUnauthorizedAccount(address account)",
  "error PayoutPeriodMustBePositive()",
  "error PendingWithdrawalRequest(address sender)",
  "error PreconfManagerNotSet()",
  "error ProviderAlreadyRegistered(address sender)",
  "error ProviderCommitmentsPending(address sender, uint256 numPending)",
  "error ProviderNotRegistered(address sender)",
  "error PublicKeyLengthInvalid(uint256 exp, uint256 got)",
  "error ReentrancyGuardReentrantCall()",
  "error SignatureLengthInvalid(uint256 exp, uint256 got)",
  "error StakeTransferFailed(address sender, uint256 amount)",
  "error TransferToRecipientFailed()",
  "error UnstakeRequestExists(address sender)",
  "event BLSKeyAdded(address indexed provider, bytes blsPublicKey)",
  "event BidderWithdrawSlashedAmount(address bidder, uint256 amount)",
  "event FeePayoutPeriodUpdated(uint256 indexed newFeePayoutPeriod)",
  "event FeePercentUpdated(uint256 indexed newFeePercent)",
  "event FeeTransfer(uint256 amount, address indexed recipient)",
  "event FundsDeposited(address indexed provider, uint256 amount)",
  "event FundsSlashed(address indexed provider, uint256 amount)",
  "event InsufficientFundsToSlash(address indexed provider, uint256 providerStake, uint256 residualAmount, uint256 penaltyFee, uint256 slashAmt)",
  "event MinStakeUpdated(uint256 indexed newMinStake)",
  "event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)",
  "event PenaltyFeeRecipientUpdated(address indexed newPenaltyFeeRecipient)",
  "event PreconfManagerUpdated(address indexed newPreconfManager)",
  "event ProviderRegistered(address indexed provider, uint256 stakedAmount)",
  "event TransferToBidderFailed(address bidder, uint256 amount)",
  "event Unstake(address indexed provider, uint256 timestamp)",
  "event Withdraw(address indexed provider, uint256 amount)",
  "event WithdrawalDelayUpdated(uint256 newWithdrawalDelay)",
  "fallback() external payable",
  "function ONE_HUNDRED_PERCENT() view returns (uint256)",
  "function PRECISION() view returns (uint256)",
  "function addVerifiedBLSKey(bytes blsPublicKey, bytes signature)",
  "function bidderSlashedAmount(address) view returns (uint256)",
  "function blockBuilderBLSKeyToAddress(bytes) view returns (address)",
  "function delegateRegisterAndStake(address provider) payable",
  "function delegateStake(address provider) payable",
  "function eoaToBlsPubkeys(address, uint256) view returns (bytes)",
  "function feePercent() view returns (uint256)",
  "function getAccumulatedPenaltyFee() view returns (uint256)",
  "function getBLSKeys(address provider) view returns (bytes[])",
  "function getEoaFromBLSKey(bytes blsKey) view returns (address)",
  "function getProviderStake(address provider) view returns (uint256)",
  "function isProviderValid(address provider) view",
  "function manuallyWithdrawPenaltyFee()",
  "function minStake() view returns (uint256)",
  "function overrideAddBLSKey(address provider, bytes blsPublicKey)",
  "function owner() view returns (address)",
  "function penaltyFeeTracker() view returns (address recipient, uint256 accumulatedAmount, uint256 lastPayoutTimestamp, uint256 payoutTimePeriod)",
  "function preconfManager() view returns (address)",
  "function providerRegistered(address) view returns (bool)",
  "function providerStakes(address) view returns (uint256)",
  "function registerAndStake() payable",
  "function setFeePayoutPeriod(uint256 _feePayoutPeriod)",
  "function setMinStake(uint256 _minStake)",
  "function setNewFeePercent(uint256 newFeePercent)",
  "function setNewPenaltyFeeRecipient(address newFeeRecipient)",
  "function setPreconfManager(address contractAddress)",
  "function setWithdrawalDelay(uint256 _withdrawalDelay)",
  "function slash(uint256 amt, uint256 slashAmt, address provider, address bidder, uint256 residualBidPercentAfterDecay)",
  "function stake() payable",
  "function transferOwnership(address newOwner)",
  "function unstake()",
  "function verifySignature(bytes pubKey, bytes32 message, bytes signature) view returns (bool)",
  "function withdraw()",
  "function withdrawSlashedAmount()",
  "function withdrawalDelay() view returns (uint256)",
  "function withdrawalRequests(address) view returns (uint256)",
  "receive() external payable",
]);

export const bidderRegistryAbi = parseAbi([
  "constructor(address _protocolFeeRecipient, uint256 _feePercent, address _owner, address _blockTracker, uint256 _feePayoutPeriod)",
  "error BidNotPreConfirmed(bytes32 commitmentDigest, uint8 actualState, uint8 expectedState)",
  "error BidderWithdrawalTransferFailed(address bidder, uint256 amount)",
  "error DepositAmountIsZero()",
  "error FeeRecipientIsZero()",
  "error OnlyBidderCanWithdraw(address sender, address bidder)",
  "error OwnableInvalidOwner(address owner)",
  "error OwnableUnauthorizedAccount(address account)",
  "error PayoutPeriodMustBePositive()",
  "error ProviderAmountIsZero(address provider)",
  "error ReentrancyGuardReentrantCall()",
  "error SenderIsNotPreconfManager(address sender, address preconfManager)",
  "error TransferToProviderFailed(address provider, uint256 amount)",
  "error TransferToRecipientFailed()",
  "error WindowNotSettled()",
  "error WithdrawAfterWindowSettled(uint256 window, uint256 currentWindow)",
  "event BidderRegistered(address indexed bidder, uint256 indexed depositedAmount, uint256 indexed windowNumber)",
  "event BidderWithdrawal(address indexed bidder, uint256 indexed window, uint256 indexed amount)",
  "event BlockTrackerUpdated(address indexed newBlockTracker)",
  "event FeePayoutPeriodUpdated(uint256 indexed newFeePayoutPeriod)",
  "event FeePercentUpdated(uint256 indexed newFeePercent)",
  "event FeeTransfer(uint256 amount, address indexed recipient)",
  "event FundsRetrieved(bytes32 indexed commitmentDigest, address indexed bidder, uint256 indexed window, uint256 amount)",
  "event FundsRewarded(bytes32 indexed commitmentDigest, address indexed bidder, address indexed provider, uint256 window, uint256 amount)",
  "event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)",
  "event PreconfManagerUpdated(address indexed newPreconfManager)",
  "event ProtocolFeeRecipientUpdated(address indexed newProtocolFeeRecipient)",
  "event TransferToBidderFailed(address bidder, uint256 amount)",
  "function ONE_HUNDRED_PERCENT() view returns (uint256)",
  "function PRECISION() view returns (uint256)",
  "function bidPayment(bytes32) view returns (address bidder, uint256 bidAmt, uint8 state)",
  "function blockTrackerContract() view returns (address)",
  "function depositForWindow(uint256 window) payable",
  "function depositForWindows(uint256[] windows) payable",
  "function feePercent() view returns (uint256)",
  "function getAccumulatedProtocolFee() view returns (uint256)",
  "function getDeposit(address bidder, uint256 window) view returns (uint256)",
  "function getProviderAmount(address provider) view returns (uint256)",
  "function lockedFunds(address, uint256) view returns (uint256)",
  "function manuallyWithdrawProtocolFee()",
  "function maxBidPerBlock(address, uint256) view returns (uint256)",
  "function openBid(bytes32 commitmentDigest, uint256 bidAmt, address bidder, uint64 blockNumber) returns (uint256)",
  "function owner() view returns (address)",
  "function preconfManager() view returns (address)",
  "function protocolFeeTracker() view returns (address recipient, uint256 accumulatedAmount, uint256 lastPayoutTimestamp, uint256 payoutTimePeriod)",
  "function providerAmount(address) view returns (uint256)",
  "function retrieveFunds(uint256 windowToSettle, bytes32 commitmentDigest, address provider, uint256 residualBidPercentAfterDecay)",
  "function setBlockTrackerContract(address newBlockTrackerContract)",
  "function setNewFeePayoutPeriod(uint256 newFeePayoutPeriod)",
  "function setNewFeePercent(uint256 newFeePercent)",
  "function setNewProtocolFeeRecipient(address newProtocolFeeRecipient)",
  "function setPreconfManager(address contractAddress)",
  "function transferOwnership(address newOwner)",
  "function unlockFunds(uint256 window, bytes32 commitmentDigest)",
  "function usedFunds(address, uint64) view returns (uint256)",
  "function withdrawBidderAmountFromWindow(address bidder, uint256 window)",
  "function withdrawFromWindows(uint256[] windows)",
  "function withdrawProviderAmount(address provider)",
]);

export const preconfManagerAbi = parseAbi([
  "constructor(address _providerRegistry, address _bidderRegistry, address _oracleContract, address _owner, address _blockTracker, uint64 _commitmentDispatchWindow)",
  "error BN128AddFailed()",
  "error BN128MulFailed()",
  "error CommitmentAlreadyOpened(bytes32 commitmentIndex)",
  "error CommitmentAlreadySettled(bytes32 commitmentIndex)",
  "error ECDSAInvalidSignature()",
  "error ECDSAInvalidSignatureLength(uint256 length)",
  "error ECDSAInvalidSignatureS(bytes32 s)",
  "error InvalidCommitmentDigest(bytes32 commitmentDigest, bytes32 computedDigest)",
  "error InvalidDecayTime(uint64 startTime, uint64 endTime)",
  "error InvalidDispatchTimestamp(uint256 minTime, uint64 dispatchTimestamp)",
  "error InvalidFallback()",
  "error InvalidReceive()",
  "error OwnableInvalidOwner(address owner)",
  "error OwnableUnauthorizedAccount(address account)",
  "error ProviderZKProofInvalid(address sender, bytes32 commitmentDigest)",
  "error SenderIsNotCommitter(address expected, address actual)",
  "error SenderIsNotOracleContract(address sender, address oracleContract)",
  "error TxnHashAlreadyProcessed(string txnHash, address bidderAddress)",
  "error UnauthorizedOpenCommitment(address committer, address bidder, address sender)",
  "error UnopenedCommitmentAlreadyExists(bytes32 commitmentIndex)",
  "error WinnerIsNotCommitter(address committer, address winner)",
  "event BidderRegistryUpdated(address indexed newBidderRegistry)",
  "event BlockTrackerUpdated(address indexed newBlockTracker)",
  "event CommitmentDispatchWindowUpdated(uint64 newDispatchWindow)",
  "event OpenedCommitmentStored(bytes32 indexed commitmentIndex, address bidder, address committer, uint256 bidAmt, uint256 slashAmt, uint64 blockNumber, uint64 decayStartTimeStamp, uint64 decayEndTimeStamp, string txnHash, string revertingTxHashes, bytes32 commitmentDigest, uint64 dispatchTimestamp)",
  "event OracleContractUpdated(address indexed newOracleContract)",
  "event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)",
  "event ProviderRegistryUpdated(address indexed newProviderRegistry)",
  "event SignatureVerified(address indexed signer, string txnHash, string revertingTxHashes, uint256 indexed bidAmt, uint64 blockNumber)",
  "event UnopenedCommitmentStored(bytes32 indexed commitmentIndex, address committer, bytes32 commitmentDigest, bytes commitmentSignature, uint64 dispatchTimestamp)",
  "fallback() external payable",
  "function EIP712_BID_TYPEHASH() view returns (bytes32)",
  "function EIP712_COMMITMENT_TYPEHASH() view returns (bytes32)",
  "function HEXCHARS() view returns (bytes)",
  "function bidderRegistry() view returns (address)",
  "function blockTracker() view returns (address)",
  "function commitmentDispatchWindow() view returns (uint64)",
  "function commitmentsCount(address) view returns (uint256)",
  "function domainSeparatorBid() view returns (bytes32)",
  "function domainSeparatorPreconf() view returns (bytes32)",
  "function getBidHash((bytes32 unopenedCommitmentIndex, uint256 bidAmt, uint256 slashAmt, uint64 blockNumber, uint64 decayStartTimeStamp, uint64 decayEndTimeStamp, string txnHash, string revertingTxHashes, bytes bidSignature, uint256[] zkProof) params) view returns (bytes32)",
  "function getCommitment(bytes32 commitmentIndex) view returns ((address bidder, bool isSettled, uint64 blockNumber, uint64 decayStartTimeStamp, uint64 decayEndTimeStamp, uint64 dispatchTimestamp, address committer, uint256 bidAmt, uint256 slashAmt, bytes32 commitmentDigest, bytes commitmentSignature, string txnHash, string revertingTxHashes))",
  "function getOpenedCommitmentIndex((address bidder, bool isSettled, uint64 blockNumber, uint64 decayStartTimeStamp, uint64 decayEndTimeStamp, uint64 dispatchTimestamp, address committer, uint256 bidAmt, uint256 slashAmt, bytes32 commitmentDigest, bytes commitmentSignature, string txnHash, string revertingTxHashes) commitment) pure returns (bytes32)",
  "function getPreConfHash(bytes32 _bidHash, bytes _bidSignature, uint256[] _zkProof) view returns (bytes32)",
  "function getTxnHashFromCommitment(bytes32 commitmentIndex) view returns (string txnHash)",
  "function getUnopenedCommitment(bytes32 commitmentIndex) view returns ((bool isOpened, address committer, uint64 dispatchTimestamp, bytes32 commitmentDigest, bytes commitmentSignature))",
  "function getUnopenedCommitmentIndex((bool isOpened, address committer, uint64 dispatchTimestamp, bytes32 commitmentDigest, bytes commitmentSignature) commitment) pure returns (bytes32)",
  "function initiateReward(bytes32 commitmentIndex, uint256 residualBidPercentAfterDecay)",
  "function initiateSlash(bytes32 commitmentIndex, uint256 residualBidPercentAfterDecay)",
  "function openCommitment((bytes32 unopenedCommitmentIndex, uint256 bidAmt, uint256 slashAmt, uint64 blockNumber, uint64 decayStartTimeStamp, uint64 decayEndTimeStamp, string txnHash, string revertingTxHashes, bytes bidSignature, uint256[] zkProof) params) returns (bytes32 commitmentIndex)",
  "function openedCommitments(bytes32) view returns (address bidder, bool isSettled, uint64 blockNumber, uint64 decayStartTimeStamp, uint64 decayEndTimeStamp, uint64 dispatchTimestamp, address committer, uint256 bidAmt, uint256 slashAmt, bytes32 commitmentDigest, bytes commitmentSignature, string txnHash, string revertingTxHashes)",
  "function oracleContract() view returns (address)",
  "function owner() view returns (address)",
  "function processedTxnHashes(bytes32) view returns (bool)",
  "function providerRegistry() view returns (address)",
  "function storeUnopenedCommitment(bytes32 commitmentDigest, bytes commitmentSignature, uint64 dispatchTimestamp) returns (bytes32 commitmentIndex)",
  "function transferOwnership(address newOwner)",
  "function unopenedCommitments(bytes32) view returns (bool isOpened, address committer, uint64 dispatchTimestamp, bytes32 commitmentDigest, bytes commitmentSignature)",
  "function updateBidderRegistry(address newBidderRegistry)",
  "function updateBlockTracker(address newBlockTracker)",
  "function updateCommitmentDispatchWindow(uint64 newDispatchWindow)",
  "function updateOracleContract(address newOracleContract)",
  "function updateProviderRegistry(address newProviderRegistry)",
  "function verifyBid((bytes32 unopenedCommitmentIndex, uint256 bidAmt, uint256 slashAmt, uint64 blockNumber, uint64 decayStartTimeStamp, uint64 decayEndTimeStamp, string txnHash, string revertingTxHashes, bytes bidSignature, uint256[] zkProof) params) view returns (bytes32 messageDigest, address recoveredAddress)",
  "function verifyPreConfCommitment((string txnHash, string revertingTxHashes, uint256 bidAmt, uint256 slashAmt, uint64 blockNumber, uint64 decayStartTimeStamp, uint64 decayEndTimeStamp, bytes32 bidHash, bytes bidSignature, bytes commitmentSignature, uint256[] zkProof) params) view returns (bytes32 preConfHash, address committerAddress)",
  "function zkContextHash() view returns (bytes32)",
  "receive() external payable",
]);

export const oracleAbi = parseAbi([
  "constructor(address preconfManager_, address blockTrackerContract_, address oracleAccount_, address owner_)",
  "error BuilderNotBlockWinner(address blockWinner, address builder)",
  "error InvalidFallback()",
  "error InvalidReceive()",
  "error NotOracleAccount(address sender, address oracleAccount)",
  "error OwnableInvalidOwner(address owner)",
  "error OwnableUnauthorizedAccount(address account)",
  "error ResidualBidPercentAfterDecayExceedsMax(uint256 residualBidPercentAfterDecay)",
  "event BlockTrackerSet(address indexed newBlockTracker)",
  "event CommitmentProcessed(bytes32 indexed commitmentIndex, bool isSlash)",
  "event OracleAccountSet(address indexed oldOracleAccount, address indexed newOracleAccount)",
  "event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)",
  "event PreconfManagerSet(address indexed newPreconfManager)",
  "fallback() external payable",
  "function blockTracker() view returns (address)",
  "function oracleAccount() view returns (address)",
  "function owner() view returns (address)",
  "function preconfManager() view returns (address)",
  "function processBuilderCommitmentForBlockNumber(bytes32 commitmentIndex, uint256 blockNumber, address builder, bool isSlash, uint256 residualBidPercentAfterDecay)",
  "function setBlockTracker(address newBlockTracker)",
  "function setOracleAccount(address newOracleAccount)",
  "function setPreconfManager(address newPreconfManager)",
  "function transferOwnership(address newOwner)",
  "receive() external payable",
]);

export const validatorOptInRouterAbi = parseAbi([
  "constructor(address owner_)",
  "error InvalidBLSPubKeyLength(uint256 expected, uint256 actual)",
  "error InvalidFallback()",
  "error InvalidReceive()",
  "error OwnableInvalidOwner(address owner)",
  "error OwnableUnauthorizedAccount(address account)",
  "error SenderIsNotOptInAccount(address sender, address optInAccount)",
  "error ValidatorAlreadyOptedIn(bytes valBLSPubKey)",
  "error ValidatorNotOptedIn(bytes valBLSPubKey)",
  "event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)",
  "event ValidatorOptedIn(address indexed optInAccount, bytes valBLSPubKey)",
  "event ValidatorOptedOut(address indexed optInAccount, bytes valBLSPubKey, address indexed sender)",
  "fallback() external payable",
  "function BLS_PUBKEY_LENGTH() view returns (uint256)",
  "function areValidatorsOptedIn(bytes[] valBLSPubKeys) view returns ((bool isVanillaOptedIn, bool isAvsOptedIn, bool isMiddlewareOptedIn)[])",
  "function getOptInAccount(bytes valBLSPubKey) view returns (address)",
  "function isValidatorOptedIn(bytes valBLSPubKey) view returns (bool)",
  "function mevCommitAVS() view returns (address)",
  "function mevCommitMiddleware() view returns (address)",
  "function optIn(bytes[] valBLSPubKeys)",
  "function optOut(bytes[] valBLSPubKeys)",
  "function optedInCount() view returns (uint256)",
  "function owner() view returns (address)",
  "function transferOwnership(address newOwner)",
  "function vanillaRegistry() view returns (address)",
  "receive() external payable",
]);

// END GENERATED ABIS

// ------------------------------------------------------------------------------------------- access helpers

export const ABIS = {
  BlockTracker: blockTrackerAbi,
  ProviderRegistry: providerRegistryAbi,
  BidderRegistry: bidderRegistryAbi,
  PreconfManager: preconfManagerAbi,
  Oracle: oracleAbi,
  ValidatorOptInRouter: validatorOptInRouterAbi,
} as const;

/** `ContractAddresses` key => ABI. */
export const ABI_BY_KEY = {
  blockTracker: blockTrackerAbi,
  providerRegistry: providerRegistryAbi,
  bidderRegistry: bidderRegistryAbi,
  preconfManager: preconfManagerAbi,
  oracle: oracleAbi,
} as const;

type AnyPublicClient = PublicClient<Transport, Chain | undefined>;
type AnyWalletClient = WalletClient<Transport, Chain | undefined, Account | undefined>;
type Clients = AnyPublicClient | { public: AnyPublicClient; wallet?: AnyWalletClient };

function clientArg(clients: Clients): { public: AnyPublicClient; wallet?: AnyWalletClient } {
  return "public" in clients && typeof (clients as { public?: unknown }).public === "object"
    ? (clients as { public: AnyPublicClient; wallet?: AnyWalletClient })
    : { public: clients as AnyPublicClient };
}

export type BlockTrackerContract = GetContractReturnType<
  typeof blockTrackerAbi,
  { public: AnyPublicClient; wallet?: AnyWalletClient }
>;
export type ProviderRegistryContract = GetContractReturnType<
  typeof providerRegistryAbi,
  { public: AnyPublicClient; wallet?: AnyWalletClient }
>;
export type BidderRegistryContract = GetContractReturnType<
  typeof bidderRegistryAbi,
  { public: AnyPublicClient; wallet?: AnyWalletClient }
>;
export type PreconfManagerContract = GetContractReturnType<
  typeof preconfManagerAbi,
  { public: AnyPublicClient; wallet?: AnyWalletClient }
>;
export type OracleContract = GetContractReturnType<
  typeof oracleAbi,
  { public: AnyPublicClient; wallet?: AnyWalletClient }
>;
/** The validator opt-in registry on the L1 chain (not part of `ContractAddresses`, which is the settlement chain). */
export type ValidatorOptInRouterContract = GetContractReturnType<
  typeof validatorOptInRouterAbi,
  { public: AnyPublicClient; wallet?: AnyWalletClient }
>;

export interface Contracts {
  blockTracker: BlockTrackerContract;
  providerRegistry: ProviderRegistryContract;
  bidderRegistry: BidderRegistryContract;
  preconfManager: PreconfManagerContract;
  oracle: OracleContract;
}

export const blockTrackerContract = (address: Address, clients: Clients): BlockTrackerContract =>
  getContract({ address, abi: blockTrackerAbi, client: clientArg(clients) });
export const providerRegistryContract = (address: Address, clients: Clients): ProviderRegistryContract =>
  getContract({ address, abi: providerRegistryAbi, client: clientArg(clients) });
export const bidderRegistryContract = (address: Address, clients: Clients): BidderRegistryContract =>
  getContract({ address, abi: bidderRegistryAbi, client: clientArg(clients) });
export const preconfManagerContract = (address: Address, clients: Clients): PreconfManagerContract =>
  getContract({ address, abi: preconfManagerAbi, client: clientArg(clients) });
export const oracleContract = (address: Address, clients: Clients): OracleContract =>
  getContract({ address, abi: oracleAbi, client: clientArg(clients) });
/** The L1 validator opt-in registry deployed by `deployValidatorRegistry`; pass L1 clients. */
export const validatorOptInRouterContract = (address: Address, clients: Clients): ValidatorOptInRouterContract =>
  getContract({ address, abi: validatorOptInRouterAbi, client: clientArg(clients) });

/**
 * viem contract instances for every contract of a deployment. Pass a public client for reads only, or
 * `{ public, wallet }` to also get `.write.*` bound to the wallet's account.
 */
export function getContracts(addresses: ContractAddresses, clients: Clients): Contracts {
  return {
    blockTracker: blockTrackerContract(addresses.blockTracker, clients),
    providerRegistry: providerRegistryContract(addresses.providerRegistry, clients),
    bidderRegistry: bidderRegistryContract(addresses.bidderRegistry, clients),
    preconfManager: preconfManagerContract(addresses.preconfManager, clients),
    oracle: oracleContract(addresses.oracle, clients),
  };
}

// ------------------------------------------------------------------------------------------- revert decoding

/** The protocol v1.2 contracts' ABIs (contractsV12.ts) keyed like `ContractAddresses`, as ABI_BY_KEY is v1.1's. */
export const V12_ABI_BY_KEY = {
  blockTracker: blockTrackerV12Abi,
  providerRegistry: providerRegistryV12Abi,
  bidderRegistry: bidderRegistryV12Abi,
  preconfManager: preconfManagerV12Abi,
  oracle: oracleV12Abi,
} as const;

/** Every protocol v1.2 contract's ABI, the deposit manager's too; their reverts are decoded here as well. */
export const V12_ABIS = { ...V12_ABI_BY_KEY, depositManager: depositManagerV12Abi } as const;

/** Every custom error any of our contracts (v1.1's and v1.2's) can raise (a revert bubbles up through nested calls). */
export const ALL_ERRORS_ABI: readonly AbiError[] = (() => {
  const seen = new Map<string, AbiError>();
  for (const abi of [...Object.values(ABIS), ...Object.values(V12_ABIS)] as Abi[]) {
    for (const item of abi) {
      if (item.type !== "error") continue;
      const key = `${item.name}(${item.inputs.map((i) => i.type).join(",")})`;
      if (!seen.has(key)) seen.set(key, item);
    }
  }
  return [...seen.values()];
})();

/** A contract call reverted; `text` renders it as upstream does: `Name(arg=value, ...)`. */
export class ContractRevertError extends MevCommitError {
  constructor(
    /** Custom error name, "Error" for a string revert, "Panic", or the 4-byte selector if unknown. */
    readonly errorName: string,
    readonly args: readonly unknown[],
    readonly text: string,
    /** Raw revert data, if the node returned it. */
    readonly data?: Hex,
    options?: { cause?: unknown },
  ) {
    super(`execution reverted: ${text}`, { ...options, context: { errorName, args, data } });
  }
}

function renderValue(v: unknown): string {
  if (typeof v === "bigint") return v.toString();
  if (Array.isArray(v)) return `[${v.map(renderValue).join(", ")}]`;
  if (v && typeof v === "object") {
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}=${renderValue(x)}`)
      .join(", ")}}`;
  }
  return String(v);
}

function render(name: string, args: readonly unknown[], abiItem?: AbiError): string {
  const parts = args.map((a, i) => {
    const label = abiItem?.inputs[i]?.name || `arg${i}`;
    return `${label}=${renderValue(a)}`;
  });
  return `${name}(${parts.join(", ")})`;
}

// biome-ignore-start lint/complexity/useSimpleNumberKeys: Solidity documents its panic codes in hex
const PANIC_CODES: Record<number, string> = {
  0x01: "assert failed",
  0x11: "arithmetic overflow or underflow",
  0x12: "division by zero",
  0x21: "invalid enum value",
  0x31: "pop on empty array",
  0x32: "array index out of bounds",
  0x41: "out of memory",
  0x51: "call to zero-initialized function",
};
// biome-ignore-end lint/complexity/useSimpleNumberKeys: as above

/** Finds raw revert data (0x + selector...) anywhere in a viem error chain. */
function findRevertData(err: unknown): Hex | undefined {
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 12; depth++) {
    const c = cur as { data?: unknown; raw?: unknown; cause?: unknown };
    for (const d of [c.raw, c.data, (c.data as { data?: unknown } | undefined)?.data]) {
      if (typeof d === "string" && /^0x[0-9a-fA-F]{8,}$/.test(d)) return d as Hex;
    }
    cur = c.cause;
  }
  return undefined;
}

/** Decodes raw revert data against all our contracts' errors plus Error(string) and Panic(uint256). */
export function decodeRevertData(data: Hex, cause?: unknown): ContractRevertError {
  try {
    const decoded = decodeErrorResult({ abi: ALL_ERRORS_ABI as Abi, data });
    const args = (decoded.args ?? []) as readonly unknown[];
    if (decoded.errorName === "Error") {
      return new ContractRevertError("Error", args, String(args[0] ?? ""), data, { cause });
    }
    if (decoded.errorName === "Panic") {
      const code = Number(args[0] ?? 0);
      const why = PANIC_CODES[code];
      return new ContractRevertError(
        "Panic",
        args,
        `Panic(code=0x${code.toString(16)}${why ? `, reason=${why}` : ""})`,
        data,
        { cause },
      );
    }
    return new ContractRevertError(
      decoded.errorName,
      args,
      render(decoded.errorName, args, decoded.abiItem as AbiError),
      data,
      { cause },
    );
  } catch {
    const selector = data.slice(0, 10);
    return new ContractRevertError(selector, [], `UnknownError(data=${data})`, data, { cause });
  }
}

/**
 * Turns an error thrown by a viem contract call, simulation, gas estimation or transaction into a
 * `ContractRevertError`. Returns undefined if the error is not a revert (network failure, bad input, ...).
 * A revert without data (e.g. a plain `revert()`) yields errorName "" and text "reverted".
 */
export function decodeRevert(error: unknown): ContractRevertError | undefined {
  if (error instanceof ContractRevertError) return error;
  const data = findRevertData(error);
  if (data) return decodeRevertData(data, error);
  if (error instanceof BaseError) {
    const reverted = error.walk((e) => (e as { name?: string }).name === "ContractFunctionRevertedError") as
      | (BaseError & { reason?: string; data?: { errorName: string; args?: readonly unknown[]; abiItem?: AbiError } })
      | null;
    if (reverted) {
      if (reverted.data) {
        const args = reverted.data.args ?? [];
        return new ContractRevertError(
          reverted.data.errorName,
          args,
          render(reverted.data.errorName, args, reverted.data.abiItem),
          undefined,
          { cause: error },
        );
      }
      if (reverted.reason)
        return new ContractRevertError("Error", [reverted.reason], reverted.reason, undefined, { cause: error });
      return new ContractRevertError("", [], "reverted", undefined, { cause: error });
    }
    const execReverted = error.walk((e) => (e as { name?: string }).name === "ExecutionRevertedError");
    if (execReverted) return new ContractRevertError("", [], "reverted", undefined, { cause: error });
  }
  return undefined;
}
