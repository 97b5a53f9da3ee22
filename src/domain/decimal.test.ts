import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareDecimals,
  divide,
  exactAtScale,
  formatDecimal,
  parseDecimal,
  roundToScale,
  trimTrailingZeros,
} from './decimal.ts';

describe('parseDecimal', () => {
  it.each([
    ['100.10', { units: 10010n, scale: 2 }],
    ['1e2', { units: 100n, scale: 0 }],
    ['1.5E-3', { units: 15n, scale: 4 }],
    ['-0.5', { units: -5n, scale: 1 }],
    ['0', { units: 0n, scale: 0 }],
    ['12.3400', { units: 123400n, scale: 4 }],
  ])('reads %s exactly', (text, expected) => {
    expect(parseDecimal(text)).toStrictEqual(expected);
  });

  it.each(['', 'abc', '1.', '.5', '01', '1,5', '0x10', 'Infinity', 'NaN', '1e', '+1', ' 1', '١٢'])(
    'refuses %j as not a number',
    (text) => {
      expect(parseDecimal(text)).toBe('not_a_number');
    },
  );

  it('refuses too many digits instead of rounding', () => {
    expect(parseDecimal('9'.repeat(40))).toBe('too_many_digits');
    expect(parseDecimal('1e400')).toBe('too_many_digits');
    expect(parseDecimal('1e-400')).toBe('too_many_digits');
    expect(parseDecimal('1e99999999999')).toBe('too_many_digits');
    expect(parseDecimal('9'.repeat(30))).toStrictEqual({ units: BigInt('9'.repeat(30)), scale: 0 });
  });

  it('round-trips any decimal it formats', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }),
        fc.integer({ min: 0, max: 12 }),
        (units, scale) => {
          const text = formatDecimal({ units, scale });
          const parsed = parseDecimal(text);
          expect(parsed).not.toBeTypeOf('string');
          expect(exactAtScale(parsed as never, scale)).toBe(units);
        },
      ),
    );
  });
});

describe('divide', () => {
  it('rounds in the direction asked', () => {
    expect(divide(7n, 2n, 'down')).toBe(3n);
    expect(divide(7n, 2n, 'up')).toBe(4n);
    expect(divide(7n, 2n, 'half-up')).toBe(4n);
    expect(divide(5n, 3n, 'half-up')).toBe(2n);
    expect(divide(4n, 3n, 'half-up')).toBe(1n);
    expect(divide(6n, 3n, 'up')).toBe(2n);
  });

  it('never rounds up below the exact quotient, nor down above it', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        fc.bigInt({ min: 1n, max: 10n ** 18n }),
        (n, d) => {
          const down = divide(n, d, 'down');
          const up = divide(n, d, 'up');
          expect(down * d <= n).toBe(true);
          expect(up * d >= n).toBe(true);
          expect(up - down <= 1n).toBe(true);
        },
      ),
    );
  });
});

describe('formatting and rescaling', () => {
  it('formats with a minimum number of decimals and no trailing noise', () => {
    expect(formatDecimal({ units: 975n, scale: 1 }, 2)).toBe('97.50');
    expect(formatDecimal({ units: 97525n, scale: 3 }, 2)).toBe('97.525');
    expect(formatDecimal({ units: 5n, scale: 6 }, 2)).toBe('0.000005');
    expect(formatDecimal({ units: -5n, scale: 1 })).toBe('-0.5');
    expect(formatDecimal({ units: 100n, scale: 0 }, 0)).toBe('100');
  });

  it('rescales exactly or says it cannot', () => {
    expect(exactAtScale({ units: 12340n, scale: 3 }, 2)).toBe(1234n);
    expect(exactAtScale({ units: 12345n, scale: 3 }, 2)).toBeUndefined();
    expect(roundToScale({ units: 12345n, scale: 3 }, 2, 'up')).toStrictEqual({ units: 1235n, scale: 2 });
  });
});

