// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

/// @title Owned
/// @notice Minimal single-owner access control (no two-step transfer, no pause). The error and event
///         names follow the upstream ABI (OpenZeppelin Ownable) so clients decode them the same way.
abstract contract Owned {
    address private _owner;

    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error OwnableUnauthorizedAccount(address account);
    error OwnableInvalidOwner(address owner);

    constructor(address initialOwner) {
        if (initialOwner == address(0)) revert OwnableInvalidOwner(address(0));
        _owner = initialOwner;
        emit OwnershipTransferred(address(0), initialOwner);
    }

    modifier onlyOwner() {
        if (msg.sender != _owner) revert OwnableUnauthorizedAccount(msg.sender);
        _;
    }

    function owner() public view returns (address) {
        return _owner;
    }

    /// @notice Hands the contract to `newOwner` at once (upstream uses a two-step transfer).
    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert OwnableInvalidOwner(address(0));
        address previous = _owner;
        _owner = newOwner;
        emit OwnershipTransferred(previous, newOwner);
    }
}
