// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

import {Owned} from "./Owned.sol";
import {ReentrancyGuard} from "./ReentrancyGuard.sol";
import {FeePayout} from "./FeePayout.sol";
import {IBlockTracker} from "./Interfaces.sol";
import {WindowFromBlockNumber} from "./WindowFromBlockNumber.sol";
import {EtherSend} from "./EtherSend.sol";

/// @title BidderRegistry
/// @notice Window-based bidder deposits. A deposit for window w can be spent at most deposit/10 per L1 block
///         of w; opening a commitment locks the bid amount, settlement pays the provider (reward) or returns it
///         to the bidder (slash). Leftovers are withdrawable once BlockTracker's current window passed w.
/// @dev Percentages use 1e18 = 100 %. The fee payout period is in milliseconds.
contract BidderRegistry is Owned, ReentrancyGuard {
    uint256 public constant PRECISION = 1e16;
    uint256 public constant ONE_HUNDRED_PERCENT = 100 * PRECISION;

    enum State {
        Undefined,
        PreConfirmed,
        Withdrawn
    }

    struct BidState {
        address bidder;
        uint256 bidAmt;
        State state;
    }

    /// @notice Protocol fee on rewards, as a fraction of 1e18.
    uint256 public feePercent;
    address public preconfManager;
    address public blockTrackerContract;

    FeePayout.Tracker public protocolFeeTracker;

    /// @notice bidder => window => deposit not yet spent.
    mapping(address => mapping(uint256 => uint256)) public lockedFunds;
    /// @notice bidder => window => per-block spending cap (deposit / blocks per window).
    mapping(address => mapping(uint256 => uint256)) public maxBidPerBlock;
    /// @notice bidder => L1 block => amount locked by opened bids for that block.
    mapping(address => mapping(uint64 => uint256)) public usedFunds;
    /// @notice commitment digest => bid bookkeeping.
    mapping(bytes32 => BidState) public bidPayment;
    /// @notice provider => rewards not yet withdrawn.
    mapping(address => uint256) public providerAmount;

    event BidderRegistered(address indexed bidder, uint256 indexed depositedAmount, uint256 indexed windowNumber);
    event BidderWithdrawal(address indexed bidder, uint256 indexed window, uint256 indexed amount);
    event FundsRetrieved(
        bytes32 indexed commitmentDigest,
        address indexed bidder,
        uint256 indexed window,
        uint256 amount
    );
    event FundsRewarded(
        bytes32 indexed commitmentDigest,
        address indexed bidder,
        address indexed provider,
        uint256 window,
        uint256 amount
    );
    event TransferToBidderFailed(address bidder, uint256 amount);
    event PreconfManagerUpdated(address indexed newPreconfManager);
    event BlockTrackerUpdated(address indexed newBlockTracker);
    event FeePercentUpdated(uint256 indexed newFeePercent);
    event ProtocolFeeRecipientUpdated(address indexed newProtocolFeeRecipient);
    event FeePayoutPeriodUpdated(uint256 indexed newFeePayoutPeriod);

    error SenderIsNotPreconfManager(address sender, address preconfManager);
    error DepositAmountIsZero();
    error BidNotPreConfirmed(bytes32 commitmentDigest, State actualState, State expectedState);
    error WithdrawAfterWindowSettled(uint256 window, uint256 currentWindow);
    error WindowNotSettled();
    error OnlyBidderCanWithdraw(address sender, address bidder);
    error BidderWithdrawalTransferFailed(address bidder, uint256 amount);
    error ProviderAmountIsZero(address provider);
    error TransferToProviderFailed(address provider, uint256 amount);

    modifier onlyPreconfManager() {
        if (msg.sender != preconfManager) revert SenderIsNotPreconfManager(msg.sender, preconfManager);
        _;
    }

    constructor(
        address _protocolFeeRecipient,
        uint256 _feePercent,
        address _owner,
        address _blockTracker,
        uint256 _feePayoutPeriod
    ) Owned(_owner) {
        FeePayout.init(protocolFeeTracker, _protocolFeeRecipient, _feePayoutPeriod);
        feePercent = _feePercent;
        blockTrackerContract = _blockTracker;
    }

    // ---------------------------------------------------------------- deposits

    /// @notice Deposits msg.value for `window` (any window; no check that it is current or future).
    function depositForWindow(uint256 window) external payable {
        if (msg.value == 0) revert DepositAmountIsZero();
        _deposit(window, msg.value);
    }

    /// @notice Splits msg.value evenly over `windows`; the division remainder goes to the last window.
    function depositForWindows(uint256[] calldata windows) external payable {
        if (msg.value == 0 || windows.length == 0) revert DepositAmountIsZero();
        uint256 share = msg.value / windows.length;
        uint256 remainder = msg.value - share * windows.length;
        for (uint256 i = 0; i < windows.length; ++i) {
            _deposit(windows[i], i == windows.length - 1 ? share + remainder : share);
        }
    }

    function getDeposit(address bidder, uint256 window) external view returns (uint256) {
        return lockedFunds[bidder][window];
    }

    // ---------------------------------------------------------------- PreconfManager hooks

    /// @notice Locks the bid of an opened commitment, capped (never reverting) to what is left of the bidder's
    ///         per-block allowance for `blockNumber`. Returns the amount actually locked (may be 0).
    function openBid(bytes32 commitmentDigest, uint256 bidAmt, address bidder, uint64 blockNumber)
        external
        onlyPreconfManager
        returns (uint256)
    {
        BidState storage bid = bidPayment[commitmentDigest];
        if (bid.state != State.Undefined) {
            return bidAmt;
        }
        uint256 window = WindowFromBlockNumber.getWindowFromBlockNumber(blockNumber);
        uint256 maxBid = maxBidPerBlock[bidder][window];
        uint256 used = usedFunds[bidder][blockNumber];
        uint256 available = maxBid > used ? maxBid - used : 0;
        uint256 locked = lockedFunds[bidder][window];
        if (available > locked) {
            available = locked;
        }
        if (bidAmt > available) {
            bidAmt = available;
        }
        usedFunds[bidder][blockNumber] = used + bidAmt;
        lockedFunds[bidder][window] = locked - bidAmt;
        bid.bidder = bidder;
        bid.bidAmt = bidAmt;
        bid.state = State.PreConfirmed;
        return bidAmt;
    }

    /// @notice Reward: the decayed bid (bid * residual / 1e18) minus the protocol fee goes to the provider's
    ///         balance, the fee to the protocol fee tracker, the decayed-away part back to the bidder.
    function retrieveFunds(
        uint256 windowToSettle,
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
        uint256 amtMinusFee = decayedAmt - feeAmt;

        bid.state = State.Withdrawn;
        bid.bidAmt = 0;

        providerAmount[provider] += amtMinusFee;
        FeePayout.accrue(protocolFeeTracker, feeAmt);

        uint256 refund = bidAmt - decayedAmt;
        if (refund != 0 && !EtherSend.trySend(bidder, refund)) {
            lockedFunds[bidder][windowToSettle] += refund;
            emit TransferToBidderFailed(bidder, refund);
        }
        emit FundsRewarded(commitmentDigest, bidder, provider, windowToSettle, decayedAmt);
    }

    /// @notice Slash path: the whole locked bid goes back to the bidder.
    function unlockFunds(uint256 window, bytes32 commitmentDigest) external nonReentrant onlyPreconfManager {
        BidState storage bid = bidPayment[commitmentDigest];
        if (bid.state != State.PreConfirmed) {
            revert BidNotPreConfirmed(commitmentDigest, bid.state, State.PreConfirmed);
        }
        uint256 amount = bid.bidAmt;
        address bidder = bid.bidder;
        bid.state = State.Withdrawn;
        bid.bidAmt = 0;
        if (amount != 0 && !EtherSend.trySend(bidder, amount)) {
            lockedFunds[bidder][window] += amount;
            emit TransferToBidderFailed(bidder, amount);
        }
        emit FundsRetrieved(commitmentDigest, bidder, window, amount);
    }

    // ---------------------------------------------------------------- withdrawals

    /// @notice Withdraws the unspent deposit of each window; every window must be before the current one.
    function withdrawFromWindows(uint256[] calldata windows) external nonReentrant {
        uint256 current = IBlockTracker(blockTrackerContract).getCurrentWindow();
        uint256 total = 0;
        for (uint256 i = 0; i < windows.length; ++i) {
            if (windows[i] >= current) revert WithdrawAfterWindowSettled(windows[i], current);
            total += _clearWindow(msg.sender, windows[i]);
        }
        if (total != 0) {
            (bool ok, ) = payable(msg.sender).call{value: total}("");
            if (!ok) revert BidderWithdrawalTransferFailed(msg.sender, total);
        }
    }

    /// @notice Single-window variant; only the bidder itself may call it.
    function withdrawBidderAmountFromWindow(address payable bidder, uint256 window) external nonReentrant {
        if (msg.sender != bidder) revert OnlyBidderCanWithdraw(msg.sender, bidder);
        uint256 current = IBlockTracker(blockTrackerContract).getCurrentWindow();
        if (window >= current) revert WindowNotSettled();
        uint256 amount = _clearWindow(bidder, window);
        if (amount != 0) {
            (bool ok, ) = bidder.call{value: amount}("");
            if (!ok) revert BidderWithdrawalTransferFailed(bidder, amount);
        }
    }

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

    function _deposit(uint256 window, uint256 amount) internal {
        uint256 newLocked = lockedFunds[msg.sender][window] + amount;
        lockedFunds[msg.sender][window] = newLocked;
        maxBidPerBlock[msg.sender][window] = newLocked / WindowFromBlockNumber.BLOCKS_PER_WINDOW;
        emit BidderRegistered(msg.sender, newLocked, window);
    }

    function _clearWindow(address bidder, uint256 window) internal returns (uint256 amount) {
        amount = lockedFunds[bidder][window];
        lockedFunds[bidder][window] = 0;
        maxBidPerBlock[bidder][window] = 0;
        if (window != 0) {
            (uint256 first, uint256 last) = WindowFromBlockNumber.getBlockNumbersFromWindow(window);
            for (uint256 b = first; b <= last; ++b) {
                usedFunds[bidder][uint64(b)] = 0;
            }
        }
        emit BidderWithdrawal(bidder, window, amount);
    }
}
