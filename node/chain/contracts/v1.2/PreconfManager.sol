// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

import {Owned} from "../Owned.sol";
import {ECDSA} from "../ECDSA.sol";
import {BN254} from "../BN254.sol";
import {IPreconfManager, IProviderRegistry, IBidderRegistry, IBlockTracker} from "./Interfaces.sol";

/// @title PreconfManager (protocol v1.2)
/// @notice Two-phase preconfirmation commitments. Phase 1 (`storeUnopenedCommitment`): a staked provider posts
///         only the commitment digest, its signature and the dispatch time. Phase 2 (`openCommitment`): once the
///         L1 block winner is known, the winner (with a ZK proof of its shared key) or the bidder reveals the bid;
///         the bid is escrowed from the bidder's deposit toward the committer in BidderRegistry. A bid carries
///         opaque `bidOptions` bytes, covered by the bid digest and stored with the commitment. The Oracle
///         contract later settles it (reward or slash).
/// @dev Digests use upstream's NON-standard EIP-712 domain separator: name and version are ABI-encoded as dynamic
///      strings instead of being hashed. Dispatch timestamps are Unix ms; block.timestamp is converted (* 1000).
contract PreconfManager is IPreconfManager, Owned {
    bytes32 public constant EIP712_COMMITMENT_TYPEHASH =
        keccak256("OpenedCommitment(bytes32 bidHash,string signature,uint256 sharedKeyX,uint256 sharedKeyY)");

    bytes32 public constant EIP712_BID_TYPEHASH = keccak256(
        "PreConfBid(string txnHash,string revertingTxHashes,uint256 bidAmt,uint64 blockNumber,uint64 decayStartTimeStamp,uint64 decayEndTimeStamp,uint256 slashAmt,uint256 bidderPKx,uint256 bidderPKy,bytes bidOptions)"
    );

    bytes32 internal constant _DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    bytes public constant HEXCHARS = "0123456789abcdef";

    uint256 private constant _GX = 1;
    uint256 private constant _GY = 2;
    uint256 private constant _MASK_253 = (1 << 253) - 1;

    bytes32 public domainSeparatorPreconf;
    bytes32 public domainSeparatorBid;
    /// @notice keccak256("mev-commit opening " + decimal chain id), bound into the ZK proof challenge.
    bytes32 public zkContextHash;
    /// @notice How far (ms) a dispatch timestamp may lie before the block time of the store transaction.
    uint64 public commitmentDispatchWindow;

    address public providerRegistry;
    address public bidderRegistry;
    address public oracleContract;
    address public blockTracker;

    mapping(bytes32 => OpenedCommitment) public openedCommitments;
    mapping(bytes32 => UnopenedCommitment) public unopenedCommitments;
    /// @notice Opened but not yet settled commitments per committer.
    mapping(address => uint256) public commitmentsCount;
    /// @notice keccak256(abi.encode(txnHash, bidder, blockNumber)) => already opened.
    mapping(bytes32 => bool) public processedTxnHashes;

    event UnopenedCommitmentStored(
        bytes32 indexed commitmentIndex,
        address committer,
        bytes32 commitmentDigest,
        bytes commitmentSignature,
        uint64 dispatchTimestamp
    );
    event OpenedCommitmentStored(
        bytes32 indexed commitmentIndex,
        address bidder,
        address committer,
        uint256 bidAmt,
        uint256 slashAmt,
        uint64 blockNumber,
        uint64 decayStartTimeStamp,
        uint64 decayEndTimeStamp,
        string txnHash,
        string revertingTxHashes,
        bytes32 commitmentDigest,
        uint64 dispatchTimestamp,
        bytes bidOptions
    );
    /// @dev Declared for ABI compatibility; never emitted (as upstream).
    event SignatureVerified(
        address indexed signer,
        string txnHash,
        string revertingTxHashes,
        uint256 indexed bidAmt,
        uint64 blockNumber
    );
    event CommitmentDispatchWindowUpdated(uint64 newDispatchWindow);
    event OracleContractUpdated(address indexed newOracleContract);
    event ProviderRegistryUpdated(address indexed newProviderRegistry);
    event BidderRegistryUpdated(address indexed newBidderRegistry);
    event BlockTrackerUpdated(address indexed newBlockTracker);

    error InvalidDispatchTimestamp(uint256 minTime, uint64 dispatchTimestamp);
    error SenderIsNotCommitter(address expected, address actual);
    error UnopenedCommitmentAlreadyExists(bytes32 commitmentIndex);
    error InvalidDecayTime(uint64 startTime, uint64 endTime);
    error TxnHashAlreadyProcessed(string txnHash, address bidderAddress);
    error CommitmentAlreadyOpened(bytes32 commitmentIndex);
    error InvalidCommitmentDigest(bytes32 commitmentDigest, bytes32 computedDigest);
    error WinnerIsNotCommitter(address committer, address winner);
    error ProviderZKProofInvalid(address sender, bytes32 commitmentDigest);
    error UnauthorizedOpenCommitment(address committer, address bidder, address sender);
    error SenderIsNotOracleContract(address sender, address oracleContract);
    error CommitmentAlreadySettled(bytes32 commitmentIndex);
    error InvalidReceive();
    error InvalidFallback();

    modifier onlyOracleContract() {
        if (msg.sender != oracleContract) revert SenderIsNotOracleContract(msg.sender, oracleContract);
        _;
    }

    constructor(
        address _providerRegistry,
        address _bidderRegistry,
        address _oracleContract,
        address _owner,
        address _blockTracker,
        uint64 _commitmentDispatchWindow
    ) Owned(_owner) {
        providerRegistry = _providerRegistry;
        bidderRegistry = _bidderRegistry;
        oracleContract = _oracleContract;
        blockTracker = _blockTracker;
        commitmentDispatchWindow = _commitmentDispatchWindow;
        domainSeparatorBid = _domainSeparator("PreConfBid");
        domainSeparatorPreconf = _domainSeparator("OpenedCommitment");
        zkContextHash = keccak256(abi.encodePacked("mev-commit opening ", _toDecimal(block.chainid)));
    }

    receive() external payable {
        revert InvalidReceive();
    }

    fallback() external payable {
        revert InvalidFallback();
    }

    // ---------------------------------------------------------------- phase 1

    /// @notice Stores a provider's signed commitment digest. The sender must be the signer and a valid provider.
    function storeUnopenedCommitment(
        bytes32 commitmentDigest,
        bytes calldata commitmentSignature,
        uint64 dispatchTimestamp
    ) external returns (bytes32 commitmentIndex) {
        uint256 nowMs = block.timestamp * 1000;
        uint256 minTime = nowMs > commitmentDispatchWindow ? nowMs - commitmentDispatchWindow : 0;
        if (dispatchTimestamp <= minTime) revert InvalidDispatchTimestamp(minTime, dispatchTimestamp);

        address committer = ECDSA.recover(commitmentDigest, commitmentSignature);
        if (committer != msg.sender) revert SenderIsNotCommitter(committer, msg.sender);

        IProviderRegistry(providerRegistry).isProviderValid(committer);

        commitmentIndex = keccak256(abi.encodePacked(commitmentDigest, commitmentSignature));
        UnopenedCommitment storage stored = unopenedCommitments[commitmentIndex];
        if (stored.committer != address(0)) revert UnopenedCommitmentAlreadyExists(commitmentIndex);
        stored.committer = committer;
        stored.dispatchTimestamp = dispatchTimestamp;
        stored.commitmentDigest = commitmentDigest;
        stored.commitmentSignature = commitmentSignature;

        emit UnopenedCommitmentStored(
            commitmentIndex, committer, commitmentDigest, commitmentSignature, dispatchTimestamp
        );
    }

    // ---------------------------------------------------------------- phase 2

    /// @notice Reveals the bid behind an unopened commitment. Allowed to the L1 block winner (who must also
    ///         prove knowledge of its NIKE key with the ZK proof) or to the bidder (zero proof accepted).
    function openCommitment(OpenCommitmentParams calldata params) external returns (bytes32 commitmentIndex) {
        // (1) decay interval
        if (params.decayStartTimeStamp >= params.decayEndTimeStamp) {
            revert InvalidDecayTime(params.decayStartTimeStamp, params.decayEndTimeStamp);
        }
        // (2) bid digest and bidder
        (bytes32 bidHash, address bidder) = verifyBid(params);
        // (3) replay guard
        bytes32 replayKey = keccak256(abi.encode(params.txnHash, bidder, params.blockNumber));
        if (processedTxnHashes[replayKey]) revert TxnHashAlreadyProcessed(params.txnHash, bidder);
        processedTxnHashes[replayKey] = true;
        // (4) commitment digest
        bytes32 commitmentDigest = getPreConfHash(bidHash, params.bidSignature, params.zkProof);
        // (5) the unopened record must match
        UnopenedCommitment storage unopened = unopenedCommitments[params.unopenedCommitmentIndex];
        if (unopened.isOpened) revert CommitmentAlreadyOpened(params.unopenedCommitmentIndex);
        if (unopened.commitmentDigest != commitmentDigest) {
            revert InvalidCommitmentDigest(unopened.commitmentDigest, commitmentDigest);
        }
        // (6) committer from the stored signature
        address committer = ECDSA.recover(commitmentDigest, unopened.commitmentSignature);
        // (7) committer must have won the block
        address winner = IBlockTracker(blockTracker).getBlockWinner(params.blockNumber);
        if (winner != committer) revert WinnerIsNotCommitter(committer, winner);
        // (8) the winner proves its shared key
        if (msg.sender == winner && !_verifyZKProof(params.zkProof)) {
            revert ProviderZKProofInvalid(msg.sender, commitmentDigest);
        }
        // (9) only winner or bidder
        if (msg.sender != winner && msg.sender != bidder) {
            revert UnauthorizedOpenCommitment(committer, bidder, msg.sender);
        }
        // (10) escrow the bid (possibly reduced) and store
        uint256 bidAmt = IBidderRegistry(bidderRegistry).openBid(commitmentDigest, params.bidAmt, bidder, committer);
        commitmentIndex = keccak256(abi.encodePacked(commitmentDigest, unopened.commitmentSignature));
        OpenedCommitment storage c = openedCommitments[commitmentIndex];
        c.bidder = bidder;
        c.blockNumber = params.blockNumber;
        c.decayStartTimeStamp = params.decayStartTimeStamp;
        c.decayEndTimeStamp = params.decayEndTimeStamp;
        c.dispatchTimestamp = unopened.dispatchTimestamp;
        c.committer = committer;
        c.bidAmt = bidAmt;
        c.slashAmt = params.slashAmt;
        c.commitmentDigest = commitmentDigest;
        c.commitmentSignature = unopened.commitmentSignature;
        c.txnHash = params.txnHash;
        c.revertingTxHashes = params.revertingTxHashes;
        c.bidOptions = params.bidOptions;
        unopened.isOpened = true;
        ++commitmentsCount[committer];
        _emitOpened(commitmentIndex, c);
    }

    // ---------------------------------------------------------------- settlement (Oracle contract)

    function initiateReward(bytes32 commitmentIndex, uint256 residualBidPercentAfterDecay)
        external
        onlyOracleContract
    {
        OpenedCommitment storage c = openedCommitments[commitmentIndex];
        if (c.isSettled) revert CommitmentAlreadySettled(commitmentIndex);
        c.isSettled = true;
        --commitmentsCount[c.committer];
        IBidderRegistry(bidderRegistry).convertFundsToProviderReward(
            c.commitmentDigest, payable(c.committer), residualBidPercentAfterDecay
        );
    }

    /// @notice The provider's stake pays slashAmt (plus the penalty fee); the whole escrowed bid goes back to the
    ///         bidder.
    function initiateSlash(bytes32 commitmentIndex) external onlyOracleContract {
        OpenedCommitment storage c = openedCommitments[commitmentIndex];
        if (c.isSettled) revert CommitmentAlreadySettled(commitmentIndex);
        c.isSettled = true;
        --commitmentsCount[c.committer];
        IProviderRegistry(providerRegistry).slash(c.slashAmt, c.committer, payable(c.bidder));
        IBidderRegistry(bidderRegistry).unlockFunds(c.committer, c.commitmentDigest);
    }

    // ---------------------------------------------------------------- views

    /// @notice Bid digest; bidderPKx/PKy are taken from zkProof[2], zkProof[3]; the last word is keccak256(bidOptions).
    function getBidHash(OpenCommitmentParams calldata params) public view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(
                EIP712_BID_TYPEHASH,
                keccak256(bytes(params.txnHash)),
                keccak256(bytes(params.revertingTxHashes)),
                params.bidAmt,
                params.blockNumber,
                params.decayStartTimeStamp,
                params.decayEndTimeStamp,
                params.slashAmt,
                params.zkProof[2],
                params.zkProof[3],
                keccak256(params.bidOptions)
            )
        );
        return ECDSA.toTypedDataHash(domainSeparatorBid, structHash);
    }

    /// @notice Commitment digest; the shared key is taken from zkProof[4], zkProof[5].
    function getPreConfHash(bytes32 _bidHash, bytes calldata _bidSignature, uint256[] calldata _zkProof)
        public
        view
        returns (bytes32)
    {
        bytes32 structHash = keccak256(
            abi.encode(EIP712_COMMITMENT_TYPEHASH, _bidHash, keccak256(_bidSignature), _zkProof[4], _zkProof[5])
        );
        return ECDSA.toTypedDataHash(domainSeparatorPreconf, structHash);
    }

    function verifyBid(OpenCommitmentParams calldata params)
        public
        view
        returns (bytes32 messageDigest, address recoveredAddress)
    {
        messageDigest = getBidHash(params);
        recoveredAddress = ECDSA.recover(messageDigest, params.bidSignature);
    }

    function verifyPreConfCommitment(CommitmentParams calldata params)
        external
        view
        returns (bytes32 preConfHash, address committerAddress)
    {
        preConfHash = getPreConfHash(params.bidHash, params.bidSignature, params.zkProof);
        committerAddress = ECDSA.recover(preConfHash, params.commitmentSignature);
    }

    function getCommitment(bytes32 commitmentIndex) external view returns (OpenedCommitment memory) {
        return openedCommitments[commitmentIndex];
    }

    function getUnopenedCommitment(bytes32 commitmentIndex) external view returns (UnopenedCommitment memory) {
        return unopenedCommitments[commitmentIndex];
    }

    function getTxnHashFromCommitment(bytes32 commitmentIndex) external view returns (string memory txnHash) {
        return openedCommitments[commitmentIndex].txnHash;
    }

    function getOpenedCommitmentIndex(OpenedCommitment calldata commitment) external pure returns (bytes32) {
        return keccak256(abi.encodePacked(commitment.commitmentDigest, commitment.commitmentSignature));
    }

    function getUnopenedCommitmentIndex(UnopenedCommitment calldata commitment) external pure returns (bytes32) {
        return keccak256(abi.encodePacked(commitment.commitmentDigest, commitment.commitmentSignature));
    }

    // ---------------------------------------------------------------- admin

    /// @param newDispatchWindow window in milliseconds
    function updateCommitmentDispatchWindow(uint64 newDispatchWindow) external onlyOwner {
        commitmentDispatchWindow = newDispatchWindow;
        emit CommitmentDispatchWindowUpdated(newDispatchWindow);
    }

    function updateOracleContract(address newOracleContract) external onlyOwner {
        oracleContract = newOracleContract;
        emit OracleContractUpdated(newOracleContract);
    }

    function updateProviderRegistry(address newProviderRegistry) external onlyOwner {
        providerRegistry = newProviderRegistry;
        emit ProviderRegistryUpdated(newProviderRegistry);
    }

    function updateBidderRegistry(address newBidderRegistry) external onlyOwner {
        bidderRegistry = newBidderRegistry;
        emit BidderRegistryUpdated(newBidderRegistry);
    }

    function updateBlockTracker(address newBlockTracker) external onlyOwner {
        blockTracker = newBlockTracker;
        emit BlockTrackerUpdated(newBlockTracker);
    }

    // ---------------------------------------------------------------- internals

    function _emitOpened(bytes32 commitmentIndex, OpenedCommitment storage c) internal {
        emit OpenedCommitmentStored(
            commitmentIndex,
            c.bidder,
            c.committer,
            c.bidAmt,
            c.slashAmt,
            c.blockNumber,
            c.decayStartTimeStamp,
            c.decayEndTimeStamp,
            c.txnHash,
            c.revertingTxHashes,
            c.commitmentDigest,
            c.dispatchTimestamp,
            c.bidOptions
        );
    }

    /// @dev keccak256(abi.encode(typeHash, string name, string "1", chainId, this)) — name and version are
    ///      encoded as dynamic strings (offset + length + data), not hashed as in standard EIP-712.
    function _domainSeparator(string memory name) internal view returns (bytes32) {
        return keccak256(abi.encode(_DOMAIN_TYPEHASH, name, "1", block.chainid, address(this)));
    }

    /// @dev Chaum-Pedersen proof that A = a*G and C = a*B share the secret a.
    ///      zkProof = [A.x, A.y, B.x, B.y, C.x, C.y, c, z]; T1 = z*G + c*A, T2 = z*B + c*C;
    ///      valid iff keccak256(ctx || A || B || C || T1 || T2) mod 2^253 == c.
    function _verifyZKProof(uint256[] calldata zkProof) internal view returns (bool) {
        if (zkProof.length < 8) return false;
        uint256 t1x;
        uint256 t1y;
        uint256 t2x;
        uint256 t2y;
        {
            (uint256 gx, uint256 gy) = BN254.ecMul(_GX, _GY, zkProof[7]);
            (uint256 ax, uint256 ay) = BN254.ecMul(zkProof[0], zkProof[1], zkProof[6]);
            (t1x, t1y) = BN254.ecAdd(gx, gy, ax, ay);
        }
        {
            (uint256 bx, uint256 by) = BN254.ecMul(zkProof[2], zkProof[3], zkProof[7]);
            (uint256 cx, uint256 cy) = BN254.ecMul(zkProof[4], zkProof[5], zkProof[6]);
            (t2x, t2y) = BN254.ecAdd(bx, by, cx, cy);
        }
        bytes32 challenge = keccak256(
            abi.encodePacked(
                zkContextHash,
                zkProof[0],
                zkProof[1],
                zkProof[2],
                zkProof[3],
                zkProof[4],
                zkProof[5],
                t1x,
                t1y,
                t2x,
                t2y
            )
        );
        return (uint256(challenge) & _MASK_253) == zkProof[6];
    }

    function _toDecimal(uint256 value) internal pure returns (string memory) {
        if (value == 0) return "0";
        uint256 digits;
        for (uint256 v = value; v != 0; v /= 10) ++digits;
        bytes memory out = new bytes(digits);
        for (; value != 0; value /= 10) out[--digits] = bytes1(uint8(48 + (value % 10)));
        return string(out);
    }
}
