// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

/// @notice Cross-contract views of the v1.2 core contracts (only what the contracts call on each other).

interface IBlockTracker {
    function getBlockWinner(uint256 blockNumber) external view returns (address);
}

interface IProviderRegistry {
    function isProviderValid(address provider) external view;
    function getEoaFromBLSKey(bytes calldata blsKey) external view returns (address);
    function slash(uint256 slashAmt, address provider, address payable bidder) external;
}

interface IBidderRegistry {
    function openBid(bytes32 commitmentDigest, uint256 bidAmt, address bidder, address provider)
        external
        returns (uint256);
    function convertFundsToProviderReward(
        bytes32 commitmentDigest,
        address payable provider,
        uint256 residualBidPercentAfterDecay
    ) external;
    function unlockFunds(address provider, bytes32 commitmentDigest) external;
}

/// @notice What the deposit manager (running as the bidder EOA's delegate) needs from BidderRegistry.
interface IBidderDeposits {
    function depositAsBidder(address provider) external payable;
    function getDeposit(address bidder, address provider) external view returns (uint256);
    function withdrawalRequestExists(address bidder, address provider) external view returns (bool);
}

/// @notice The top-up entry point BidderRegistry calls on a bidder EOA delegated to the DepositManager.
interface IDepositManager {
    function topUpDeposit(address provider) external;
}

interface IPreconfManager {
    /// @dev Field order is part of the ABI (tuple layout of getCommitment / openedCommitments).
    struct OpenedCommitment {
        address bidder;
        bool isSettled;
        uint64 blockNumber;
        uint64 decayStartTimeStamp;
        uint64 decayEndTimeStamp;
        uint64 dispatchTimestamp;
        address committer;
        uint256 bidAmt;
        uint256 slashAmt;
        bytes32 commitmentDigest;
        bytes commitmentSignature;
        string txnHash;
        string revertingTxHashes;
        bytes bidOptions;
    }

    struct UnopenedCommitment {
        bool isOpened;
        address committer;
        uint64 dispatchTimestamp;
        bytes32 commitmentDigest;
        bytes commitmentSignature;
    }

    struct OpenCommitmentParams {
        bytes32 unopenedCommitmentIndex;
        uint256 bidAmt;
        uint256 slashAmt;
        uint64 blockNumber;
        uint64 decayStartTimeStamp;
        uint64 decayEndTimeStamp;
        string txnHash;
        string revertingTxHashes;
        bytes bidSignature;
        uint256[] zkProof;
        bytes bidOptions;
    }

    struct CommitmentParams {
        string txnHash;
        string revertingTxHashes;
        uint256 bidAmt;
        uint256 slashAmt;
        uint64 blockNumber;
        uint64 decayStartTimeStamp;
        uint64 decayEndTimeStamp;
        bytes32 bidHash;
        bytes bidSignature;
        bytes commitmentSignature;
        uint256[] zkProof;
    }

    function commitmentsCount(address committer) external view returns (uint256);
    function getCommitment(bytes32 commitmentIndex) external view returns (OpenedCommitment memory);
    function initiateReward(bytes32 commitmentIndex, uint256 residualBidPercentAfterDecay) external;
    function initiateSlash(bytes32 commitmentIndex) external;
}
