import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findCurrency, USDC } from './currencies.ts';
import { type Money, parseAmount } from './money.ts';
import { formatRate, ONE, quote, RATE_SCALE } from './quote.ts';

const EUR = findCurrency('EUR')!;
const JPY = findCurrency('JPY')!;
const KWD = findCurrency('KWD')!;

describe('quote', () => {
  it('rounds fiat up to the cent and floors the commission', () => {
    const q = quote(parseAmount('amount', '100.10', EUR), { units: 108000000n, scale: RATE_SCALE }, 150);
    expect(q.usdcBaseUnits).toBe(108_110_000n); // 108.108 → 108.11
    expect(q.commissionBaseUnits).toBe(1_621_650n); // 1.5% of 108.11
    expect(q.merchantShareBaseUnits).toBe(106_488_350n);
  });

  it('prices USDC exactly at a rate of one', () => {
    const q = quote(parseAmount('amount', '0.000001', USDC), ONE, 9999);
    expect(q.usdcBaseUnits).toBe(1n);
    expect(q.commissionBaseUnits).toBe(0n);
    expect(q.merchantShareBaseUnits).toBe(1n);
  });

  const fiat = fc.constantFrom(EUR, JPY, KWD);
  const money = fiat.chain((currency) =>
    fc.bigInt({ min: 1n, max: 10n ** 12n }).map((minorUnits): Money => ({ currency, minorUnits })),
  );
  const rate = fc.bigInt({ min: 1n, max: 10n ** 12n }).map((units) => ({ units, scale: RATE_SCALE }));
  const bps = fc.integer({ min: 0, max: 10_000 });

  it('splits exactly: merchant_will_receive + commission = usdc_amount, both non-negative', () => {
    fc.assert(
      fc.property(money, rate, bps, (amount, r, commissionBps) => {
        const q = quote(amount, r, commissionBps);
        expect(q.merchantShareBaseUnits + q.commissionBaseUnits).toBe(q.usdcBaseUnits);
        expect(q.commissionBaseUnits >= 0n && q.merchantShareBaseUnits >= 0n).toBe(true);
        // Commission is exactly what the forwarder contract takes: floor(amount × bps / 10000).
        expect(q.commissionBaseUnits).toBe((q.usdcBaseUnits * BigInt(commissionBps)) / 10_000n);
      }),
    );
  });

  it('never rounds against the merchant: the USDC asked covers the exact price, by less than a cent', () => {
    fc.assert(
      fc.property(money, rate, (amount, r) => {
        const q = quote(amount, r, 0);
        // exact price in base units × 10^(minor + RATE_SCALE) = minorUnits × rate × 10^6
        const exactScaled = amount.minorUnits * r.units * 10n ** 6n;
        const askedScaled = q.usdcBaseUnits * 10n ** BigInt(amount.currency.minorUnits + RATE_SCALE);
        const cent = 10_000n * 10n ** BigInt(amount.currency.minorUnits + RATE_SCALE);
        expect(askedScaled >= exactScaled).toBe(true);
        expect(askedScaled - exactScaled < cent).toBe(true);
        expect(q.usdcBaseUnits % 10_000n).toBe(0n); // whole cents
      }),
    );
  });
});

describe('quote refuses what cannot be priced', () => {
  const eur: Money = { currency: findCurrency('EUR')!, minorUnits: 10_000n };

  it('refuses a rate of zero or below', () => {
    for (const units of [0n, -1n]) {
      expect(() => quote(eur, { units, scale: RATE_SCALE }, 0)).toThrow(
        new RangeError('rate must be positive'),
      );
    }
  });

  it('prices USDC only at exactly 1, however that 1 is written', () => {
    const usdc: Money = { currency: USDC, minorUnits: 1_000_000n };
    expect(quote(usdc, { units: 100_000_000n, scale: 8 }, 0).usdcBaseUnits).toBe(1_000_000n);
    expect(() => quote(usdc, { units: 2n, scale: 0 }, 0)).toThrow(
      new RangeError('USDC converts at exactly 1'),
    );
  });

  it('never splits into a negative share', () => {
    // parseAmount refuses such amounts; quote checks again rather than trusting every caller.
    const negative: Money = { currency: USDC, minorUnits: -100n };
    expect(() => quote(negative, ONE, 0)).toThrow('quote split went negative');
    expect(() => quote(negative, ONE, 10_000)).toThrow('quote split went negative');
  });
});

describe('formatRate', () => {
  it('writes a rate as a plain decimal, without trailing zeros', () => {
    expect(formatRate({ units: 108n, scale: 2 })).toBe('1.08');
    expect(formatRate({ units: 1_082_500n, scale: 6 })).toBe('1.0825');
    expect(formatRate({ units: 1n, scale: 0 })).toBe('1');
  });
});
