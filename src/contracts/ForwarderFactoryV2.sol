// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {PaymentForwarderV2} from "./PaymentForwarderV2.sol";

/// @notice Predicts, deploys and flushes version 2 payment forwarders. Permissionless: whoever calls pays the gas,
/// and the funds can only go where each forwarder's params say. Deposit addresses are derived exactly as by
/// version 1 (same args, same salt, same clone layout); only the implementation behind them differs.
contract ForwarderFactoryV2 {
    struct ForwarderParams {
        address merchant;
        address treasury;
        uint16 feeBps;
        bytes16 paymentId;
    }

    /// @notice What one forwarder's flush did (PaymentForwarderV2.flush's return values).
    struct FlushOutcome {
        uint256 merchantSent;
        uint256 feeSent;
        uint256 merchantOwed;
        uint256 feeOwed;
    }

    /// @notice Tells the settler which flush semantics this factory's forwarders have (version 1 has no VERSION).
    uint256 public constant VERSION = 2;
    /// @dev Keeps one flushBatch well inside a block's gas limit (about 11M gas for a full batch of new forwarders).
    uint256 public constant MAX_BATCH = 100;
    uint16 public constant MAX_FEE_BPS = 10_000;

    address public immutable implementation;

    event ForwarderDeployed(address indexed forwarder, bytes16 indexed paymentId);

    error FeeTooHigh(uint16 feeBps);
    error ZeroAddress();
    error BatchTooLarge(uint256 length, uint256 max);

    constructor() {
        // The factory's first CREATE: its address follows from the factory's alone (nonce 1), so deposit addresses
        // can be computed off-chain.
        implementation = address(new PaymentForwarderV2());
    }

    function predict(ForwarderParams calldata p) external view returns (address) {
        bytes memory args = _args(p);
        return Clones.predictDeterministicAddressWithImmutableArgs(implementation, args, keccak256(args));
    }

    /// @notice For each params: deploy the forwarder if it has no code yet, then flush `token` out of it. A recipient
    /// that cannot receive does not make the batch revert: its amount stays in its forwarder (see the outcomes), so
    /// an `eth_call` of this function tells what a flush would move before any gas is spent.
    function flushBatch(ForwarderParams[] calldata batch, IERC20 token)
        external
        returns (FlushOutcome[] memory outcomes)
    {
        if (batch.length > MAX_BATCH) revert BatchTooLarge(batch.length, MAX_BATCH);
        outcomes = new FlushOutcome[](batch.length);
        for (uint256 i = 0; i < batch.length; ++i) {
            ForwarderParams calldata p = batch[i];
            bytes memory args = _args(p);
            // The args are already in the init code; hashing them into the salt as well keeps the address
            // bound to every parameter even if the clone layout ever stopped embedding them.
            bytes32 salt = keccak256(args);
            address forwarder = Clones.predictDeterministicAddressWithImmutableArgs(implementation, args, salt);
            if (forwarder.code.length == 0) {
                address deployed = Clones.cloneDeterministicWithImmutableArgs(implementation, args, salt);
                assert(deployed == forwarder);
                emit ForwarderDeployed(forwarder, p.paymentId);
            }
            FlushOutcome memory outcome = outcomes[i];
            (outcome.merchantSent, outcome.feeSent, outcome.merchantOwed, outcome.feeOwed) =
                PaymentForwarderV2(forwarder).flush(token);
        }
    }

    function _args(ForwarderParams calldata p) private pure returns (bytes memory) {
        if (p.feeBps > MAX_FEE_BPS) revert FeeTooHigh(p.feeBps);
        // Most tokens (USDC included) refuse transfers to the zero address, which would strand the funds.
        if (p.merchant == address(0) || p.treasury == address(0)) revert ZeroAddress();
        return abi.encode(p.merchant, p.treasury, p.feeBps, p.paymentId);
    }
}
