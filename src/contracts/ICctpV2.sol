// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @notice The parts of Circle's CCTP v2 interfaces that Paylink calls, with Circle's exact signatures: the
/// forwarder burns through ITokenMessengerV2 on a source chain; MessageTransmitterV2 hands a received message to
/// its recipient (the destination TokenMessengerV2) through IMessageHandlerV2.
interface ITokenMessengerV2 {
    /// @param mintRecipient The address to mint to on the destination domain, left-padded to 32 bytes.
    /// @param destinationCaller Who may call receiveMessage on the destination; zero lets anyone.
    /// @param maxFee The most the destination may keep as fee (fast transfers); must be below `amount`.
    /// @param minFinalityThreshold At most 1000 asks for a fast transfer, 2000 for a standard one.
    function depositForBurn(
        uint256 amount,
        uint32 destinationDomain,
        bytes32 mintRecipient,
        address burnToken,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 minFinalityThreshold
    ) external;
}

interface IMessageHandlerV2 {
    function handleReceiveFinalizedMessage(
        uint32 sourceDomain,
        bytes32 sender,
        uint32 finalityThresholdExecuted,
        bytes calldata messageBody
    ) external returns (bool);

    function handleReceiveUnfinalizedMessage(
        uint32 sourceDomain,
        bytes32 sender,
        uint32 finalityThresholdExecuted,
        bytes calldata messageBody
    ) external returns (bool);
}
