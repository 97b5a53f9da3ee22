// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// @notice A customer's signed terms of a subscription (EIP-712 type `Terms`): everything a charge may do.
/// - `merchant` and `treasury` are the only payees, `feeBps` the treasury's share of each charge in basis points,
///   as a payment forwarder's params fix them (decision 0031);
/// - at most `cap` base units of `token` per period;
/// - periods of `periodSeconds` (days, weeks) or of `periodMonths` calendar months (months, years), exactly one of
///   the two non-zero; period 0 starts at `start` (unix seconds), period p at `start` moved p periods on, a
///   calendar month keeping the start's day and time of day, clamped to a shorter month (Jan 31 → Feb 28 → Mar 31);
/// - `periods` periods at most (0: no limit), and nothing at or after `end` (0: no end);
/// - `salt` tells apart two subscriptions with otherwise equal terms.
struct Terms {
    address customer;
    address merchant;
    address treasury;
    uint16 feeBps;
    address token;
    uint256 cap;
    uint32 periodSeconds;
    uint16 periodMonths;
    uint64 start;
    uint32 periods;
    uint64 end;
    bytes32 salt;
}

/// @notice Charges subscriptions on the terms their customers signed, and nothing else (decision 0061).
///
/// The customer signs the terms once and grants this contract an allowance of the token (`approve`, or an
/// EIP-2612 `permit` passed to `permitAndCharge` so that the grant costs them no gas). Anyone may then call
/// `charge` (Paylink's relayer does), which moves at most `cap` from the customer, once per period, only while the
/// period is the current one, split between the merchant and the treasury in the same transaction. The customer
/// stops it for good with `cancel`, or at once with `approve(this, 0)`. No owner, no admin, no upgrade: the code
/// deployed is the whole of what it can do.
contract SubscriptionCharger is EIP712 {
    using SafeERC20 for IERC20;

    bytes32 public constant TERMS_TYPEHASH = keccak256(
        "Terms(address customer,address merchant,address treasury,uint16 feeBps,address token,uint256 cap,"
        "uint32 periodSeconds,uint16 periodMonths,uint64 start,uint32 periods,uint64 end,bytes32 salt)"
    );
    uint256 private constant BPS_DENOMINATOR = 10_000;
    uint256 private constant DAY = 86_400;
    /// @dev A mandate's state: 0 never charged (its signature not yet checked), p + 1 after period p was charged,
    /// CANCELED once its customer canceled it.
    uint256 private constant CANCELED = type(uint256).max;

    mapping(bytes32 mandate => uint256) private _state;

    /// @notice The customer is the terms' (its mandate names them): not repeated here, each topic costs gas.
    event Charged(bytes32 indexed mandate, uint256 indexed period, uint256 amount, uint256 fee);
    event Canceled(bytes32 indexed mandate, address indexed customer);

    error InvalidTerms();
    error InvalidSignature();
    error MandateCanceled();
    /// @notice This period, or a later one, was charged already.
    error AlreadyCharged(uint256 period);
    error AmountAboveCap(uint256 amount, uint256 cap);
    error ZeroAmount();
    /// @notice The period is not the current one: `block.timestamp` is before its start or at/after its end.
    error NotCurrentPeriod(uint256 period, uint256 periodStart, uint256 periodEnd);
    /// @notice Past the terms' number of periods or their end.
    error TermsEnded();
    error NotCustomer();

    constructor() EIP712("Paylink SubscriptionCharger", "1") {}

    /// @notice The mandate's id: the EIP-712 digest the customer signed (it names this contract and chain).
    function mandateId(Terms calldata t) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(TERMS_TYPEHASH, t)));
    }

    /// @notice 0 when nothing was charged yet, p + 1 when period p was the last charged, max when canceled.
    function stateOf(bytes32 mandate) external view returns (uint256) {
        return _state[mandate];
    }

    /// @notice Charges `amount` for period `period` (0-based): `amount - fee` to the merchant, `fee` to the treasury.
    /// `signature` is the customer's over the terms (ECDSA, or EIP-1271 for a contract wallet); once a period was
    /// charged it is not read again and may be empty.
    function charge(Terms calldata t, bytes calldata signature, uint256 period, uint256 amount)
        external
        returns (uint256 fee)
    {
        return _charge(t, signature, period, amount);
    }

    /// @notice `charge` after the customer's EIP-2612 permit of this contract (deadline, v, r, s): the grant and the
    /// first charge in one transaction the customer pays no gas for. A permit already used (someone submitted it
    /// first) is ignored: the charge then stands on the allowance it granted.
    function permitAndCharge(
        Terms calldata t,
        bytes calldata signature,
        uint256 period,
        uint256 amount,
        uint256 permitValue,
        uint256 deadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external returns (uint256 fee) {
        try IERC20Permit(t.token).permit(t.customer, address(this), permitValue, deadline, v, r, s) {} catch {}
        return _charge(t, signature, period, amount);
    }

    /// @notice The customer ends the mandate for good; no charge is possible after.
    function cancel(Terms calldata t) external {
        if (msg.sender != t.customer) revert NotCustomer();
        bytes32 mandate = mandateId(t);
        _state[mandate] = CANCELED;
        emit Canceled(mandate, t.customer);
    }

    /// @notice When period `period` (0-based) of these terms starts, in unix seconds.
    function periodStart(Terms calldata t, uint256 period) external pure returns (uint256 from) {
        (from,) = _window(t, period);
    }

    /// @dev Period `period`'s start and end (the next one's start). Unchecked: `period` is below 2^32 and every
    /// term is at most 64 bits wide, so no sum or product here comes near 2^256.
    function _window(Terms calldata t, uint256 period) private pure returns (uint256 from, uint256 to) {
        if ((t.periodSeconds == 0) == (t.periodMonths == 0) || period >= 2 ** 32) revert InvalidTerms();
        unchecked {
            uint256 start = t.start;
            if (t.periodSeconds != 0) {
                from = start + period * t.periodSeconds;
                return (from, from + t.periodSeconds);
            }
            (uint256 year, uint256 month, uint256 day) = _civilFromDays(start / DAY);
            uint256 timeOfDay = start % DAY;
            uint256 months = month - 1 + period * t.periodMonths;
            from = _monthDay(year, months, day) * DAY + timeOfDay;
            to = _monthDay(year, months + t.periodMonths, day) * DAY + timeOfDay;
        }
    }

    function _charge(Terms calldata t, bytes calldata signature, uint256 period, uint256 amount)
        private
        returns (uint256 fee)
    {
        bytes32 mandate = mandateId(t);
        uint256 state = _state[mandate];
        if (state == CANCELED) revert MandateCanceled();
        if (state > period) revert AlreadyCharged(period);
        // The first charge checks the signature; a later one finds the state the first wrote, which only a valid
        // signature over these very terms (their digest is the key) could have written.
        if (state == 0) {
            // A cap below 2^128 keeps the fee's product below 2^142 (see below), checked once as the rest.
            if (
                t.feeBps > BPS_DENOMINATOR || t.cap >= 2 ** 128 || t.merchant == address(0)
                    || t.treasury == address(0)
            ) {
                revert InvalidTerms();
            }
            if (!SignatureChecker.isValidSignatureNow(t.customer, mandate, signature)) revert InvalidSignature();
        }
        if (amount == 0) revert ZeroAmount();
        if (amount > t.cap) revert AmountAboveCap(amount, t.cap);
        if (t.periods != 0 && period >= t.periods) revert TermsEnded();
        if (t.end != 0 && block.timestamp >= t.end) revert TermsEnded();
        (uint256 from, uint256 to) = _window(t, period);
        if (block.timestamp < from || block.timestamp >= to) revert NotCurrentPeriod(period, from, to);

        _state[mandate] = period + 1;
        // Rounded down: the treasury never takes more than its share, the merchant never less than theirs.
        // Unchecked: `amount` ≤ cap < 2^128 and `feeBps` ≤ 10 000 < 2^14 (both checked at the first charge, and later
        // charges are of the same terms: the state is keyed by their digest), so the product is below 2^142.
        unchecked {
            fee = (amount * t.feeBps) / BPS_DENOMINATOR;
        }
        IERC20 token = IERC20(t.token);
        token.safeTransferFrom(t.customer, t.merchant, amount - fee);
        if (fee > 0) token.safeTransferFrom(t.customer, t.treasury, fee);
        emit Charged(mandate, period, amount, fee);
    }

    /// @dev The day (since 1970-01-01) `months` months after January of `year`, on day `day` clamped to that
    /// month's length: the same calendar as Paylink's subscriptions (domain/subscriptionPeriods.ts).
    function _monthDay(uint256 year, uint256 months, uint256 day) private pure returns (uint256) {
        unchecked {
            uint256 y = year + months / 12;
            uint256 m = (months % 12) + 1;
            uint256 last = _daysInMonth(y, m);
            return _daysFromCivil(y, m, day < last ? day : last);
        }
    }

    /// @dev Howard Hinnant's `civil_from_days`, for days since 1970-01-01 (never negative here).
    function _civilFromDays(uint256 z) private pure returns (uint256 year, uint256 month, uint256 day) {
        unchecked {
            z += 719_468;
            uint256 era = z / 146_097;
            uint256 doe = z - era * 146_097;
            uint256 yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
            uint256 doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
            uint256 mp = (5 * doy + 2) / 153;
            day = doy - (153 * mp + 2) / 5 + 1;
            month = mp < 10 ? mp + 3 : mp - 9;
            year = yoe + era * 400 + (month <= 2 ? 1 : 0);
        }
    }

    /// @dev Howard Hinnant's `days_from_civil`, for dates from 1970 on.
    function _daysFromCivil(uint256 year, uint256 month, uint256 day) private pure returns (uint256) {
        unchecked {
            if (month <= 2) year -= 1;
            uint256 era = year / 400;
            uint256 yoe = year - era * 400;
            uint256 doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
            uint256 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
            return era * 146_097 + doe - 719_468;
        }
    }

    function _daysInMonth(uint256 year, uint256 month) private pure returns (uint256) {
        if (month == 2) return (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
        if (month == 4 || month == 6 || month == 9 || month == 11) return 30;
        return 31;
    }
}
