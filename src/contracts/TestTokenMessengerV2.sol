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
///
/// CCTP v2.1's minimum fee is modelled as Circle's contract behaves (its published TokenMessengerV2): `minFee` is
/// in thousandths of a basis point (out of `MIN_FEE_MULTIPLIER`, 10 000 000: 1 000 is 1 bp), set by the
/// `minFeeController` role (rotated by the owner), below 100 %. `getMinFeeAmount(amount)` is
/// floor(amount × minFee / MIN_FEE_MULTIPLIER), but at least one base unit while `minFee` is above zero (and it
/// refuses an amount of one base unit or less then, as there is no fee below the amount to ask). Every burn,
/// whatever its finality threshold, must offer a `maxFee` of at least that, else "Insufficient max fee".
contract TestTokenMessengerV2 is ITokenMessengerV2, IMessageHandlerV2, Ownable {
    using CctpMessageV2 for bytes;

    uint32 public constant messageBodyVersion = 1;
    /// @dev Circle's TOKEN_MESSENGER_MIN_FINALITY_THRESHOLD: an unfinalized message attested below this is refused.
    uint32 private constant MIN_FINALITY_THRESHOLD = 500;
    /// @dev `minFee` is out of this: thousandths of a basis point.
    uint256 public constant MIN_FEE_MULTIPLIER = 10_000_000;

    TestMessageTransmitterV2 public immutable localMessageTransmitter;
    address public feeRecipient;
    /// @notice The least fee every burn must offer, in thousandths of a basis point of its amount (0: none).
    uint256 public minFee;
    /// @notice The role that sets `minFee` (Circle's fee switch), apart from the owner's.
    address public minFeeController;

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
    event MinFeeSet(uint256 minFee);
    event MinFeeControllerSet(address minFeeController);

    constructor(TestMessageTransmitterV2 transmitter, address feeRecipient_) Ownable(msg.sender) {
        localMessageTransmitter = transmitter;
        feeRecipient = feeRecipient_;
        minFeeController = msg.sender;
    }

    // --- Circle's minimum fee (v2.1) -----------------------------------------------------------------------------

    function setMinFeeController(address controller) external onlyOwner {
        require(controller != address(0), "Zero address not allowed");
        minFeeController = controller;
        emit MinFeeControllerSet(controller);
    }

    function setMinFee(uint256 minFee_) external {
        require(msg.sender == minFeeController, "Caller is not the min fee controller");
        require(minFee_ < MIN_FEE_MULTIPLIER, "Min fee too high");
        minFee = minFee_;
        emit MinFeeSet(minFee_);
    }

    /// @notice The least `maxFee` a burn of `amount` may offer now.
    function getMinFeeAmount(uint256 amount) public view returns (uint256) {
        if (minFee == 0) return 0;
        require(amount > 1, "Amount too low");
        uint256 fee = (amount * minFee) / MIN_FEE_MULTIPLIER;
        return fee == 0 ? 1 : fee;
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
        if (minFee > 0) require(maxFee >= getMinFeeAmount(amount), "Insufficient max fee");
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
