// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

/// @title EtherSend
/// @notice `address.send` semantics without the deprecated builtin: a value transfer that gives the recipient
///         only the 2300 gas stipend and returns false instead of reverting. Used for pushes to bidders where
///         a failure must not block settlement (the amount is then kept for a later pull).
library EtherSend {
    function trySend(address to, uint256 amount) internal returns (bool ok) {
        assembly ("memory-safe") {
            ok := call(0, to, amount, 0, 0, 0, 0)
        }
    }
}
