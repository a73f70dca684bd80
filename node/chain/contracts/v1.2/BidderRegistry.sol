// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

import {Owned} from "../Owned.sol";
import {ReentrancyGuard} from "../ReentrancyGuard.sol";
import {FeePayout} from "../FeePayout.sol";
import {EtherSend} from "../EtherSend.sol";
import {IDepositManager} from "./Interfaces.sol";

/// @title BidderRegistry (protocol v1.2)
/// @notice Bidder deposits per (bidder, provider). Opening a commitment moves the bid from the deposit's available
///         amount to its escrow; settlement pays the provider (reward) or sends the bid back to the bidder (slash).
///         A bidder withdraws in two steps: a request, then, once the withdrawal period has passed, the withdrawal of
///         the available amount. A bidder EOA delegated (EIP-7702) to the DepositManager is topped up on every open.
/// @dev Percentages use 1e18 = 100 %. Times (withdrawal period, request time, fee payout) are Unix milliseconds;
///      block.timestamp (seconds on Anvil) is converted with FeePayout.nowMs().
contract BidderRegistry is Owned, ReentrancyGuard {
    uint256 public constant PRECISION = 1e16;
    uint256 public constant ONE_HUNDRED_PERCENT = 100 * PRECISION;

    enum State {
        Undefined,
        PreConfirmed,
        Settled
    }

    struct BidState {
        address bidder;
        uint256 bidAmt;
        State state;
    }

    struct TimestampOccurrence {
        bool exists;
        uint256 timestamp;
    }

    struct Deposit {
        bool exists;
        uint256 availableAmount;
        uint256 escrowedAmount;
        TimestampOccurrence withdrawalRequestOccurrence;
    }

    address public preconfManager;
    /// @notice Protocol fee on rewards, as a fraction of 1e18.
    uint256 public feePercent;
    address public blockTrackerContract;
    FeePayout.Tracker public protocolFeeTracker;
    /// @notice commitment digest => bid bookkeeping.
    mapping(bytes32 => BidState) public bidPayment;
    /// @notice provider => rewards not yet withdrawn.
    mapping(address => uint256) public providerAmount;
    /// @notice Time (ms) between a withdrawal request and the earliest withdrawal (strictly after).
    uint256 public bidderWithdrawalPeriodMs;
    /// @notice bidder => provider => deposit.
    mapping(address => mapping(address => Deposit)) public deposits;
    /// @notice The DepositManager implementation bidder EOAs delegate to.
    address public depositManagerImpl;
    /// @notice keccak256(0xef0100 ‖ depositManagerImpl): the code hash of an EOA delegated to it.
    bytes32 public depositManagerHash;

    event BidderDeposited(
        address indexed bidder,
        address indexed provider,
        uint256 indexed depositedAmount,
        uint256 newAvailableAmount
    );
    event WithdrawalRequested(
        address indexed bidder,
        address indexed provider,
        uint256 availableAmount,
        uint256 escrowedAmount,
        uint256 indexed timestamp
    );
    event BidderWithdrawal(
        address indexed bidder,
        address indexed provider,
        uint256 indexed amountWithdrawn,
        uint256 amountStillEscrowed
    );
    event FundsRewarded(
        bytes32 indexed commitmentDigest,
        address indexed bidder,
        address indexed provider,
        uint256 amount
    );
    event FundsUnlocked(
        bytes32 indexed commitmentDigest,
        address indexed bidder,
        address indexed provider,
        uint256 amount
    );
    event BidAmountReduced(address indexed bidder, address indexed provider, uint256 indexed newBidAmt);
    event TopUpFailed(address indexed bidder, address indexed provider);
    event DepositManagerImplUpdated(address indexed newDepositManagerImpl);
    event TransferToBidderFailed(address bidder, uint256 amount);
    event PreconfManagerUpdated(address indexed newPreconfManager);
    event BlockTrackerUpdated(address indexed newBlockTracker);
    event FeePercentUpdated(uint256 indexed newFeePercent);
    event ProtocolFeeRecipientUpdated(address indexed newProtocolFeeRecipient);
    event FeePayoutPeriodUpdated(uint256 indexed newFeePayoutPeriod);

    error SenderIsNotPreconfManager(address sender, address preconfManager);
    error DepositAmountIsZero();
    error ProviderIsZeroAddress();
    error NoProviders();
    error DepositAmountIsLessThanProviders(uint256 amount, uint256 numProviders);
    error DepositDoesNotExist(address bidder, address provider);
    error WithdrawalOccurrenceExists(address bidder, address provider, uint256 requestTimestamp);
    error WithdrawalRequestAlreadyExists(address bidder, address provider);
    error WithdrawalRequestDoesNotExist(address bidder, address provider);
    error WithdrawalPeriodNotElapsed(uint256 currentTimestampMs, uint256 withdrawalTimestampMs, uint256 withdrawalPeriodMs);
    error DepositManagerNotSet();
    error BidNotPreConfirmed(bytes32 commitmentDigest, State actualState, State expectedState);
    error BidderWithdrawalTransferFailed(address bidder, uint256 amount);
    error ProviderAmountIsZero(address provider);
    error TransferToProviderFailed(address provider, uint256 amount);

    modifier onlyPreconfManager() {
        if (msg.sender != preconfManager) revert SenderIsNotPreconfManager(msg.sender, preconfManager);
        _;
    }

    modifier depositManagerIsSet() {
        if (depositManagerImpl == address(0)) revert DepositManagerNotSet();
        _;
    }

    constructor(
        address _protocolFeeRecipient,
        uint256 _feePercent,
        address _owner,
        address _blockTracker,
        uint256 _feePayoutPeriod,
        uint256 _bidderWithdrawalPeriodMs
    ) Owned(_owner) {
        FeePayout.init(protocolFeeTracker, _protocolFeeRecipient, _feePayoutPeriod);
        feePercent = _feePercent;
        blockTrackerContract = _blockTracker;
        bidderWithdrawalPeriodMs = _bidderWithdrawalPeriodMs;
    }

    receive() external payable {
        revert("Invalid call");
    }

    fallback() external payable {
        revert("Invalid call");
    }

    // ---------------------------------------------------------------- deposits

    /// @notice Adds msg.value to the sender's deposit toward `provider` (refused while a withdrawal is requested).
    function depositAsBidder(address provider) external payable {
        if (msg.value == 0) revert DepositAmountIsZero();
        _deposit(provider, msg.value);
    }

    /// @notice Splits msg.value evenly over `providers`; the division remainder goes to the last one.
    function depositEvenlyAsBidder(address[] calldata providers) external payable {
        uint256 n = providers.length;
        if (n == 0) revert NoProviders();
        if (msg.value < n) revert DepositAmountIsLessThanProviders(msg.value, n);
        uint256 share = msg.value / n;
        uint256 remainder = msg.value % n;
        for (uint256 i = 0; i < n; ++i) {
            _deposit(providers[i], i == n - 1 ? share + remainder : share);
        }
    }

    /// @notice Starts the withdrawal period of each deposit; the funds stay usable for bids meanwhile.
    function requestWithdrawalsAsBidder(address[] calldata providers) external {
        uint256 nowMs = FeePayout.nowMs();
        for (uint256 i = 0; i < providers.length; ++i) {
            Deposit storage d = deposits[msg.sender][providers[i]];
            if (!d.exists) revert DepositDoesNotExist(msg.sender, providers[i]);
            if (d.withdrawalRequestOccurrence.exists) revert WithdrawalRequestAlreadyExists(msg.sender, providers[i]);
            d.withdrawalRequestOccurrence = TimestampOccurrence({exists: true, timestamp: nowMs});
            emit WithdrawalRequested(msg.sender, providers[i], d.availableAmount, d.escrowedAmount, nowMs);
        }
    }

    /// @notice Pays out the available amount of each requested deposit whose period has passed (escrow stays),
    ///         in one transfer.
    function withdrawAsBidder(address[] calldata providers) external nonReentrant {
        uint256 nowMs = FeePayout.nowMs();
        uint256 total = 0;
        for (uint256 i = 0; i < providers.length; ++i) {
            Deposit storage d = deposits[msg.sender][providers[i]];
            if (!d.exists) revert DepositDoesNotExist(msg.sender, providers[i]);
            if (!d.withdrawalRequestOccurrence.exists) revert WithdrawalRequestDoesNotExist(msg.sender, providers[i]);
            uint256 requestedAt = d.withdrawalRequestOccurrence.timestamp;
            if (!(requestedAt + bidderWithdrawalPeriodMs < nowMs)) {
                revert WithdrawalPeriodNotElapsed(nowMs, requestedAt, bidderWithdrawalPeriodMs);
            }
            uint256 amount = d.availableAmount;
            d.availableAmount = 0;
            delete d.withdrawalRequestOccurrence;
            total += amount;
            emit BidderWithdrawal(msg.sender, providers[i], amount, d.escrowedAmount);
        }
        (bool ok, ) = payable(msg.sender).call{value: total}("");
        if (!ok) revert BidderWithdrawalTransferFailed(msg.sender, total);
    }

    /// @notice The available amount (ignores a pending withdrawal request).
    function getDeposit(address bidder, address provider) external view returns (uint256) {
        return deposits[bidder][provider].availableAmount;
    }

    /// @notice The available amount, or 0 when there is no deposit or a withdrawal request is pending.
    function getDepositConsideringWithdrawalRequest(address bidder, address provider) external view returns (uint256) {
        Deposit storage d = deposits[bidder][provider];
        if (!d.exists || d.withdrawalRequestOccurrence.exists) return 0;
        return d.availableAmount;
    }

    function getEscrowedAmount(address bidder, address provider) external view returns (uint256) {
        return deposits[bidder][provider].escrowedAmount;
    }

    function withdrawalRequestExists(address bidder, address provider) external view returns (bool) {
        return deposits[bidder][provider].withdrawalRequestOccurrence.exists;
    }

    // ---------------------------------------------------------------- PreconfManager hooks

    /// @notice Escrows the bid of an opened commitment from deposits[bidder][provider], reduced (never reverting)
    ///         to the available amount; then tops the deposit up when the bidder is delegated to the
    ///         DepositManager. Returns the amount escrowed.
    function openBid(bytes32 commitmentDigest, uint256 bidAmt, address bidder, address provider)
        external
        onlyPreconfManager
        depositManagerIsSet
        returns (uint256)
    {
        BidState storage bid = bidPayment[commitmentDigest];
        if (bid.state != State.Undefined) {
            return bidAmt;
        }
        Deposit storage d = deposits[bidder][provider];
        if (d.availableAmount < bidAmt) {
            bidAmt = d.availableAmount;
            emit BidAmountReduced(bidder, provider, bidAmt);
        }
        if (bidAmt > 0) {
            d.availableAmount -= bidAmt;
            d.escrowedAmount += bidAmt;
        }
        bid.bidder = bidder;
        bid.bidAmt = bidAmt;
        bid.state = State.PreConfirmed;

        if (_isDelegatedToDepositManager(bidder)) {
            try IDepositManager(bidder).topUpDeposit(provider) {} catch {
                emit TopUpFailed(bidder, provider);
            }
        }
        return bidAmt;
    }

    /// @notice Reward: the decayed bid (bid * residual / 1e18) minus the protocol fee goes to the provider's
    ///         balance, the fee to the protocol fee tracker, the decayed-away part to the bidder EOA (to the
    ///         deposit's available amount if that transfer fails).
    function convertFundsToProviderReward(
        bytes32 commitmentDigest,
        address payable provider,
        uint256 residualBidPercentAfterDecay
    ) external nonReentrant onlyPreconfManager {
        BidState storage bid = bidPayment[commitmentDigest];
        if (bid.state != State.PreConfirmed) {
            revert BidNotPreConfirmed(commitmentDigest, bid.state, State.PreConfirmed);
        }
        uint256 bidAmt = bid.bidAmt;
        address bidder = bid.bidder;
        uint256 decayedAmt = (bidAmt * residualBidPercentAfterDecay) / ONE_HUNDRED_PERCENT;
        uint256 feeAmt = (decayedAmt * feePercent) / ONE_HUNDRED_PERCENT;

        bid.state = State.Settled;
        bid.bidAmt = 0;
        deposits[bidder][provider].escrowedAmount -= bidAmt;

        providerAmount[provider] += decayedAmt - feeAmt;
        FeePayout.accrue(protocolFeeTracker, feeAmt);

        _refund(bidder, provider, bidAmt - decayedAmt);
        emit FundsRewarded(commitmentDigest, bidder, provider, decayedAmt);
    }

    /// @notice Slash path: the whole escrowed bid goes to the bidder EOA (to the available amount if that fails).
    function unlockFunds(address provider, bytes32 commitmentDigest) external nonReentrant onlyPreconfManager {
        BidState storage bid = bidPayment[commitmentDigest];
        if (bid.state != State.PreConfirmed) {
            revert BidNotPreConfirmed(commitmentDigest, bid.state, State.PreConfirmed);
        }
        uint256 amount = bid.bidAmt;
        address bidder = bid.bidder;
        bid.state = State.Settled;
        bid.bidAmt = 0;
        deposits[bidder][provider].escrowedAmount -= amount;
        _refund(bidder, provider, amount);
        emit FundsUnlocked(commitmentDigest, bidder, provider, amount);
    }

    // ---------------------------------------------------------------- providers

    /// @notice Pays a provider's accumulated rewards (anyone may trigger it; funds go to the provider).
    function withdrawProviderAmount(address payable provider) external nonReentrant {
        uint256 amount = providerAmount[provider];
        if (amount == 0) revert ProviderAmountIsZero(provider);
        providerAmount[provider] = 0;
        (bool ok, ) = provider.call{value: amount}("");
        if (!ok) revert TransferToProviderFailed(provider, amount);
    }

    function getProviderAmount(address provider) external view returns (uint256) {
        return providerAmount[provider];
    }

    // ---------------------------------------------------------------- fees and admin

    function getAccumulatedProtocolFee() external view returns (uint256) {
        return protocolFeeTracker.accumulatedAmount;
    }

    function manuallyWithdrawProtocolFee() external onlyOwner {
        FeePayout.transferToRecipient(protocolFeeTracker);
    }

    /// @notice Sets the DepositManager implementation and the code hash of an EOA delegated to it.
    function setDepositManagerImpl(address impl) external onlyOwner {
        depositManagerImpl = impl;
        depositManagerHash = keccak256(abi.encodePacked(hex"ef0100", impl));
        emit DepositManagerImplUpdated(impl);
    }

    function setPreconfManager(address contractAddress) external onlyOwner {
        preconfManager = contractAddress;
        emit PreconfManagerUpdated(contractAddress);
    }

    function setBlockTrackerContract(address newBlockTrackerContract) external onlyOwner {
        blockTrackerContract = newBlockTrackerContract;
        emit BlockTrackerUpdated(newBlockTrackerContract);
    }

    function setNewFeePercent(uint256 newFeePercent) external onlyOwner {
        feePercent = newFeePercent;
        emit FeePercentUpdated(newFeePercent);
    }

    function setNewProtocolFeeRecipient(address newProtocolFeeRecipient) external onlyOwner {
        if (newProtocolFeeRecipient == address(0)) revert FeePayout.FeeRecipientIsZero();
        protocolFeeTracker.recipient = newProtocolFeeRecipient;
        emit ProtocolFeeRecipientUpdated(newProtocolFeeRecipient);
    }

    /// @param newFeePayoutPeriod period in milliseconds
    function setNewFeePayoutPeriod(uint256 newFeePayoutPeriod) external onlyOwner {
        if (newFeePayoutPeriod == 0) revert FeePayout.PayoutPeriodMustBePositive();
        protocolFeeTracker.payoutTimePeriod = newFeePayoutPeriod;
        emit FeePayoutPeriodUpdated(newFeePayoutPeriod);
    }

    // ---------------------------------------------------------------- internals

    function _deposit(address provider, uint256 amount) internal {
        if (provider == address(0)) revert ProviderIsZeroAddress();
        Deposit storage d = deposits[msg.sender][provider];
        if (d.exists && d.withdrawalRequestOccurrence.exists) {
            revert WithdrawalOccurrenceExists(msg.sender, provider, d.withdrawalRequestOccurrence.timestamp);
        }
        d.exists = true;
        d.availableAmount += amount;
        emit BidderDeposited(msg.sender, provider, amount, d.availableAmount);
    }

    /// @dev 2300-gas push to the bidder; on failure the amount goes back to the deposit's available amount.
    function _refund(address bidder, address provider, uint256 amount) internal {
        if (amount != 0 && !EtherSend.trySend(bidder, amount)) {
            deposits[bidder][provider].availableAmount += amount;
            emit TransferToBidderFailed(bidder, amount);
        }
    }

    /// @dev EIP-7702: a delegated EOA's code is the 23-byte designator 0xef0100 ‖ implementation.
    function _isDelegatedToDepositManager(address bidder) internal view returns (bool) {
        return bidder.code.length == 23 && bidder.codehash == depositManagerHash;
    }
}
