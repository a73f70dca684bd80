// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

import {Owned} from "../Owned.sol";
import {IPreconfManager, IBlockTracker} from "./Interfaces.sol";

/// @title Oracle (protocol v1.2)
/// @notice Gate through which the oracle service settles opened commitments. It checks that the builder it
///         names won the L1 block and that the residual is at most 100 %; it does not decide reward vs slash.
contract Oracle is Owned {
    uint256 internal constant ONE_HUNDRED_PERCENT = 1e18;

    address public oracleAccount;
    address public preconfManager;
    address public blockTracker;

    event CommitmentProcessed(bytes32 indexed commitmentIndex, bool isSlash);
    event OracleAccountSet(address indexed oldOracleAccount, address indexed newOracleAccount);
    event PreconfManagerSet(address indexed newPreconfManager);
    event BlockTrackerSet(address indexed newBlockTracker);

    error NotOracleAccount(address sender, address oracleAccount);
    error BuilderNotBlockWinner(address blockWinner, address builder);
    error ResidualBidPercentAfterDecayExceedsMax(uint256 residualBidPercentAfterDecay);
    error InvalidReceive();
    error InvalidFallback();

    modifier onlyOracle() {
        if (msg.sender != oracleAccount) revert NotOracleAccount(msg.sender, oracleAccount);
        _;
    }

    constructor(address preconfManager_, address blockTrackerContract_, address oracleAccount_, address owner_)
        Owned(owner_)
    {
        preconfManager = preconfManager_;
        blockTracker = blockTrackerContract_;
        oracleAccount = oracleAccount_;
        emit PreconfManagerSet(preconfManager_);
        emit BlockTrackerSet(blockTrackerContract_);
        emit OracleAccountSet(address(0), oracleAccount_);
    }

    receive() external payable {
        revert InvalidReceive();
    }

    fallback() external payable {
        revert InvalidFallback();
    }

    /// @notice Settles commitment `commitmentIndex` for L1 block `blockNumber` built by `builder`. Silently does
    ///         nothing unless the commitment's committer is `builder` and its block is `blockNumber`.
    function processBuilderCommitmentForBlockNumber(
        bytes32 commitmentIndex,
        uint256 blockNumber,
        address builder,
        bool isSlash,
        uint256 residualBidPercentAfterDecay
    ) external onlyOracle {
        address winner = IBlockTracker(blockTracker).getBlockWinner(blockNumber);
        if (winner != builder) revert BuilderNotBlockWinner(winner, builder);
        if (residualBidPercentAfterDecay > ONE_HUNDRED_PERCENT) {
            revert ResidualBidPercentAfterDecayExceedsMax(residualBidPercentAfterDecay);
        }
        IPreconfManager.OpenedCommitment memory c = IPreconfManager(preconfManager).getCommitment(commitmentIndex);
        if (c.committer == builder && c.blockNumber == blockNumber) {
            if (isSlash) {
                IPreconfManager(preconfManager).initiateSlash(commitmentIndex);
            } else {
                IPreconfManager(preconfManager).initiateReward(commitmentIndex, residualBidPercentAfterDecay);
            }
            emit CommitmentProcessed(commitmentIndex, isSlash);
        }
    }

    function setPreconfManager(address newPreconfManager) external onlyOwner {
        preconfManager = newPreconfManager;
        emit PreconfManagerSet(newPreconfManager);
    }

    function setBlockTracker(address newBlockTracker) external onlyOwner {
        blockTracker = newBlockTracker;
        emit BlockTrackerSet(newBlockTracker);
    }

    function setOracleAccount(address newOracleAccount) external onlyOwner {
        emit OracleAccountSet(oracleAccount, newOracleAccount);
        oracleAccount = newOracleAccount;
    }
}
