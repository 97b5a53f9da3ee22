import { isFiat } from './currencies.ts';
import { type Decimal, divide, formatDecimal } from './decimal.ts';
import { commissionOf, type Money, USDC_DECIMALS } from './money.ts';

/** How many decimals a stored exchange rate keeps. The quote is computed from exactly this rounded rate. */
export const RATE_SCALE = 8;
/** Fiat prices convert to USDC rounded up to the cent, so the merchant never receives less than the price. */
const FIAT_USDC_SCALE = 2;

export interface Quote {
  readonly amount: Money;
  /** USDC per one unit of `amount.currency`, at RATE_SCALE (exactly 1 for USDC). */
  readonly rate: Decimal;
  readonly usdcBaseUnits: bigint;
  readonly commissionBps: number;
  readonly commissionBaseUnits: bigint;
  readonly merchantShareBaseUnits: bigint;
}

export const ONE: Decimal = { units: 1n, scale: 0 };

/**
 * The USDC price of an amount at a rate, and how it splits between merchant and treasury.
 *
 * Fiat: usdc = ceil_to_cent(amount × rate). USDC: exact. commission = floor(usdc × bps / 10000), the same
 * formula as the forwarder contract, so an exact payment splits on chain exactly as quoted.
 */
export function quote(amount: Money, rate: Decimal, commissionBps: number): Quote {
  if (rate.units <= 0n) throw new RangeError('rate must be positive');
  let usdcBaseUnits: bigint;
  if (isFiat(amount.currency)) {
    // amount × rate has (minorUnits + rate.scale) decimals; round up to cents, then widen to 6 decimals.
    const product = amount.minorUnits * rate.units;
    const productScale = amount.currency.minorUnits + rate.scale;
    const cents = divide(product, 10n ** BigInt(productScale - FIAT_USDC_SCALE), 'up');
    usdcBaseUnits = cents * 10n ** BigInt(USDC_DECIMALS - FIAT_USDC_SCALE);
  } else {
    if (rate.units !== 10n ** BigInt(rate.scale)) throw new RangeError('USDC converts at exactly 1');
    usdcBaseUnits = amount.minorUnits;
  }
  const commissionBaseUnits = commissionOf(usdcBaseUnits, commissionBps);
  const merchantShareBaseUnits = usdcBaseUnits - commissionBaseUnits;
  // Invariants: the split is exact and nobody gets a negative share.
  if (commissionBaseUnits < 0n || merchantShareBaseUnits < 0n) throw new Error('quote split went negative');
  if (commissionBaseUnits + merchantShareBaseUnits !== usdcBaseUnits)
    throw new Error('quote split is not exact');
  return { amount, rate, usdcBaseUnits, commissionBps, commissionBaseUnits, merchantShareBaseUnits };
}

export function formatRate(rate: Decimal): string {
  return formatDecimal(rate);
}
