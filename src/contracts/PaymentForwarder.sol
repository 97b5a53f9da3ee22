// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";

/// @notice The deposit address of one payment. Deployed by ForwarderFactory as a clone whose immutable args are
/// abi.encode(merchant, treasury, feeBps, paymentId); those args are part of the CREATE2 init code, so the
/// address itself commits to where funds can go. There is no owner and no other way out than `flush`.
contract PaymentForwarder {
    using SafeERC20 for IERC20;

    uint256 private constant BPS_DENOMINATOR = 10_000;

    /// @dev Baked into the implementation's runtime code, which clones delegatecall into: inside a clone
    /// `address(this)` differs, so this tells a clone from the implementation without any storage.
    address private immutable _self = address(this);

    event Flushed(address indexed token, bytes16 indexed paymentId, uint256 merchantAmount, uint256 fee);

    /// @dev The implementation has no args; reading its own code as args would yield garbage recipients.
    error NotAClone();

    function params() public view returns (address merchant, address treasury, uint16 feeBps, bytes16 paymentId) {
        if (address(this) == _self) revert NotAClone();
        return abi.decode(Clones.fetchCloneArgs(address(this)), (address, address, uint16, bytes16));
    }

    /// @notice Sends this forwarder's whole balance of `token` to the treasury (commission) and the merchant
    /// (the rest). Permissionless and repeatable: later deposits, or any other ERC-20 sent here by mistake,
    /// leave the same way.
    function flush(IERC20 token) external {
        (address merchant, address treasury, uint16 feeBps, bytes16 paymentId) = params();
        uint256 balance = token.balanceOf(address(this));
        if (balance == 0) return;
        // mulDiv rather than balance * feeBps: an arbitrary token's balance may be large enough to overflow.
        uint256 fee = Math.mulDiv(balance, feeBps, BPS_DENOMINATOR);
        uint256 merchantAmount = balance - fee;
        if (fee > 0) token.safeTransfer(treasury, fee);
        if (merchantAmount > 0) token.safeTransfer(merchant, merchantAmount);
        emit Flushed(address(token), paymentId, merchantAmount, fee);
    }
}
