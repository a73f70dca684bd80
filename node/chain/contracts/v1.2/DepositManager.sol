// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

import {IBidderDeposits} from "./Interfaces.sol";

/// @title DepositManager (protocol v1.2)
/// @notice EIP-7702 delegate for bidder EOAs: the EOA sets a target deposit per provider, and anyone (BidderRegistry
///         on every opened bid) may top a deposit up to its target from the EOA's own ether above MIN_BALANCE.
/// @dev Runs in the EOA's context: `address(this)` is the bidder and the state below lives in the EOA's storage
///      (targetDeposits is the mapping at slot 0, kept when the delegation is cleared and set again). No other
///      storage variable may be added before it.
contract DepositManager {
    /// @notice provider => target deposit (wei), in the EOA's storage.
    mapping(address => uint256) public targetDeposits;

    address public immutable BIDDER_REGISTRY;
    /// @notice Ether the EOA always keeps (top-ups never take it below this).
    uint256 public immutable MIN_BALANCE;

    event TargetDepositSet(address indexed provider, uint256 amount);
    event DepositToppedUp(address indexed provider, uint256 amount);
    event TopUpReduced(address indexed provider, uint256 available, uint256 needed);
    event CurrentDepositIsSufficient(address indexed provider, uint256 currentDeposit, uint256 targetDeposit);
    event CurrentBalanceAtOrBelowMin(address indexed provider, uint256 currentBalance, uint256 minBalance);
    event TargetDepositDoesNotExist(address indexed provider);
    event WithdrawalRequestExists(address indexed provider);

    error NotThisEOA(address msgSender, address thisAddress);
    error InvalidFallback();
    error ArrayLengthMismatch(uint256 providers, uint256 amounts);

    modifier onlyThisEOA() {
        if (msg.sender != address(this)) revert NotThisEOA(msg.sender, address(this));
        _;
    }

    constructor(address bidderRegistry, uint256 minBalance) {
        BIDDER_REGISTRY = bidderRegistry;
        MIN_BALANCE = minBalance;
    }

    receive() external payable {}

    fallback() external payable {
        revert InvalidFallback();
    }

    function setTargetDeposits(address[] calldata providers, uint256[] calldata amounts) external onlyThisEOA {
        if (providers.length != amounts.length) revert ArrayLengthMismatch(providers.length, amounts.length);
        for (uint256 i = 0; i < providers.length; ++i) {
            _setTarget(providers[i], amounts[i]);
        }
    }

    function setTargetDeposit(address provider, uint256 amount) external onlyThisEOA {
        _setTarget(provider, amount);
    }

    function topUpDeposits(address[] calldata providers) external {
        for (uint256 i = 0; i < providers.length; ++i) {
            _topUp(providers[i]);
        }
    }

    function topUpDeposit(address provider) external {
        _topUp(provider);
    }

    function _setTarget(address provider, uint256 amount) internal {
        targetDeposits[provider] = amount;
        emit TargetDepositSet(provider, amount);
    }

    /// @dev Each rule that stops a top-up says why with an event instead of reverting, so a top-up inside
    ///      BidderRegistry.openBid never fails the open.
    function _topUp(address provider) internal {
        IBidderDeposits registry = IBidderDeposits(BIDDER_REGISTRY);
        if (registry.withdrawalRequestExists(address(this), provider)) {
            emit WithdrawalRequestExists(provider);
            return;
        }
        uint256 target = targetDeposits[provider];
        if (target == 0) {
            emit TargetDepositDoesNotExist(provider);
            return;
        }
        uint256 current = registry.getDeposit(address(this), provider);
        if (current >= target) {
            emit CurrentDepositIsSufficient(provider, current, target);
            return;
        }
        uint256 balance = address(this).balance;
        if (balance <= MIN_BALANCE) {
            emit CurrentBalanceAtOrBelowMin(provider, balance, MIN_BALANCE);
            return;
        }
        uint256 needed = target - current;
        uint256 available = balance - MIN_BALANCE;
        if (available < needed) {
            emit TopUpReduced(provider, available, needed);
            needed = available;
        }
        registry.depositAsBidder{value: needed}(provider);
        emit DepositToppedUp(provider, needed);
    }
}
