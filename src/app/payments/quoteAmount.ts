import { type Currency, USDC } from '../../domain/currencies.ts';
import { ValidationError } from '../../domain/errors.ts';
import { formatUsdc, type Money } from '../../domain/money.ts';
import { ONE, type Quote, quote } from '../../domain/quote.ts';
import type { AgreedRate } from '../../domain/rates.ts';
import type { Clock } from '../shared/ports.ts';
import type { ValueOrPromise } from '../shared/valueOrPromise.ts';
import type { RateProvider } from './ports.ts';

export interface QuoteAmountDeps {
  readonly rates: RateProvider;
  readonly clock: Clock;
  readonly maxAmountBaseUnits: bigint;
}

export interface LockedQuote {
  readonly quote: Quote;
  readonly rateSource: string;
  readonly rateObservedAt: Date;
}

/** USDC priced in USDC: one for one, from no source. */
const FIXED_USDC_RATE: AgreedRate = Object.freeze({
  usdcPerUnit: ONE,
  sources: Object.freeze(['fixed']),
  observedAt: new Date(0),
});

/**
 * The agreed rate for `currency` (the same object for as long as the rate provider keeps it: see
 * `rememberingConversions`), or the fixed one-for-one rate of USDC itself.
 */
export function rateFor(
  deps: Pick<QuoteAmountDeps, 'rates'>,
  currency: Currency,
): ValueOrPromise<AgreedRate> {
  return currency.code === USDC.code ? FIXED_USDC_RATE : deps.rates.usdcPerUnit(currency.code);
}

/**
 * Prices a validated amount (domain/money.ts `parsePrice`) in USDC at the agreed market rate, within the
 * configured maximum — the one path shared by conversion and payment creation, so both price alike.
 */
export function priceAt(
  deps: Pick<QuoteAmountDeps, 'clock' | 'maxAmountBaseUnits'>,
  amount: Money,
  rate: AgreedRate,
  commissionBps: number,
): LockedQuote {
  const fixed = rate === FIXED_USDC_RATE;
  const locked: LockedQuote = {
    quote: quote(amount, rate.usdcPerUnit, commissionBps),
    rateSource: rate.sources.join('+'),
    rateObservedAt: fixed ? deps.clock.now() : rate.observedAt,
  };
  if (locked.quote.usdcBaseUnits > deps.maxAmountBaseUnits) {
    throw new ValidationError(
      'amount',
      `must be at most the equivalent of ${formatUsdc(deps.maxAmountBaseUnits)} USDC`,
    );
  }
  if (locked.quote.usdcBaseUnits <= 0n) {
    throw new ValidationError('amount', 'is too small to price in USDC');
  }
  return locked;
}
