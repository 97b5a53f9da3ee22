// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {CctpMessageV2} from "./CctpMessageV2.sol";
import {IMessageHandlerV2} from "./ICctpV2.sol";

/// @notice Stand-in for Circle's MessageTransmitterV2 in the sandbox and tests, with its interface, message format
/// and checks (its revert messages too):
/// - `sendMessage` (called by the local TokenMessenger) emits `MessageSent(message)` with the nonce and the
///   executed finality threshold zero: the attestation service assigns both.
/// - `receiveMessage(message, attestation)` takes `signatureThreshold` 65-byte ECDSA signatures (r‖s‖v) over
///   keccak256(message) by enabled attesters, in increasing signer order; refuses a message for another domain, a
///   destination caller other than the sender, and a nonce already used; then hands the body to the recipient,
///   whose handler mints.
/// Circle's pausing, attester rotation and upgradeability are left out: nothing in Paylink depends on them.
contract TestMessageTransmitterV2 {
    using CctpMessageV2 for bytes;

    uint32 public constant version = 1;
    /// @dev A message attested at or above this threshold is final (a standard transfer).
    uint32 private constant FINALITY_THRESHOLD_FINALIZED = 2000;
    uint256 private constant SIGNATURE_LENGTH = 65;

    uint32 public immutable localDomain;
    uint256 public immutable signatureThreshold;

    mapping(address attester => bool) public isEnabledAttester;
    /// @notice 1 once a nonce's message has been received (Circle's NONCE_USED).
    mapping(bytes32 nonce => uint256) public usedNonces;

    event MessageSent(bytes message);
    event MessageReceived(
        address indexed caller,
        uint32 sourceDomain,
        bytes32 indexed nonce,
        bytes32 sender,
        uint32 indexed finalityThresholdExecuted,
        bytes messageBody
    );

    constructor(uint32 localDomain_, address[] memory attesters, uint256 signatureThreshold_) {
        require(signatureThreshold_ > 0 && signatureThreshold_ <= attesters.length, "Invalid signature threshold");
        localDomain = localDomain_;
        signatureThreshold = signatureThreshold_;
        for (uint256 i = 0; i < attesters.length; ++i) {
            isEnabledAttester[attesters[i]] = true;
        }
    }

    function sendMessage(
        uint32 destinationDomain,
        bytes32 recipient,
        bytes32 destinationCaller,
        uint32 minFinalityThreshold,
        bytes calldata messageBody
    ) external {
        require(destinationDomain != localDomain, "Domain is local domain");
        require(recipient != bytes32(0), "Recipient must be nonzero");
        emit MessageSent(
            CctpMessageV2.formatMessage(
                version,
                localDomain,
                destinationDomain,
                CctpMessageV2.toBytes32(msg.sender),
                recipient,
                destinationCaller,
                minFinalityThreshold,
                messageBody
            )
        );
    }

    function receiveMessage(bytes calldata message, bytes calldata attestation) external returns (bool success) {
        _verifyAttestation(message, attestation);

        require(message.length >= CctpMessageV2.MESSAGE_BODY_INDEX, "Invalid message: too short");
        require(message.uint32At(0) == version, "Invalid message version");
        require(message.uint32At(8) == localDomain, "Invalid destination domain");
        bytes32 destinationCaller = message.bytes32At(CctpMessageV2.DESTINATION_CALLER_INDEX);
        require(
            destinationCaller == bytes32(0) || destinationCaller == CctpMessageV2.toBytes32(msg.sender),
            "Invalid caller for message"
        );
        bytes32 nonce = message.bytes32At(CctpMessageV2.NONCE_INDEX);
        require(usedNonces[nonce] == 0, "Nonce already used");
        usedNonces[nonce] = 1;

        uint32 sourceDomain = message.uint32At(4);
        bytes32 sender = message.bytes32At(CctpMessageV2.SENDER_INDEX);
        uint32 executed = message.uint32At(CctpMessageV2.FINALITY_THRESHOLD_EXECUTED_INDEX);
        bytes calldata body = message[CctpMessageV2.MESSAGE_BODY_INDEX:];
        IMessageHandlerV2 recipient =
            IMessageHandlerV2(CctpMessageV2.toAddress(message.bytes32At(CctpMessageV2.RECIPIENT_INDEX)));
        if (executed < FINALITY_THRESHOLD_FINALIZED) {
            require(
                recipient.handleReceiveUnfinalizedMessage(sourceDomain, sender, executed, body),
                "handleReceiveUnfinalizedMessage() failed"
            );
        } else {
            require(
                recipient.handleReceiveFinalizedMessage(sourceDomain, sender, executed, body),
                "handleReceiveFinalizedMessage() failed"
            );
        }
        emit MessageReceived(msg.sender, sourceDomain, nonce, sender, executed, body);
        return true;
    }

    /// @dev Circle's `_verifyAttestationSignatures`: the signatures of distinct enabled attesters, sorted by signer
    /// address so that one attester cannot be counted twice.
    function _verifyAttestation(bytes calldata message, bytes calldata attestation) private view {
        require(attestation.length == SIGNATURE_LENGTH * signatureThreshold, "Invalid attestation length");
        bytes32 digest = keccak256(message);
        address previous = address(0);
        for (uint256 i = 0; i < signatureThreshold; ++i) {
            bytes calldata signature = attestation[i * SIGNATURE_LENGTH:(i + 1) * SIGNATURE_LENGTH];
            address signer = ECDSA.recover(digest, signature);
            require(isEnabledAttester[signer], "Invalid signature: not attester");
            require(signer > previous, "Invalid signature order or dupe");
            previous = signer;
        }
    }
}
