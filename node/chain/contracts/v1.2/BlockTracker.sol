// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

import {Owned} from "../Owned.sol";
import {IProviderRegistry} from "./Interfaces.sol";

/// @title BlockTracker (protocol v1.2)
/// @notice Records the winning provider of each L1 block, resolved from the block builder's BLS key through
///         ProviderRegistry. v1.2 has no deposit windows.
contract BlockTracker is Owned {
    /// @notice The only account allowed to record L1 blocks.
    address public oracleAccount;
    /// @notice Registry used to map a builder BLS key to the provider's address.
    address public providerRegistry;
    /// @notice L1 block number => winning provider (address(0) if none / unknown builder).
    mapping(uint256 => address) public blockWinners;
    /// @notice Vestigial builder name => address map, kept for the oracle's register endpoint.
    mapping(string => address) public blockBuilderNameToAddress;

    event NewL1Block(uint256 indexed blockNumber, address indexed winner);
    event BuilderAddressAdded(string indexed builderName, address indexed builderAddress);
    event OracleAccountSet(address indexed oldOracleAccount, address indexed newOracleAccount);
    event ProviderRegistrySet(address indexed oldProviderRegistry, address indexed newProviderRegistry);

    error NotOracleAccount(address sender, address oracleAccount);
    error BlockNumberIsZero();
    error InvalidReceive();
    error InvalidFallback();

    modifier onlyOracle() {
        if (msg.sender != oracleAccount) revert NotOracleAccount(msg.sender, oracleAccount);
        _;
    }

    constructor(address oracleAccount_, address owner_) Owned(owner_) {
        oracleAccount = oracleAccount_;
        emit OracleAccountSet(address(0), oracleAccount_);
    }

    receive() external payable {
        revert InvalidReceive();
    }

    fallback() external payable {
        revert InvalidFallback();
    }

    /// @notice Records the winner of L1 block `blockNumber`, identified by the builder's BLS public key
    ///         (empty for a block not built through a relay: winner address(0)).
    function recordL1Block(uint256 blockNumber, bytes calldata winnerBLSKey) external onlyOracle {
        if (blockNumber == 0) revert BlockNumberIsZero();
        address winner = address(0);
        if (winnerBLSKey.length != 0 && providerRegistry != address(0)) {
            winner = IProviderRegistry(providerRegistry).getEoaFromBLSKey(winnerBLSKey);
        }
        blockWinners[blockNumber] = winner;
        emit NewL1Block(blockNumber, winner);
    }

    function getBlockWinner(uint256 blockNumber) external view returns (address) {
        return blockWinners[blockNumber];
    }

    /// @notice Builder name map (not used for winner resolution). Callable by the owner or the oracle account.
    function addBuilderAddress(string calldata builderName, address builderAddress) external {
        if (msg.sender != owner() && msg.sender != oracleAccount) revert OwnableUnauthorizedAccount(msg.sender);
        blockBuilderNameToAddress[builderName] = builderAddress;
        emit BuilderAddressAdded(builderName, builderAddress);
    }

    function getBuilder(string calldata builderName) external view returns (address) {
        return blockBuilderNameToAddress[builderName];
    }

    function setProviderRegistry(address newProviderRegistry) external onlyOwner {
        emit ProviderRegistrySet(providerRegistry, newProviderRegistry);
        providerRegistry = newProviderRegistry;
    }

    function setOracleAccount(address newOracleAccount) external onlyOwner {
        emit OracleAccountSet(oracleAccount, newOracleAccount);
        oracleAccount = newOracleAccount;
    }
}
