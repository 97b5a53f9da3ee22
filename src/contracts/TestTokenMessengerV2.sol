// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {CctpMessageV2} from "./CctpMessageV2.sol";
import {IMessageHandlerV2, ITokenMessengerV2} from "./ICctpV2.sol";
import {TestMessageTransmitterV2} from "./TestMessageTransmitterV2.sol";

/// @notice The calls CCTP makes on USDC: FiatToken's minter role.
interface IMintBurnToken {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
    function mint(address to, uint256 amount) external returns (bool);
    function burn(uint256 amount) external;
}

/// @notice Stand-in for Circle's TokenMessengerV2 (with its TokenMinterV2 folded in) in the sandbox and tests:
/// - `depositForBurn` takes the amount from the caller (`transferFrom`, so USDC's blacklist and pause apply),
///   burns it, and sends a burn message to the destination domain's registered TokenMessenger through the local
///   MessageTransmitterV2, which emits it;
/// - on the destination, the transmitter calls `handleReceive(Un)FinalizedMessage`, which checks that the message
///   came from the source domain's registered TokenMessenger and mints `amount - feeExecuted` to the mint
///   recipient and the fee to the fee recipient, in the local token linked to the burnt one.
/// The owner stands for Circle's token controller: it links domains and tokens and sets the burn limit. Requires
/// the minter role on the local token.
contract TestTokenMessengerV2 is ITokenMessengerV2, IMessageHandlerV2, Ownable {
    using CctpMessageV2 for bytes;

    uint32 public constant messageBodyVersion = 1;
    /// @dev Circle's TOKEN_MESSENGER_MIN_FINALITY_THRESHOLD: an unfinalized message attested below this is refused.
    uint32 private constant MIN_FINALITY_THRESHOLD = 500;

    TestMessageTransmitterV2 public immutable localMessageTransmitter;
    address public feeRecipient;

    mapping(uint32 domain => bytes32) public remoteTokenMessengers;
    /// @dev keccak256(abi.encodePacked(remoteDomain, remoteToken)) → local token, as Circle's TokenMinter keys it.
    mapping(bytes32 remoteTokenKey => address) public remoteTokensToLocalTokens;
    mapping(address token => uint256) public burnLimitsPerMessage;

    event DepositForBurn(
        address indexed burnToken,
        uint256 amount,
        address indexed depositor,
        bytes32 mintRecipient,
        uint32 destinationDomain,
        bytes32 destinationTokenMessenger,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 indexed minFinalityThreshold,
        bytes hookData
    );
    event MintAndWithdraw(address indexed mintRecipient, uint256 amount, address indexed mintToken, uint256 feeCollected);

    constructor(TestMessageTransmitterV2 transmitter, address feeRecipient_) Ownable(msg.sender) {
        localMessageTransmitter = transmitter;
        feeRecipient = feeRecipient_;
    }

    // --- Circle's token controller -----------------------------------------------------------------------------

    function addRemoteTokenMessenger(uint32 domain, bytes32 tokenMessenger) external onlyOwner {
        remoteTokenMessengers[domain] = tokenMessenger;
    }

    function linkTokenPair(address localToken, uint32 remoteDomain, bytes32 remoteToken) external onlyOwner {
        remoteTokensToLocalTokens[keccak256(abi.encodePacked(remoteDomain, remoteToken))] = localToken;
    }

    function setMaxBurnAmountPerMessage(address localToken, uint256 burnLimitPerMessage) external onlyOwner {
        burnLimitsPerMessage[localToken] = burnLimitPerMessage;
    }

    // --- source side -------------------------------------------------------------------------------------------

    function depositForBurn(
        uint256 amount,
        uint32 destinationDomain,
        bytes32 mintRecipient,
        address burnToken,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 minFinalityThreshold
    ) external {
        require(amount > 0, "Amount must be nonzero");
        require(mintRecipient != bytes32(0), "Mint recipient must be nonzero");
        require(maxFee < amount, "Max fee must be less than amount");
        bytes32 destinationTokenMessenger = remoteTokenMessengers[destinationDomain];
        require(destinationTokenMessenger != bytes32(0), "No TokenMessenger for domain");
        uint256 limit = burnLimitsPerMessage[burnToken];
        require(limit > 0, "Burn token not supported");
        require(amount <= limit, "Burn amount exceeds per tx limit");

        require(IMintBurnToken(burnToken).transferFrom(msg.sender, address(this), amount), "Transfer operation failed");
        IMintBurnToken(burnToken).burn(amount);

        bytes memory body = CctpMessageV2.formatBurnMessage(
            messageBodyVersion,
            CctpMessageV2.toBytes32(burnToken),
            mintRecipient,
            amount,
            CctpMessageV2.toBytes32(msg.sender),
            maxFee,
            ""
        );
        localMessageTransmitter.sendMessage(
            destinationDomain, destinationTokenMessenger, destinationCaller, minFinalityThreshold, body
        );
        emit DepositForBurn(
            burnToken,
            amount,
            msg.sender,
            mintRecipient,
            destinationDomain,
            destinationTokenMessenger,
            destinationCaller,
            maxFee,
            minFinalityThreshold,
            ""
        );
    }

    // --- destination side --------------------------------------------------------------------------------------

    function handleReceiveFinalizedMessage(
        uint32 sourceDomain,
        bytes32 sender,
        uint32, /* finalityThresholdExecuted */
        bytes calldata messageBody
    ) external returns (bool) {
        _mintFromMessage(sourceDomain, sender, messageBody);
        return true;
    }

    function handleReceiveUnfinalizedMessage(
        uint32 sourceDomain,
        bytes32 sender,
        uint32 finalityThresholdExecuted,
        bytes calldata messageBody
    ) external returns (bool) {
        require(finalityThresholdExecuted >= MIN_FINALITY_THRESHOLD, "Unsupported finality threshold");
        _mintFromMessage(sourceDomain, sender, messageBody);
        return true;
    }

    function _mintFromMessage(uint32 sourceDomain, bytes32 sender, bytes calldata body) private {
        require(msg.sender == address(localMessageTransmitter), "Invalid message transmitter");
        require(
            sender != bytes32(0) && remoteTokenMessengers[sourceDomain] == sender, "Remote TokenMessenger unsupported"
        );
        require(body.length >= CctpMessageV2.HOOK_DATA_INDEX, "Invalid burn message");
        require(body.uint32At(0) == messageBodyVersion, "Invalid message body version");

        bytes32 burnToken = body.bytes32At(CctpMessageV2.BURN_TOKEN_INDEX);
        address mintRecipient = CctpMessageV2.toAddress(body.bytes32At(CctpMessageV2.MINT_RECIPIENT_INDEX));
        uint256 amount = body.uint256At(CctpMessageV2.AMOUNT_INDEX);
        uint256 maxFee = body.uint256At(CctpMessageV2.MAX_FEE_INDEX);
        uint256 fee = body.uint256At(CctpMessageV2.FEE_EXECUTED_INDEX);
        uint256 expirationBlock = body.uint256At(CctpMessageV2.EXPIRATION_BLOCK_INDEX);
        require(expirationBlock == 0 || expirationBlock > block.number, "Message expired and must be re-signed");
        require(fee <= maxFee, "Fee exceeds max fee");
        require(fee == 0 || fee < amount, "Fee equals or exceeds amount");

        address localToken = remoteTokensToLocalTokens[keccak256(abi.encodePacked(sourceDomain, burnToken))];
        require(localToken != address(0), "Mint token not supported");
        require(IMintBurnToken(localToken).mint(mintRecipient, amount - fee), "Mint operation failed");
        if (fee > 0) require(IMintBurnToken(localToken).mint(feeRecipient, fee), "Mint operation failed");
        emit MintAndWithdraw(mintRecipient, amount - fee, localToken, fee);
    }
}
