// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

/// @title ReentrancyGuard
/// @notice One-slot mutex for functions that move ether out with a full-gas call.
abstract contract ReentrancyGuard {
    uint256 private _entered = 1;

    error ReentrancyGuardReentrantCall();

    modifier nonReentrant() {
        if (_entered == 2) revert ReentrancyGuardReentrantCall();
        _entered = 2;
        _;
        _entered = 1;
    }
}
