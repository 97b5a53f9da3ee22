import { describe, expect, it } from 'vitest';
import { type Currency, findCurrency, USDC } from './currencies.ts';
import { ValidationError } from './errors.ts';
import {
  assertBps,
  commissionOf,
  formatMoney,
  parseAmount,
  parseCurrency,
  parsePrice,
  parseUsdc,
} from './money.ts';

const EUR = findCurrency('EUR')!;
const JPY = findCurrency('JPY')!;

describe('parseCurrency', () => {
  it('finds a code written with spaces around it and in any case', () => {
    expect(parseCurrency('currency', ' eur ')).toBe(EUR);
    expect(parseCurrency('currency', 'usdc')).toBe(USDC);
  });

  it('refuses what is not a code, and names unknown codes (cut to 12 characters)', () => {
    expect(() => parseCurrency('currency', 42)).toThrow(
      new ValidationError('currency', 'must be a currency code'),
    );
    expect(() => parseCurrency('currency', '   ')).toThrow('currency: must be a currency code');
    expect(() => parseCurrency('currency', ' xxx ')).toThrow('currency: unsupported currency "xxx"');
    expect(() => parseCurrency('currency', ' ABCDEFGHIJKLMNOP ')).toThrow(
      'currency: unsupported currency "ABCDEFGHIJKL"',
    );
  });
});

describe('parseAmount', () => {
  it('reads an amount into the currency’s minor units, spaces around it ignored', () => {
    expect(parseAmount('amount', ' 100.10 ', EUR)).toStrictEqual({ currency: EUR, minorUnits: 10_010n });
    expect(parseAmount('amount', '1e3', JPY)).toStrictEqual({ currency: JPY, minorUnits: 1_000n });
  });

  it('says what is wrong with an amount it refuses', () => {
    expect(() => parseAmount('amount', 'ten', EUR)).toThrow('amount: must be a decimal number');
    expect(() => parseAmount('amount', '1e400', EUR)).toThrow('amount: has too many digits');
    expect(() => parseAmount('amount', '0', EUR)).toThrow('amount: must be greater than 0');
    expect(() => parseAmount('amount', '0.00', EUR)).toThrow('amount: must be greater than 0');
    expect(() => parseAmount('amount', '-1', EUR)).toThrow('amount: must be greater than 0');
    expect(() => parseAmount('amount', '1.001', EUR)).toThrow('amount: EUR allows at most 2 decimal places');
    expect(() => parseAmount('amount', '1.5', JPY)).toThrow('amount: JPY allows at most 0 decimal places');
    // No ISO currency has one decimal place today; the message still reads right for one that would.
    const oneDecimal: Currency = { code: 'ONE', minorUnits: 1 };
    expect(() => parseAmount('amount', '1.25', oneDecimal)).toThrow(
      /^amount: ONE allows at most 1 decimal place$/,
    );
  });
});

describe('formatMoney', () => {
  it('writes each currency at its own precision, USDC with 2 to 6 places', () => {
    expect(formatMoney({ currency: EUR, minorUnits: 10_010n })).toBe('100.10');
    expect(formatMoney({ currency: JPY, minorUnits: 500n })).toBe('500');
    expect(formatMoney({ currency: USDC, minorUnits: 97_500_000n })).toBe('97.50');
    expect(formatMoney({ currency: USDC, minorUnits: 1_234_567n })).toBe('1.234567');
  });
});

describe('parseUsdc', () => {
  it('reads USDC to base units, trailing zeros past 6 places allowed', () => {
    expect(parseUsdc('1.5')).toBe(1_500_000n);
    expect(parseUsdc('1.500000000')).toBe(1_500_000n);
    expect(parseUsdc('0')).toBe(0n);
  });

  it('refuses non-numbers, negative amounts and more than 6 places', () => {
    expect(parseUsdc('abc')).toBeUndefined();
    expect(parseUsdc('1e400')).toBeUndefined();
    expect(parseUsdc('-1')).toBeUndefined();
    expect(parseUsdc('1.0000001')).toBeUndefined();
  });
});

describe('commissionOf', () => {
  it('is floor(amount × bps / 10000), like the forwarder contract', () => {
    expect(commissionOf(1_000_000n, 250)).toBe(25_000n);
    expect(commissionOf(999n, 100)).toBe(9n);
    expect(commissionOf(1_000_000n, 10_000)).toBe(1_000_000n);
  });

  it('refuses basis points outside 0 to 10000 or not whole', () => {
    expect(() => assertBps(0)).not.toThrow();
    expect(() => assertBps(10_000)).not.toThrow();
    for (const bps of [-1, 10_001, 2.5, Number.NaN]) {
      expect(() => assertBps(bps)).toThrow(new RangeError(`invalid basis points: ${bps}`));
      expect(() => commissionOf(1n, bps)).toThrow(RangeError);
    }
  });
});

describe('parsePrice', () => {
  it('names both fields when the amount and the currency are both wrong', () => {
    let caught: unknown;
    try {
      parsePrice('ten', 'XXX');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).details?.map((d) => d.field)).toStrictEqual(['amount', 'currency']);
  });

  it('reads an amount at the precision of the currency given with it', () => {
    expect(parsePrice('100.10', 'EUR')).toMatchObject({ minorUnits: 10010n });
    expect(() => parsePrice('100.101', 'EUR')).toThrow(ValidationError);
  });
});
