import { describe, expect, it } from 'vitest';
import { findCurrency, USDC } from '../../domain/currencies.ts';
import { parsePrice } from '../../domain/money.ts';
import type { AgreedRate } from '../../domain/rates.ts';
import { priceAt, rateFor } from './quoteAmount.ts';

const NOW = new Date('2026-11-25T12:00:00Z');
const OBSERVED = new Date('2026-11-25T11:59:30Z');
const EUR = findCurrency('EUR')!;
const market: AgreedRate = {
  usdcPerUnit: { units: 108n, scale: 2 },
  sources: ['coinbase', 'coingecko'],
  observedAt: OBSERVED,
};
const deps = (maxAmountBaseUnits = 10n ** 12n) => ({ clock: { now: () => NOW }, maxAmountBaseUnits });
const never = { usdcPerUnit: () => Promise.reject(new Error('USDC needs no market rate')) };

describe('pricing at an agreed rate', () => {
  it('prices at a market rate as observed, naming every source that agreed', () => {
    const locked = priceAt(deps(), parsePrice('100.50', 'EUR'), market, 0);
    expect(locked).toEqual({
      quote: expect.objectContaining({ usdcBaseUnits: 108_540_000n }),
      rateSource: 'coinbase+coingecko',
      rateObservedAt: OBSERVED,
    });
  });

  it('prices USDC one for one, from no market, observed now', async () => {
    const rate = await rateFor({ rates: never }, USDC);
    const locked = priceAt(deps(), parsePrice('12.345678', 'USDC'), rate, 0);
    expect(locked.quote.usdcBaseUnits).toBe(12_345_678n);
    expect(locked.rateSource).toBe('fixed');
    expect(locked.rateObservedAt).toEqual(NOW);
  });

  it('accepts exactly the maximum and refuses one base unit above it, saying the maximum', () => {
    const amount = parsePrice('100.50', 'EUR'); // 108.54 USDC at 1.08
    expect(priceAt(deps(108_540_000n), amount, market, 0).quote.usdcBaseUnits).toBe(108_540_000n);
    expect(() => priceAt(deps(108_539_999n), amount, market, 0)).toThrow(
      expect.objectContaining({
        field: 'amount',
        message: 'amount: must be at most the equivalent of 108.539999 USDC',
      }),
    );
  });

  it('refuses an amount that prices to nothing', () => {
    expect(() => priceAt(deps(), { currency: EUR, minorUnits: 0n }, market, 0)).toThrow(
      expect.objectContaining({ field: 'amount', message: 'amount: is too small to price in USDC' }),
    );
  });
});
