import { type Currency, findCurrency, USDC } from './currencies.ts';
import { type Decimal, exactAtScale, formatDecimal, parseDecimal, trimTrailingZeros } from './decimal.ts';
import { checkEvery, ValidationError } from './errors.ts';

/** An amount of one currency, exact, in that currency's minor units (USDC: 6 decimals, i.e. base units). */
export interface Money {
  readonly currency: Currency;
  readonly minorUnits: bigint;
}

/** USDC has 6 decimals on Polygon; all USDC amounts in the service are integers of this unit. */
export const USDC_DECIMALS = 6;
const BPS_DENOMINATOR = 10_000n;

/**
 * Reads a currency code sent by a client. Unknown codes are a validation error, not a rate problem:
 * the caller can fix them.
 */
export function parseCurrency(field: string, input: unknown): Currency {
  if (typeof input !== 'string' || input.trim() === '')
    throw new ValidationError(field, 'must be a currency code');
  const currency = findCurrency(input.trim());
  if (!currency) throw new ValidationError(field, `unsupported currency "${input.trim().slice(0, 12)}"`);
  return currency;
}

/**
 * Reads an amount sent by a client — the exact source text of a JSON number, or a numeric string — in the
 * given currency. Refused: non-numbers, zero and below, more decimals than the currency has, too many digits.
 */
export function parseAmount(field: string, input: string, currency: Currency): Money {
  return amountIn(field, parsePositiveDecimal(field, input), currency);
}

/** A decimal already read as `currency`'s minor units, refused when it has more decimal places than it allows. */
export function amountIn(field: string, parsed: Decimal, currency: Currency): Money {
  const minorUnits = exactAtScale(parsed, currency.minorUnits);
  if (minorUnits === undefined) {
    const places = currency.minorUnits;
    throw new ValidationError(
      field,
      `${currency.code} allows at most ${places} decimal place${places === 1 ? '' : 's'}`,
    );
  }
  return { currency, minorUnits };
}

/**
 * Reads an amount sent by a client as a positive decimal, whatever its currency: what can be checked of an
 * amount before its currency is known.
 */
export function parsePositiveDecimal(field: string, input: string): Decimal {
  const parsed = parseDecimal(input.trim());
  if (parsed === 'not_a_number') throw new ValidationError(field, 'must be a decimal number');
  if (parsed === 'too_many_digits') throw new ValidationError(field, 'has too many digits');
  if (parsed.units <= 0n) throw new ValidationError(field, 'must be greater than 0');
  return parsed;
}

/**
 * An amount in a currency, both sent by a client (fields `amount` and `currency`): both are checked, so an
 * answer names each that is wrong; the amount's decimal places are checked once the currency is known.
 */
export function parsePrice(amount: string, currency: unknown): Money {
  const [, parsedCurrency] = checkEvery<[Decimal, Currency]>([
    () => parsePositiveDecimal('amount', amount),
    () => parseCurrency('currency', currency),
  ]);
  return parseAmount('amount', amount, parsedCurrency);
}

function moneyAsDecimal(money: Money): Decimal {
  return { units: money.minorUnits, scale: money.currency.minorUnits };
}

/** "100.10" for USD, "500" for JPY, "12.50" for USDC: the currency's own precision (USDC: 2 to 6 places). */
export function formatMoney(money: Money): string {
  if (money.currency.code === USDC.code) return formatUsdc(money.minorUnits);
  return formatDecimal(moneyAsDecimal(money), money.currency.minorUnits);
}

/** A USDC amount in base units as a decimal string with at least 2 places ("97.5" → "97.50"). */
export function formatUsdc(baseUnits: bigint): string {
  return formatDecimal({ units: baseUnits, scale: USDC_DECIMALS }, 2);
}

/** Parses a USDC decimal string (at most 6 places) into base units; undefined if it is not one. */
export function parseUsdc(text: string): bigint | undefined {
  const parsed = parseDecimal(text);
  if (typeof parsed === 'string' || parsed.units < 0n) return undefined;
  return exactAtScale(trimTrailingZeros(parsed), USDC_DECIMALS);
}

/** floor(amount × bps / 10000): what the forwarder contract sends to the treasury. */
export function commissionOf(usdcBaseUnits: bigint, commissionBps: number): bigint {
  assertBps(commissionBps);
  return (usdcBaseUnits * BigInt(commissionBps)) / BPS_DENOMINATOR;
}

export function assertBps(bps: number): void {
  if (!Number.isInteger(bps) || bps < 0 || bps > 10_000) throw new RangeError(`invalid basis points: ${bps}`);
}
