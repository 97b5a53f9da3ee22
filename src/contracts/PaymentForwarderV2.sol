// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

/// @notice The deposit address of one payment, version 2. Deployed by ForwarderFactoryV2 as a clone whose immutable
/// args are abi.encode(merchant, treasury, feeBps, paymentId); those args are part of the CREATE2 init code, so the
/// address itself commits to where funds can go. There is no owner and no other way out than `flush`.
///
/// What version 1 could not do: neither recipient can hold up the other. Each flush splits what arrived since the
/// last one into a merchant share and a commission, then tries each transfer on its own. A transfer that fails (a
/// blacklisted recipient, a paused token, a token that returns false) leaves that amount here, owed to that
/// recipient alone; any later flush sends it once the recipient can receive. Invariants, per token:
/// - the merchant only ever receives merchant shares, the treasury only commissions;
/// - over all deposits, the treasury's total is exactly floor(total × feeBps / 10000) and the merchant's the rest,
///   however the deposits were grouped into flushes (the fraction of a base unit of commission is carried);
/// - once both recipients can receive, one flush leaves nothing behind.
contract PaymentForwarderV2 is ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    uint256 private constant BPS_DENOMINATOR = 10_000;

    /// @dev One storage slot per token. `merchant` and `fee` are held here after a failed transfer; `carry` is the
    /// commission's fraction of a base unit not yet taken, in 1/10000 of a base unit (always < 10000).
    struct Held {
        uint120 merchant;
        uint120 fee;
        uint16 carry;
    }

    /// @dev Baked into the implementation's runtime code, which clones delegatecall into: inside a clone
    /// `address(this)` differs, so this tells a clone from the implementation without any storage.
    address private immutable _self = address(this);

    mapping(IERC20 token => Held) private _held;

    /// @notice What this flush sent: the merchant share and the commission (either may be 0).
    event Flushed(address indexed token, bytes16 indexed paymentId, uint256 merchantAmount, uint256 fee);
    /// @notice What stays here after this flush because a transfer failed, owed to each recipient.
    event Withheld(address indexed token, bytes16 indexed paymentId, uint256 merchantOwed, uint256 feeOwed);

    /// @dev The implementation has no args; reading its own code as args would yield garbage recipients.
    error NotAClone();

    function params() public view returns (address merchant, address treasury, uint16 feeBps, bytes16 paymentId) {
        if (address(this) == _self) revert NotAClone();
        return abi.decode(Clones.fetchCloneArgs(address(this)), (address, address, uint16, bytes16));
    }

    /// @notice What is held here for each recipient of `token` after failed transfers (deposits that arrived
    /// since the last flush are not split yet and not counted).
    function owed(IERC20 token) external view returns (uint256 merchant, uint256 fee) {
        Held memory held = _held[token];
        return (held.merchant, held.fee);
    }

    /// @notice Splits what arrived since the last flush and sends each recipient everything owed to it that it can
    /// receive. Permissionless and repeatable; works for any ERC-20 sent here, by mistake or not.
    /// @return merchantSent The merchant share sent now.
    /// @return feeSent The commission sent now.
    /// @return merchantOwed The merchant share still held here (its transfer failed).
    /// @return feeOwed The commission still held here (its transfer failed).
    function flush(IERC20 token)
        external
        nonReentrant
        returns (uint256 merchantSent, uint256 feeSent, uint256 merchantOwed, uint256 feeOwed)
    {
        (address merchant, address treasury, uint16 feeBps, bytes16 paymentId) = params();
        Held memory before = _held[token];
        merchantOwed = before.merchant;
        feeOwed = before.fee;
        uint256 carry = before.carry;

        uint256 balance = token.balanceOf(address(this));
        uint256 held = merchantOwed + feeOwed;
        if (balance > held) {
            uint256 arrived = balance - held;
            // floor((carry + arrived × feeBps) / 10000), split so that no product can overflow for any balance.
            uint256 fee = Math.mulDiv(arrived, feeBps, BPS_DENOMINATOR);
            carry += mulmod(arrived, feeBps, BPS_DENOMINATOR);
            if (carry >= BPS_DENOMINATOR) {
                fee += 1;
                carry -= BPS_DENOMINATOR;
            }
            feeOwed += fee;
            merchantOwed += arrived - fee;
        } else if (balance < held) {
            // Only a token that takes balances away by itself (rebasing down, seizure) gets here; USDC cannot.
            // Both recipients lose in proportion to what each was owed.
            feeOwed = Math.mulDiv(feeOwed, balance, held);
            merchantOwed = balance - feeOwed;
        }

        if (feeOwed > 0 && token.trySafeTransfer(treasury, feeOwed)) {
            (feeSent, feeOwed) = (feeOwed, 0);
        }
        if (merchantOwed > 0 && token.trySafeTransfer(merchant, merchantOwed)) {
            (merchantSent, merchantOwed) = (merchantOwed, 0);
        }

        // Written only when something changed: a flush that sends everything of a whole-cent amount (the carry
        // stays 0) touches no storage at all.
        if (merchantOwed != before.merchant || feeOwed != before.fee || carry != before.carry) {
            _held[token] = Held(SafeCast.toUint120(merchantOwed), SafeCast.toUint120(feeOwed), uint16(carry));
        }
        if (merchantSent > 0 || feeSent > 0) emit Flushed(address(token), paymentId, merchantSent, feeSent);
        if (merchantOwed > 0 || feeOwed > 0) emit Withheld(address(token), paymentId, merchantOwed, feeOwed);
    }
}