describe('parseDecimal at its limits', () => {
  it('reads exponents written with leading zeros', () => {
    expect(parseDecimal('1e0001')).toStrictEqual({ units: 10n, scale: 0 });
    expect(parseDecimal('1e+00001')).toStrictEqual({ units: 10n, scale: 0 });
    expect(parseDecimal('1e-0001')).toStrictEqual({ units: 1n, scale: 1 });
  });

  it('refuses an exponent of more than 3 digits before looking further', () => {
    expect(parseDecimal('0e-100')).toStrictEqual({ units: 0n, scale: 0 });
    expect(parseDecimal('0e-1000')).toBe('too_many_digits');
  });

  it('counts significant digits only: leading zeros of a fraction and trailing zeros do not count', () => {
    expect(parseDecimal(`0.${'0'.repeat(35)}1`)).toStrictEqual({ units: 1n, scale: 36 });
    const thirtyThenZeros = `${'1'.repeat(30)}00`;
    expect(parseDecimal(thirtyThenZeros)).toStrictEqual({ units: BigInt(thirtyThenZeros), scale: 0 });
    // Zeros inside a number are significant.
    expect(parseDecimal(`100${'1'.repeat(29)}`)).toBe('too_many_digits');
  });

  it('takes up to 31 digits once an exponent is applied', () => {
    expect(parseDecimal('1e30')).toStrictEqual({ units: 10n ** 30n, scale: 0 });
    expect(parseDecimal('1e31')).toBe('too_many_digits');
  });

  it('keeps up to 36 decimals as written, and trims zeros past them', () => {
    expect(parseDecimal(`0.${'0'.repeat(34)}10`)).toStrictEqual({ units: 10n, scale: 36 });
    expect(parseDecimal(`0.${'0'.repeat(35)}10`)).toStrictEqual({ units: 1n, scale: 36 });
    expect(parseDecimal(`0.${'0'.repeat(36)}1`)).toBe('too_many_digits');
  });
});

describe('trimTrailingZeros', () => {
  it('trims fractional zeros only, never the integer’s', () => {
    expect(trimTrailingZeros({ units: 100n, scale: 0 })).toStrictEqual({ units: 100n, scale: 0 });
    expect(trimTrailingZeros({ units: 0n, scale: 0 })).toStrictEqual({ units: 0n, scale: 0 });
    expect(trimTrailingZeros({ units: 1200n, scale: 3 })).toStrictEqual({ units: 12n, scale: 1 });
  });
});

describe('divide and roundToScale guards', () => {
  it('refuses a negative numerator and a zero or negative denominator', () => {
    for (const [a, b] of [
      [1n, 0n],
      [1n, -1n],
      [-1n, 2n],
    ] as const) {
      expect(() => divide(a, b, 'down')).toThrow(new RangeError('divide expects a >= 0 and b > 0'));
    }
  });

  it('widens to a larger scale exactly', () => {
    expect(roundToScale({ units: 15n, scale: 1 }, 3, 'down')).toStrictEqual({ units: 1500n, scale: 3 });
    expect(roundToScale({ units: 15n, scale: 1 }, 1, 'up')).toStrictEqual({ units: 15n, scale: 1 });
  });
});

describe('compareDecimals', () => {
  it('compares values, whatever their scales', () => {
    expect(compareDecimals({ units: 15n, scale: 1 }, { units: 2n, scale: 0 })).toBe(-1);
    expect(compareDecimals({ units: 2n, scale: 0 }, { units: 15n, scale: 1 })).toBe(1);
    expect(compareDecimals({ units: 20n, scale: 1 }, { units: 2n, scale: 0 })).toBe(0);
    expect(compareDecimals({ units: 2n, scale: 0 }, { units: 200n, scale: 2 })).toBe(0);
    expect(compareDecimals({ units: 199n, scale: 2 }, { units: 2n, scale: 0 })).toBe(-1);
    expect(compareDecimals({ units: 201n, scale: 2 }, { units: 2n, scale: 0 })).toBe(1);
  });
});
