// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

import {Owned} from "./Owned.sol";

/// @title ValidatorOptInRouter
/// @notice The devnet's validator opt-in registry, deployed on the L1 chain. It answers upstream's router query
///         `areValidatorsOptedIn(bytes[])` with upstream's `OptInStatus` tuple, and it is its own "vanilla"
///         registry: validators opt in and out by 48-byte BLS public key, with no stake.
///
///         Rules:
///         - anyone may opt in keys that are not opted in yet; the sender becomes the key's opt-in account;
///         - a key is opted out by its opt-in account, or by the owner;
///         - the EigenLayer AVS and Symbiotic middleware paths of upstream do not exist here: their addresses are
///           zero and their flags are always false.
contract ValidatorOptInRouter is Owned {
    /// @notice Length of a compressed BLS12-381 G1 public key.
    uint256 public constant BLS_PUBKEY_LENGTH = 48;

    /// @notice Upstream's EigenLayer AVS and Symbiotic middleware registries: absent on the devnet.
    address public constant mevCommitAVS = address(0);
    address public constant mevCommitMiddleware = address(0);

    /// @notice Upstream's per-key answer. Only `isVanillaOptedIn` can be true here.
    struct OptInStatus {
        bool isVanillaOptedIn;
        bool isAvsOptedIn;
        bool isMiddlewareOptedIn;
    }

    /// @dev keccak256(BLS key) => the account that opted the key in (zero: not opted in).
    mapping(bytes32 => address) private _optInAccount;
    /// @notice Number of keys opted in right now.
    uint256 public optedInCount;

    event ValidatorOptedIn(address indexed optInAccount, bytes valBLSPubKey);
    event ValidatorOptedOut(address indexed optInAccount, bytes valBLSPubKey, address indexed sender);

    error InvalidBLSPubKeyLength(uint256 expected, uint256 actual);
    error ValidatorAlreadyOptedIn(bytes valBLSPubKey);
    error ValidatorNotOptedIn(bytes valBLSPubKey);
    error SenderIsNotOptInAccount(address sender, address optInAccount);
    error InvalidReceive();
    error InvalidFallback();

    constructor(address owner_) Owned(owner_) {}

    receive() external payable {
        revert InvalidReceive();
    }

    fallback() external payable {
        revert InvalidFallback();
    }

    /// @notice Opts every key in, with the sender as opt-in account. Reverts (nothing changes) if a key is not
    ///         48 bytes long or is already opted in.
    function optIn(bytes[] calldata valBLSPubKeys) external {
        for (uint256 i = 0; i < valBLSPubKeys.length; i++) {
            bytes calldata key = valBLSPubKeys[i];
            if (key.length != BLS_PUBKEY_LENGTH) revert InvalidBLSPubKeyLength(BLS_PUBKEY_LENGTH, key.length);
            bytes32 id = keccak256(key);
            if (_optInAccount[id] != address(0)) revert ValidatorAlreadyOptedIn(key);
            _optInAccount[id] = msg.sender;
            emit ValidatorOptedIn(msg.sender, key);
        }
        optedInCount += valBLSPubKeys.length;
    }

    /// @notice Opts every key out. Each key must be opted in, and the sender must be its opt-in account or the
    ///         owner; otherwise the call reverts and nothing changes.
    function optOut(bytes[] calldata valBLSPubKeys) external {
        address admin = owner();
        for (uint256 i = 0; i < valBLSPubKeys.length; i++) {
            bytes calldata key = valBLSPubKeys[i];
            bytes32 id = keccak256(key);
            address account = _optInAccount[id];
            if (account == address(0)) revert ValidatorNotOptedIn(key);
            if (msg.sender != account && msg.sender != admin) revert SenderIsNotOptInAccount(msg.sender, account);
            delete _optInAccount[id];
            emit ValidatorOptedOut(account, key, msg.sender);
        }
        optedInCount -= valBLSPubKeys.length;
    }

    /// @notice Whether one key is opted in (false for a key of the wrong length).
    function isValidatorOptedIn(bytes calldata valBLSPubKey) public view returns (bool) {
        return _optInAccount[keccak256(valBLSPubKey)] != address(0);
    }

    /// @notice The account that opted `valBLSPubKey` in (zero if it is not opted in).
    function getOptInAccount(bytes calldata valBLSPubKey) external view returns (address) {
        return _optInAccount[keccak256(valBLSPubKey)];
    }

    /// @notice Upstream's query: one status per key, in the order given. Never reverts on a bad key.
    function areValidatorsOptedIn(bytes[] calldata valBLSPubKeys) external view returns (OptInStatus[] memory) {
        OptInStatus[] memory statuses = new OptInStatus[](valBLSPubKeys.length);
        for (uint256 i = 0; i < valBLSPubKeys.length; i++) {
            statuses[i] = OptInStatus(isValidatorOptedIn(valBLSPubKeys[i]), false, false);
        }
        return statuses;
    }

    /// @notice Upstream's vanilla registry address: this contract, which keeps the opt-ins itself.
    function vanillaRegistry() external view returns (address) {
        return address(this);
    }
}
