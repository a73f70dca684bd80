// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

/// @title FeePayout
/// @notice Accumulates a fee (protocol fee in BidderRegistry, penalty fee in ProviderRegistry) and pays the
///         whole accumulated amount to the recipient once `payoutTimePeriod` has elapsed since the last payout.
/// @dev Times are Unix milliseconds, like upstream's parameters; block.timestamp (seconds on Anvil) is
///      converted with `nowMs()`.
library FeePayout {
    struct Tracker {
        address recipient;
        uint256 accumulatedAmount;
        uint256 lastPayoutTimestamp; // ms
        uint256 payoutTimePeriod; // ms
    }

    event FeeTransfer(uint256 amount, address indexed recipient);

    error FeeRecipientIsZero();
    error PayoutPeriodMustBePositive();
    error TransferToRecipientFailed();

    function nowMs() internal view returns (uint256) {
        return block.timestamp * 1000;
    }

    function init(Tracker storage tracker, address recipient, uint256 payoutTimePeriod) internal {
        if (recipient == address(0)) revert FeeRecipientIsZero();
        if (payoutTimePeriod == 0) revert PayoutPeriodMustBePositive();
        tracker.recipient = recipient;
        tracker.payoutTimePeriod = payoutTimePeriod;
        tracker.lastPayoutTimestamp = nowMs();
    }

    /// @notice Adds `amount` and pays out if the period has elapsed.
    function accrue(Tracker storage tracker, uint256 amount) internal {
        tracker.accumulatedAmount += amount;
        if (nowMs() > tracker.lastPayoutTimestamp + tracker.payoutTimePeriod) {
            transferToRecipient(tracker);
        }
    }

    function transferToRecipient(Tracker storage tracker) internal {
        uint256 amount = tracker.accumulatedAmount;
        address recipient = tracker.recipient;
        tracker.accumulatedAmount = 0;
        tracker.lastPayoutTimestamp = nowMs();
        (bool ok, ) = payable(recipient).call{value: amount}("");
        if (!ok) revert TransferToRecipientFailed();
        emit FeeTransfer(amount, recipient);
    }
}
