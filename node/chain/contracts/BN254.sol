// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

/// @title BN254
/// @notice G1 addition and scalar multiplication through the EIP-196 precompiles (0x06, 0x07).
library BN254 {
    error BN128AddFailed();
    error BN128MulFailed();

    function ecAdd(uint256 x1, uint256 y1, uint256 x2, uint256 y2) internal view returns (uint256 x, uint256 y) {
        bool ok;
        assembly ("memory-safe") {
            let p := mload(0x40)
            mstore(p, x1)
            mstore(add(p, 0x20), y1)
            mstore(add(p, 0x40), x2)
            mstore(add(p, 0x60), y2)
            ok := staticcall(gas(), 0x06, p, 0x80, p, 0x40)
            x := mload(p)
            y := mload(add(p, 0x20))
        }
        if (!ok) revert BN128AddFailed();
    }

    function ecMul(uint256 px, uint256 py, uint256 s) internal view returns (uint256 x, uint256 y) {
        bool ok;
        assembly ("memory-safe") {
            let p := mload(0x40)
            mstore(p, px)
            mstore(add(p, 0x20), py)
            mstore(add(p, 0x40), s)
            ok := staticcall(gas(), 0x07, p, 0x60, p, 0x40)
            x := mload(p)
            y := mload(add(p, 0x20))
        }
        if (!ok) revert BN128MulFailed();
    }
}
