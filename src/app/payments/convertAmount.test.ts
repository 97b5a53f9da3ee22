import { describe, expect, it } from 'vitest';
import { formatUsdc } from '../../domain/money.ts';
import type { AgreedRate } from '../../domain/rates.ts';
import { rememberingConversions } from './convertAmount.ts';

const rate = (text: string): AgreedRate => {
  const [whole, fraction = ''] = text.split('.');
  return {
    usdcPerUnit: { units: BigInt(`${whole}${fraction}`), scale: fraction.length },
    sources: ['static'],
    observedAt: new Date('2026-11-23T00:00:00Z'),
  };
};

describe('conversions, remembered per agreed rate', () => {
  it('makes each answer once per amount, currency and rate object, and again at a new rate', async () => {
    let current = rate('1.08');
    let made = 0;
    const convert = rememberingConversions(
      {
        rates: { usdcPerUnit: async () => current },
        clock: { now: () => new Date() },
        maxAmountBaseUnits: 10n ** 12n,
      },
      ({ quote }) => {
        made += 1;
        return formatUsdc(quote.usdcBaseUnits);
      },
    );
    expect(await convert({ amount: '100.10', currency: 'EUR' })).toBe('108.11');
    // The same amount written otherwise is the same question.
    expect(await convert({ amount: '100.1', currency: 'eur' })).toBe('108.11');
    expect(made).toBe(1);
    expect(await convert({ amount: '1', currency: 'USDC' })).toBe('1.00');
    expect(made).toBe(2);
    current = rate('1.10');
    expect(await convert({ amount: '100.10', currency: 'EUR' })).toBe('110.11');
    expect(made).toBe(3);
  });

  it('keeps an answer per amount at one rate, and forgets them all past 1000 answers at that rate', async () => {
    const atOneRate = rate('1.08');
    let made = 0;
    const convert = rememberingConversions(
      {
        rates: { usdcPerUnit: async () => atOneRate },
        clock: { now: () => new Date() },
        maxAmountBaseUnits: 10n ** 12n,
      },
      ({ quote }) => {
        made += 1;
        return formatUsdc(quote.usdcBaseUnits);
      },
    );
    expect(await convert({ amount: '100.50', currency: 'EUR' })).toBe('108.54');
    expect(await convert({ amount: '200.50', currency: 'EUR' })).toBe('216.54');
    // Both are kept: asking either again makes nothing.
    expect(await convert({ amount: '100.50', currency: 'EUR' })).toBe('108.54');
    expect(made).toBe(2);
    for (let amount = 1; amount <= 998; amount += 1)
      await convert({ amount: String(amount), currency: 'EUR' });
    expect(made).toBe(1000);
    // 1000 answers kept; the next new one is made, and the others are forgotten to make room.
    expect(await convert({ amount: '100.50', currency: 'EUR' })).toBe('108.54');
    expect(made).toBe(1000);
    await convert({ amount: '999', currency: 'EUR' });
    expect(made).toBe(1001);
    expect(await convert({ amount: '100.50', currency: 'EUR' })).toBe('108.54');
    expect(made).toBe(1002);
  });

  it('refuses bad input every time, remembering nothing of it', async () => {
    const convert = rememberingConversions(
      {
        rates: { usdcPerUnit: async () => rate('1') },
        clock: { now: () => new Date() },
        maxAmountBaseUnits: 10n ** 8n,
      },
      () => 'never',
    );
    for (let i = 0; i < 2; i += 1) {
      await expect(convert({ amount: '1.001', currency: 'USD' })).rejects.toMatchObject({ field: 'amount' });
      await expect(convert({ amount: '101', currency: 'USD' })).rejects.toMatchObject({ field: 'amount' });
      await expect(convert({ amount: '1', currency: 'XXX' })).rejects.toMatchObject({ field: 'currency' });
    }
  });
});
