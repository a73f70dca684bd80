// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

/// @title ECDSA
/// @notice secp256k1 signature recovery with the same acceptance rules as the upstream contracts:
///         exactly 65 bytes `r || s || v`, `v` in {27, 28}, `s` in the lower half of the curve order,
///         and a non-zero recovered address. The hash is recovered as is (no "\x19Ethereum Signed Message" prefix).
library ECDSA {
    /// @dev secp256k1n / 2
    uint256 internal constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    error ECDSAInvalidSignature();
    error ECDSAInvalidSignatureLength(uint256 length);
    error ECDSAInvalidSignatureS(bytes32 s);

    function recover(bytes32 hash, bytes memory signature) internal pure returns (address signer) {
        if (signature.length != 65) revert ECDSAInvalidSignatureLength(signature.length);
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly ("memory-safe") {
            r := mload(add(signature, 0x20))
            s := mload(add(signature, 0x40))
            v := byte(0, mload(add(signature, 0x60)))
        }
        if (uint256(s) > HALF_ORDER) revert ECDSAInvalidSignatureS(s);
        if (v != 27 && v != 28) revert ECDSAInvalidSignature();
        signer = ecrecover(hash, v, r, s);
        if (signer == address(0)) revert ECDSAInvalidSignature();
    }

    /// @dev keccak256("\x19\x01" || domainSeparator || structHash)
    function toTypedDataHash(bytes32 domainSeparator, bytes32 structHash) internal pure returns (bytes32 digest) {
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, hex"1901")
            mstore(add(ptr, 0x02), domainSeparator)
            mstore(add(ptr, 0x22), structHash)
            digest := keccak256(ptr, 0x42)
        }
    }
}
