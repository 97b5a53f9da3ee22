// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {ITokenMessengerV2} from "./ICctpV2.sol";

/// @notice A payment's params, to which its deposit address commits: the CREATE2 salt of its clone is
/// keccak256(abi.encode(params)). Shared with ForwarderFactoryV3, whose ABI names it the same.
struct ForwarderParams {
    address merchant;
    address treasury;
    uint16 feeBps;
    bytes16 paymentId;
}

/// @notice The deposit address of one payment on every chain, version 3. Deployed by ForwarderFactoryV3 as a bare
/// 45-byte EIP-1167 clone with CREATE2 salt keccak256(abi.encode(params)): the clone holds no args (each byte of
/// deployed code costs 200 gas, and the 128 bytes of version 2's args were a quarter of a settlement), so every
/// function takes the params and first checks that they are the ones this address commits to. Only those pass,
/// so the promise is version 2's: money here goes only to this payment's merchant and treasury, at its
/// commission. The factory (and so this implementation) has the same address on every chain, so the payment's
/// address is the same everywhere. What differs per chain is this implementation's code: the factory deployed it
/// with that chain's route, taken from the table in the factory's own init code
/// (docs/decisions/0028-one-address-every-chain.md, 0031-batch-payout.md).
///
/// - Where this chain's route is a burn (a chain other than Polygon, with Circle's USDC and CCTP v2): USDC can
///   only leave through `burn`, a CCTP v2 `depositForBurn` to Polygon's domain whose mint recipient is this very
///   address. On Polygon the same address is the same forwarder, whose `flush` splits what was minted to it.
/// - Everywhere else (Polygon itself, a chain not in the table) and for every other token: `flush` splits what
///   arrived between the merchant and the treasury exactly as version 2 does (each share on its own, a refused
///   share held for its recipient alone, the commission's fraction of a base unit carried).
/// No owner, no other way out.
contract PaymentForwarderV3 is ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    /// @notice Circle's CCTP domain of Polygon PoS (and of its testnet, Amoy): where every burn mints.
    uint32 public constant POLYGON_DOMAIN = 7;
    uint256 private constant BPS_DENOMINATOR = 10_000;

    /// @dev As in version 2: one slot per token, the shares held after a failed transfer and the carried fraction.
    struct Held {
        uint120 merchant;
        uint120 fee;
        uint16 carry;
    }

    address private immutable _self = address(this);
    /// @notice The factory that deployed this implementation (in its constructor), hence every clone of it: the
    /// CREATE2 deployer in the address check.
    address private immutable _factory = msg.sender;

    /// @notice The USDC this chain's USDC must be burnt as; zero where nothing is burnt (Polygon, no route).
    IERC20 public immutable burnToken;
    ITokenMessengerV2 public immutable tokenMessenger;
    /// @notice The most a burn may offer CCTP as fee (fast transfer), in basis points of the amount burnt.
    uint16 public immutable maxBurnFeeBps;

    mapping(IERC20 token => Held) private _held;

    event Flushed(address indexed token, bytes16 indexed paymentId, uint256 merchantAmount, uint256 fee);
    event Withheld(address indexed token, bytes16 indexed paymentId, uint256 merchantOwed, uint256 feeOwed);
    event Burned(bytes16 indexed paymentId, uint256 amount, uint256 maxFee, uint32 minFinalityThreshold);

    /// @notice The params are not the ones this address commits to (or this is the implementation itself).
    error NotThisForwarder();
    /// @notice This chain's USDC leaves only through `burn`, to this address on Polygon.
    error MustBurn(address token);
    /// @notice Nothing is burnt on this chain: `flush` pays here.
    error NoBurnRoute();
    error BurnFeeTooHigh(uint256 maxFee, uint256 allowed);

    constructor(IERC20 burnToken_, ITokenMessengerV2 tokenMessenger_, uint16 maxBurnFeeBps_) {
        burnToken = burnToken_;
        tokenMessenger = tokenMessenger_;
        maxBurnFeeBps = maxBurnFeeBps_;
    }

    function owed(ForwarderParams calldata p, IERC20 token) external view returns (uint256 merchant, uint256 fee) {
        _checkParams(p);
        Held memory held = _held[token];
        return (held.merchant, held.fee);
    }

    /// @notice Burns `amount` of this chain's USDC through CCTP v2, minted on Polygon to this same address.
    /// Permissionless, like `flush`: whoever calls chooses only the speed, within what the route allows. A burn that
    /// USDC refuses (this address blacklisted, the token paused) reverts whole and leaves everything here.
    /// @param maxFee What CCTP may keep for a fast transfer; at most `maxBurnFeeBps` of `amount` (0: standard).
    /// @param minFinalityThreshold 1000 asks for a fast transfer, 2000 for a standard one (CCTP's thresholds).
    function burn(ForwarderParams calldata p, uint256 amount, uint256 maxFee, uint32 minFinalityThreshold)
        external
        nonReentrant
    {
        _checkParams(p);
        if (address(burnToken) == address(0)) revert NoBurnRoute();
        uint256 allowed = Math.mulDiv(amount, maxBurnFeeBps, BPS_DENOMINATOR);
        if (maxFee > allowed) revert BurnFeeTooHigh(maxFee, allowed);
        burnToken.forceApprove(address(tokenMessenger), amount);
        tokenMessenger.depositForBurn(
            amount,
            POLYGON_DOMAIN,
            bytes32(uint256(uint160(address(this)))),
            address(burnToken),
            bytes32(0),
            maxFee,
            minFinalityThreshold
        );
        emit Burned(p.paymentId, amount, maxFee, minFinalityThreshold);
    }

    /// @notice Version 2's flush, for every token except the one this chain burns.
    function flush(ForwarderParams calldata p, IERC20 token)
        external
        nonReentrant
        returns (uint256 merchantSent, uint256 feeSent, uint256 merchantOwed, uint256 feeOwed)
    {
        _checkParams(p);
        if (address(burnToken) != address(0) && token == burnToken) revert MustBurn(address(token));
        uint16 feeBps = p.feeBps;
        Held memory before = _held[token];
        merchantOwed = before.merchant;
        feeOwed = before.fee;
        uint256 carry = before.carry;

        uint256 balance = token.balanceOf(address(this));
        // Unchecked: each sum below is at most `balance` (what is held plus what arrived), each difference is of a
        // smaller from a larger, and `carry` stays below twice the denominator.
        unchecked {
            uint256 held = merchantOwed + feeOwed;
            if (balance > held) {
                uint256 arrived = balance - held;
                uint256 fee = Math.mulDiv(arrived, feeBps, BPS_DENOMINATOR);
                carry += mulmod(arrived, feeBps, BPS_DENOMINATOR);
                if (carry >= BPS_DENOMINATOR) {
                    fee += 1;
                    carry -= BPS_DENOMINATOR;
                }
                feeOwed += fee;
                merchantOwed += arrived - fee;
            } else if (balance < held) {
                feeOwed = Math.mulDiv(feeOwed, balance, held);
                merchantOwed = balance - feeOwed;
            }
        }

        if (feeOwed > 0 && token.trySafeTransfer(p.treasury, feeOwed)) {
            (feeSent, feeOwed) = (feeOwed, 0);
        }
        if (merchantOwed > 0 && token.trySafeTransfer(p.merchant, merchantOwed)) {
            (merchantSent, merchantOwed) = (merchantOwed, 0);
        }

        if (merchantOwed != before.merchant || feeOwed != before.fee || carry != before.carry) {
            _held[token] = Held(SafeCast.toUint120(merchantOwed), SafeCast.toUint120(feeOwed), uint16(carry));
        }
        if (merchantSent > 0 || feeSent > 0) emit Flushed(address(token), p.paymentId, merchantSent, feeSent);
        if (merchantOwed > 0 || feeOwed > 0) emit Withheld(address(token), p.paymentId, merchantOwed, feeOwed);
    }

    /// @dev The address commits to the params: CREATE2 by the factory, of the bare clone of this implementation,
    /// with salt keccak256(abi.encode(params)). Any other params give another address; on the implementation
    /// itself no params pass (its own address is no clone's).
    function _checkParams(ForwarderParams calldata p) private view {
        if (Clones.predictDeterministicAddress(_self, keccak256(abi.encode(p)), _factory) != address(this)) {
            revert NotThisForwarder();
        }
    }
}
