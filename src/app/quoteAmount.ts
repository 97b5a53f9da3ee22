import { USDC } from '../domain/currencies.ts';
import { PaylinkError, ValidationError } from '../domain/errors.ts';
import { formatUsdc, parseAmount, parseCurrency } from '../domain/money.ts';
import { ONE, type Quote, quote } from '../domain/quote.ts';
import type { Clock, RateProvider } from './ports.ts';

export interface QuoteAmountDeps {
  readonly rates: RateProvider;
  readonly clock: Clock;
  readonly maxAmountBaseUnits: bigint;
}

export interface QuoteAmountInput {
  /** Exact text of the amount (a JSON number's source text or a numeric string). */
  readonly amount: string;
  readonly currency: string;
  readonly commissionBps: number;
}

export interface LockedQuote {
  readonly quote: Quote;
  readonly rateSource: string;
  readonly rateObservedAt: Date;
}

/**
 * Validates an amount in a currency and prices it in USDC at the agreed market rate — the one path shared by
 * conversion and payment creation, so both answer the same for the same input.
 */
export async function quoteAmount(deps: QuoteAmountDeps, input: QuoteAmountInput): Promise<LockedQuote> {
  const currency = parseCurrency('currency', input.currency);
  const amount = parseAmount('amount', input.amount, currency);
  let locked: LockedQuote;
  if (currency.code === USDC.code) {
    locked = {
      quote: quote(amount, ONE, input.commissionBps),
      rateSource: 'fixed',
      rateObservedAt: deps.clock.now(),
    };
  } else {
    const rate = await deps.rates.usdcPerUnit(currency.code);
    locked = {
      quote: quote(amount, rate.usdcPerUnit, input.commissionBps),
      rateSource: rate.sources.join('+'),
      rateObservedAt: rate.observedAt,
    };
  }
  if (locked.quote.usdcBaseUnits > deps.maxAmountBaseUnits) {
    throw new ValidationError(
      'amount',
      `must be at most the equivalent of ${formatUsdc(deps.maxAmountBaseUnits)} USDC`,
    );
  }
  if (locked.quote.usdcBaseUnits <= 0n) {
    throw new PaylinkError('VALIDATION_ERROR', 'amount: is too small to price in USDC', { field: 'amount' });
  }
  return locked;
}
