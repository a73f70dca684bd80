// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

import {Owned} from "../Owned.sol";
import {ReentrancyGuard} from "../ReentrancyGuard.sol";
import {FeePayout} from "../FeePayout.sol";
import {IPreconfManager} from "./Interfaces.sol";
import {EtherSend} from "../EtherSend.sol";

/// @title ProviderRegistry (protocol v1.2)
/// @notice Provider registration and stake, builder BLS key => provider mapping, and slashing of a provider's
///         stake when the oracle finds a broken commitment.
/// @dev Percentages use 1e18 = 100 %. Timestamps (withdrawal requests, delays, fee payout) are Unix milliseconds;
///      block.timestamp is converted with `* 1000`.
contract ProviderRegistry is Owned, ReentrancyGuard {
    uint256 public constant PRECISION = 1e16;
    uint256 public constant ONE_HUNDRED_PERCENT = 100 * PRECISION;

    /// @notice Minimum stake to register and to stay valid.
    uint256 public minStake;
    /// @notice Penalty fee on slashes, as a fraction of 1e18 (applied to the slash amount).
    uint256 public feePercent;
    /// @notice Delay (ms) between `unstake` and `withdraw`.
    uint256 public withdrawalDelay;
    /// @notice PreconfManager, the only caller of `slash`.
    address public preconfManager;

    FeePayout.Tracker public penaltyFeeTracker;

    mapping(address => bool) public providerRegistered;
    mapping(address => uint256) public providerStakes;
    /// @notice Provider => unstake request time (ms); 0 = none.
    mapping(address => uint256) public withdrawalRequests;
    /// @notice Bidder => slash compensation that could not be pushed (pull with withdrawSlashedAmount).
    mapping(address => uint256) public bidderSlashedAmount;
    mapping(bytes => address) public blockBuilderBLSKeyToAddress;
    mapping(address => bytes[]) public eoaToBlsPubkeys;

    event ProviderRegistered(address indexed provider, uint256 stakedAmount);
    event FundsDeposited(address indexed provider, uint256 amount);
    event FundsSlashed(address indexed provider, uint256 amount);
    event InsufficientFundsToSlash(
        address indexed provider,
        uint256 providerStake,
        uint256 penaltyFee,
        uint256 bidderPortion
    );
    event Unstake(address indexed provider, uint256 timestamp);
    event Withdraw(address indexed provider, uint256 amount);
    event BLSKeyAdded(address indexed provider, bytes blsPublicKey);
    event BLSKeyRemoved(address indexed provider, bytes blsPublicKey);
    event TransferToBidderFailed(address bidder, uint256 amount);
    event BidderWithdrawSlashedAmount(address bidder, uint256 amount);
    event MinStakeUpdated(uint256 indexed newMinStake);
    event PreconfManagerUpdated(address indexed newPreconfManager);
    event FeePercentUpdated(uint256 indexed newFeePercent);
    event WithdrawalDelayUpdated(uint256 newWithdrawalDelay);
    event PenaltyFeeRecipientUpdated(address indexed newPenaltyFeeRecipient);
    event FeePayoutPeriodUpdated(uint256 indexed newFeePayoutPeriod);

    error NotPreconfContract(address sender, address preconfManager);
    error ProviderAlreadyRegistered(address sender);
    error ProviderNotRegistered(address sender);
    error InsufficientStake(uint256 stake, uint256 minStake);
    error PendingWithdrawalRequest(address sender);
    error NoStakeToWithdraw(address sender);
    error UnstakeRequestExists(address sender);
    error NoUnstakeRequest(address sender);
    error DelayNotPassed(uint256 withdrawalRequestTimestamp, uint256 withdrawalDelay, uint256 currentBlockTimestamp);
    error PreconfManagerNotSet();
    error ProviderCommitmentsPending(address sender, uint256 numPending);
    error StakeTransferFailed(address sender, uint256 amount);
    error BidderAmountIsZero(address sender);
    error BidderWithdrawalTransferFailed(address sender, uint256 amount);
    error PublicKeyLengthInvalid(uint256 exp, uint256 got);
    error SignatureLengthInvalid(uint256 exp, uint256 got);
    error InvalidBLSPublicKeyLength(uint256 length, uint256 expectedLength);
    error BLSSignatureInvalid();
    error BLSKeyAlreadyExists(bytes blsPublicKey);
    error BLSKeyDoesNotExist(bytes blsPublicKey);
    error InvalidReceive();
    error InvalidFallback();

    modifier onlyPreconfManager() {
        if (msg.sender != preconfManager) revert NotPreconfContract(msg.sender, preconfManager);
        _;
    }

    constructor(
        uint256 _minStake,
        address _penaltyFeeRecipient,
        uint256 _feePercent,
        address _owner,
        uint256 _withdrawalDelay,
        uint256 _penaltyFeePayoutPeriod
    ) Owned(_owner) {
        FeePayout.init(penaltyFeeTracker, _penaltyFeeRecipient, _penaltyFeePayoutPeriod);
        minStake = _minStake;
        feePercent = _feePercent;
        withdrawalDelay = _withdrawalDelay;
    }

    receive() external payable {
        revert InvalidReceive();
    }

    fallback() external payable {
        revert InvalidFallback();
    }

    // ---------------------------------------------------------------- registration and stake

    function registerAndStake() external payable {
        _registerAndStake(msg.sender);
    }

    /// @notice Owner registers and stakes on behalf of `provider`.
    function delegateRegisterAndStake(address provider) external payable onlyOwner {
        _registerAndStake(provider);
    }

    function stake() external payable {
        _stake(msg.sender);
    }

    function delegateStake(address provider) external payable {
        _stake(provider);
    }

    /// @notice Starts the withdrawal delay; the provider is invalid from now on.
    function unstake() external {
        if (providerStakes[msg.sender] == 0) revert NoStakeToWithdraw(msg.sender);
        if (withdrawalRequests[msg.sender] != 0) revert UnstakeRequestExists(msg.sender);
        uint256 nowMs = FeePayout.nowMs();
        withdrawalRequests[msg.sender] = nowMs;
        emit Unstake(msg.sender, nowMs);
    }

    /// @notice Pays out the whole stake once the delay has passed and no opened commitment is unsettled.
    function withdraw() external nonReentrant {
        uint256 requestedAt = withdrawalRequests[msg.sender];
        if (requestedAt == 0) revert NoUnstakeRequest(msg.sender);
        uint256 nowMs = FeePayout.nowMs();
        if (nowMs < requestedAt + withdrawalDelay) revert DelayNotPassed(requestedAt, withdrawalDelay, nowMs);
        uint256 amount = providerStakes[msg.sender];
        if (amount == 0) revert NoStakeToWithdraw(msg.sender);
        if (preconfManager == address(0)) revert PreconfManagerNotSet();
        uint256 pending = IPreconfManager(preconfManager).commitmentsCount(msg.sender);
        if (pending != 0) revert ProviderCommitmentsPending(msg.sender, pending);

        providerStakes[msg.sender] = 0;
        withdrawalRequests[msg.sender] = 0;
        providerRegistered[msg.sender] = false;
        (bool ok, ) = payable(msg.sender).call{value: amount}("");
        if (!ok) revert StakeTransferFailed(msg.sender, amount);
        emit Withdraw(msg.sender, amount);
    }

    /// @notice For each provider: registered, stake at least minStake, no pending unstake request and at least one
    ///         builder BLS key. Never reverts.
    function areProvidersValid(address[] calldata providers) external view returns (bool[] memory valid) {
        valid = new bool[](providers.length);
        for (uint256 i = 0; i < providers.length; ++i) {
            address p = providers[i];
            valid[i] = providerRegistered[p] && providerStakes[p] >= minStake && withdrawalRequests[p] == 0
                && eoaToBlsPubkeys[p].length != 0;
        }
    }

    /// @notice Reverts unless `provider` has at least minStake and no pending unstake request.
    function isProviderValid(address provider) external view {
        if (providerStakes[provider] < minStake) revert InsufficientStake(providerStakes[provider], minStake);
        if (withdrawalRequests[provider] != 0) revert PendingWithdrawalRequest(provider);
    }

    function getProviderStake(address provider) external view returns (uint256) {
        return providerStakes[provider];
    }

    // ---------------------------------------------------------------- slashing

    /// @notice Slashes `provider` for a broken commitment: the bidder gets `slashAmt`, the penalty fee
    ///         (feePercent of slashAmt) goes to the penalty fee tracker. If the stake is too small the bidder's
    ///         portion is paid first and the penalty takes what is left.
    function slash(uint256 slashAmt, address provider, address payable bidder)
        external
        nonReentrant
        onlyPreconfManager
    {
        uint256 penaltyFee = (slashAmt * feePercent) / ONE_HUNDRED_PERCENT;
        uint256 bidderPortion = slashAmt;
        uint256 providerStake = providerStakes[provider];

        if (providerStake < bidderPortion + penaltyFee) {
            emit InsufficientFundsToSlash(provider, providerStake, penaltyFee, bidderPortion);
            if (providerStake < bidderPortion) {
                bidderPortion = providerStake;
            }
            penaltyFee = providerStake - bidderPortion;
        }
        uint256 totalSlash = bidderPortion + penaltyFee;
        providerStakes[provider] = providerStake - totalSlash;

        FeePayout.accrue(penaltyFeeTracker, penaltyFee);

        if (bidderPortion != 0 && !EtherSend.trySend(bidder, bidderPortion)) {
            bidderSlashedAmount[bidder] += bidderPortion;
            emit TransferToBidderFailed(bidder, bidderPortion);
        }
        emit FundsSlashed(provider, totalSlash);
    }

    /// @notice Pulls slash compensation that could not be pushed to the bidder.
    function withdrawSlashedAmount() external nonReentrant {
        uint256 amount = bidderSlashedAmount[msg.sender];
        if (amount == 0) revert BidderAmountIsZero(msg.sender);
        bidderSlashedAmount[msg.sender] = 0;
        (bool ok, ) = payable(msg.sender).call{value: amount}("");
        if (!ok) revert BidderWithdrawalTransferFailed(msg.sender, amount);
        emit BidderWithdrawSlashedAmount(msg.sender, amount);
    }

    // ---------------------------------------------------------------- builder BLS keys

    /// @notice Adds a builder key proven by a BLS signature over keccak256(abi.encodePacked(msg.sender)).
    ///         Verification needs the mev-commit chain's precompile at 0xf0; on Anvil it always fails
    ///         (use the owner's `overrideAddBLSKey` there).
    function addVerifiedBLSKey(bytes calldata blsPublicKey, bytes calldata signature) external {
        if (!providerRegistered[msg.sender]) revert ProviderNotRegistered(msg.sender);
        if (blsPublicKey.length != 48) revert PublicKeyLengthInvalid(48, blsPublicKey.length);
        if (signature.length != 96) revert SignatureLengthInvalid(96, signature.length);
        bytes32 message = keccak256(abi.encodePacked(msg.sender));
        if (!verifySignature(blsPublicKey, message, signature)) revert BLSSignatureInvalid();
        _addBLSKey(msg.sender, blsPublicKey);
    }

    /// @notice Owner maps a builder key to `provider` without a proof; a key already mapped to anyone is refused.
    function overrideAddBLSKey(address provider, bytes calldata blsPublicKey) external onlyOwner {
        if (blsPublicKey.length != 48) revert InvalidBLSPublicKeyLength(blsPublicKey.length, 48);
        if (blockBuilderBLSKeyToAddress[blsPublicKey] != address(0)) revert BLSKeyAlreadyExists(blsPublicKey);
        _addBLSKey(provider, blsPublicKey);
    }

    /// @notice Owner removes `provider`'s builder key.
    function overrideRemoveBLSKey(address provider, bytes calldata blsPublicKey) external onlyOwner {
        if (blockBuilderBLSKeyToAddress[blsPublicKey] != provider || provider == address(0)) {
            revert BLSKeyDoesNotExist(blsPublicKey);
        }
        delete blockBuilderBLSKeyToAddress[blsPublicKey];
        _removeKey(provider, blsPublicKey);
        emit BLSKeyRemoved(provider, blsPublicKey);
    }

    /// @notice BLS verification through the precompile at 0xf0 (input: pubKey || message || signature;
    ///         success = call succeeded with non-empty output).
    function verifySignature(bytes calldata pubKey, bytes32 message, bytes calldata signature)
        public
        view
        returns (bool)
    {
        (bool ok, bytes memory out) = address(0xf0).staticcall(abi.encodePacked(pubKey, message, signature));
        return ok && out.length > 0;
    }

    function getEoaFromBLSKey(bytes calldata blsKey) external view returns (address) {
        return blockBuilderBLSKeyToAddress[blsKey];
    }

    function getBLSKeys(address provider) external view returns (bytes[] memory) {
        return eoaToBlsPubkeys[provider];
    }

    // ---------------------------------------------------------------- fees and admin

    function getAccumulatedPenaltyFee() external view returns (uint256) {
        return penaltyFeeTracker.accumulatedAmount;
    }

    function manuallyWithdrawPenaltyFee() external onlyOwner {
        FeePayout.transferToRecipient(penaltyFeeTracker);
    }

    function setMinStake(uint256 _minStake) external onlyOwner {
        minStake = _minStake;
        emit MinStakeUpdated(_minStake);
    }

    function setPreconfManager(address contractAddress) external onlyOwner {
        preconfManager = contractAddress;
        emit PreconfManagerUpdated(contractAddress);
    }

    function setNewFeePercent(uint256 newFeePercent) external onlyOwner {
        feePercent = newFeePercent;
        emit FeePercentUpdated(newFeePercent);
    }

    /// @param _withdrawalDelay delay in milliseconds
    function setWithdrawalDelay(uint256 _withdrawalDelay) external onlyOwner {
        withdrawalDelay = _withdrawalDelay;
        emit WithdrawalDelayUpdated(_withdrawalDelay);
    }

    function setNewPenaltyFeeRecipient(address newFeeRecipient) external onlyOwner {
        if (newFeeRecipient == address(0)) revert FeePayout.FeeRecipientIsZero();
        penaltyFeeTracker.recipient = newFeeRecipient;
        emit PenaltyFeeRecipientUpdated(newFeeRecipient);
    }

    /// @param _feePayoutPeriod period in milliseconds
    function setFeePayoutPeriod(uint256 _feePayoutPeriod) external onlyOwner {
        if (_feePayoutPeriod == 0) revert FeePayout.PayoutPeriodMustBePositive();
        penaltyFeeTracker.payoutTimePeriod = _feePayoutPeriod;
        emit FeePayoutPeriodUpdated(_feePayoutPeriod);
    }

    // ---------------------------------------------------------------- internals

    function _registerAndStake(address provider) internal {
        if (providerRegistered[provider]) revert ProviderAlreadyRegistered(provider);
        if (msg.value < minStake) revert InsufficientStake(msg.value, minStake);
        providerRegistered[provider] = true;
        providerStakes[provider] += msg.value;
        emit ProviderRegistered(provider, msg.value);
    }

    function _stake(address provider) internal {
        if (!providerRegistered[provider]) revert ProviderNotRegistered(provider);
        if (withdrawalRequests[provider] != 0) revert PendingWithdrawalRequest(provider);
        providerStakes[provider] += msg.value;
        emit FundsDeposited(provider, msg.value);
    }

    function _addBLSKey(address provider, bytes calldata blsPublicKey) internal {
        address previous = blockBuilderBLSKeyToAddress[blsPublicKey];
        if (previous != provider) {
            if (previous != address(0)) _removeKey(previous, blsPublicKey);
            blockBuilderBLSKeyToAddress[blsPublicKey] = provider;
            eoaToBlsPubkeys[provider].push(blsPublicKey);
        }
        emit BLSKeyAdded(provider, blsPublicKey);
    }

    function _removeKey(address provider, bytes calldata blsPublicKey) internal {
        bytes[] storage keys = eoaToBlsPubkeys[provider];
        bytes32 h = keccak256(blsPublicKey);
        for (uint256 i = 0; i < keys.length; ++i) {
            if (keccak256(keys[i]) == h) {
                keys[i] = keys[keys.length - 1];
                keys.pop();
                return;
            }
        }
    }
}
