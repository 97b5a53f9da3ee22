// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @notice The byte layout of a CCTP v2 message and of its burn message body, as Circle's MessageV2 and
/// BurnMessageV2 libraries write them (big-endian, packed):
///
/// header (148 bytes): version uint32 | sourceDomain uint32 | destinationDomain uint32 | nonce bytes32 |
///   sender bytes32 | recipient bytes32 | destinationCaller bytes32 | minFinalityThreshold uint32 |
///   finalityThresholdExecuted uint32 | messageBody bytes
/// burn body (228 bytes + hook data): version uint32 | burnToken bytes32 | mintRecipient bytes32 | amount uint256 |
///   messageSender bytes32 | maxFee uint256 | feeExecuted uint256 | expirationBlock uint256 | hookData bytes
///
/// The source chain emits the message with the nonce, finalityThresholdExecuted, feeExecuted and expirationBlock
/// zero; the attestation service fills them in before it signs (src/adapters/cctp/cctpMessage.ts mirrors this).
library CctpMessageV2 {
    uint256 internal constant NONCE_INDEX = 12;
    uint256 internal constant SENDER_INDEX = 44;
    uint256 internal constant RECIPIENT_INDEX = 76;
    uint256 internal constant DESTINATION_CALLER_INDEX = 108;
    uint256 internal constant MIN_FINALITY_THRESHOLD_INDEX = 140;
    uint256 internal constant FINALITY_THRESHOLD_EXECUTED_INDEX = 144;
    uint256 internal constant MESSAGE_BODY_INDEX = 148;

    uint256 internal constant BURN_TOKEN_INDEX = 4;
    uint256 internal constant MINT_RECIPIENT_INDEX = 36;
    uint256 internal constant AMOUNT_INDEX = 68;
    uint256 internal constant MESSAGE_SENDER_INDEX = 100;
    uint256 internal constant MAX_FEE_INDEX = 132;
    uint256 internal constant FEE_EXECUTED_INDEX = 164;
    uint256 internal constant EXPIRATION_BLOCK_INDEX = 196;
    uint256 internal constant HOOK_DATA_INDEX = 228;

    function formatMessage(
        uint32 version,
        uint32 sourceDomain,
        uint32 destinationDomain,
        bytes32 sender,
        bytes32 recipient,
        bytes32 destinationCaller,
        uint32 minFinalityThreshold,
        bytes memory messageBody
    ) internal pure returns (bytes memory) {
        return abi.encodePacked(
            version,
            sourceDomain,
            destinationDomain,
            bytes32(0),
            sender,
            recipient,
            destinationCaller,
            minFinalityThreshold,
            uint32(0),
            messageBody
        );
    }

    function formatBurnMessage(
        uint32 version,
        bytes32 burnToken,
        bytes32 mintRecipient,
        uint256 amount,
        bytes32 messageSender,
        uint256 maxFee,
        bytes memory hookData
    ) internal pure returns (bytes memory) {
        return abi.encodePacked(
            version, burnToken, mintRecipient, amount, messageSender, maxFee, uint256(0), uint256(0), hookData
        );
    }

    // --- reading (calldata) ------------------------------------------------------------------------------------

    function uint32At(bytes calldata data, uint256 index) internal pure returns (uint32) {
        return uint32(bytes4(data[index:index + 4]));
    }

    function bytes32At(bytes calldata data, uint256 index) internal pure returns (bytes32) {
        return bytes32(data[index:index + 32]);
    }

    function uint256At(bytes calldata data, uint256 index) internal pure returns (uint256) {
        return uint256(bytes32(data[index:index + 32]));
    }

    function toAddress(bytes32 value) internal pure returns (address) {
        // Circle's Message.bytes32ToAddress: the low 20 bytes.
        return address(uint160(uint256(value)));
    }

    function toBytes32(address value) internal pure returns (bytes32) {
        return bytes32(uint256(uint160(value)));
    }
}
