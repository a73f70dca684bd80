// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

/// @title WindowFromBlockNumber
/// @notice Deposit windows of 10 L1 blocks: window(b) = (b - 1) / 10 + 1, so window w spans blocks
///         (w - 1) * 10 + 1 ... w * 10. Block 0 has no window (the subtraction underflows and reverts).
library WindowFromBlockNumber {
    uint256 internal constant BLOCKS_PER_WINDOW = 10;

    function getWindowFromBlockNumber(uint256 blockNumber) internal pure returns (uint256) {
        return (blockNumber - 1) / BLOCKS_PER_WINDOW + 1;
    }

    /// @return first and last L1 block of `window`.
    function getBlockNumbersFromWindow(uint256 window) internal pure returns (uint256, uint256) {
        uint256 first = (window - 1) * BLOCKS_PER_WINDOW + 1;
        return (first, first + BLOCKS_PER_WINDOW - 1);
    }
}
