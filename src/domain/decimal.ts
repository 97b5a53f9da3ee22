/**
 * Exact decimals on bigint: value = units / 10^scale.
 *
 * Written by hand rather than taken from a decimal library because money here needs only parse, rescale,
 * multiply, divide and format, each with an explicit rounding direction chosen at the call site — and a
 * bigint pair makes "a JS number never holds money" checkable by the type system (docs/decisions/0002).
 */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

export type Rounding = 'up' | 'down' | 'half-up';

/** The most significant digits we accept in an input; a longer number is refused, never rounded. */
const MAX_SIGNIFICANT_DIGITS = 30;
const MAX_SCALE = 36;

// JSON's number grammar, which is also what we accept inside strings.
const NUMBER_PATTERN = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

export type DecimalParseFailure = 'not_a_number' | 'too_many_digits';

/**
 * Parses a decimal in JSON number syntax exactly ("100.10", "1e2", "-0.5"). Trailing fractional zeros are
 * kept: "100.10" has scale 2.
 */
export function parseDecimal(text: string): Decimal | DecimalParseFailure {
  const match = NUMBER_PATTERN.exec(text);
  if (!match) return 'not_a_number';
  const [, sign = '', integer = '', fraction = '', exponentText = '0'] = match;
  if (exponentText.replace(/^[+-]?0*/, '').length > 3) return 'too_many_digits';
  const exponent = Number.parseInt(exponentText, 10);
  const digits = (integer + fraction).replace(/^0+(?=\d)/, '');
  if (digits.replace(/0+$/, '').length > MAX_SIGNIFICANT_DIGITS) return 'too_many_digits';
  let scale = fraction.length - exponent;
  let units = BigInt(sign + digits);
  if (scale < 0) {
    if (digits.length - scale > MAX_SIGNIFICANT_DIGITS + 1) return 'too_many_digits';
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  if (scale > MAX_SCALE) {
    const trimmed = trimTrailingZeros({ units, scale });
    if (trimmed.scale > MAX_SCALE) return 'too_many_digits';
    return trimmed;
  }
  return { units, scale };
}

/** The same value with the fewest fractional digits. */
export function trimTrailingZeros(value: Decimal): Decimal {
  let { units, scale } = value;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return { units, scale };
}

/** The value at `scale` fractional digits, or undefined when that would lose digits. */
export function exactAtScale(value: Decimal, scale: number): bigint | undefined {
  if (scale >= value.scale) return value.units * 10n ** BigInt(scale - value.scale);
  const divisor = 10n ** BigInt(value.scale - scale);
  return value.units % divisor === 0n ? value.units / divisor : undefined;
}

/** Integer division of non-negative numbers with the given rounding. */
export function divide(numerator: bigint, denominator: bigint, rounding: Rounding): bigint {
  if (denominator <= 0n || numerator < 0n) throw new RangeError('divide expects a >= 0 and b > 0');
  const quotient = numerator / denominator;
  const remainder = numerator % denominator;
  if (remainder === 0n) return quotient;
  switch (rounding) {
    case 'down':
      return quotient;
    case 'up':
      return quotient + 1n;
    case 'half-up':
      return remainder * 2n >= denominator ? quotient + 1n : quotient;
  }
}

/** Rescales a non-negative decimal to `scale` digits with the given rounding. */
export function roundToScale(value: Decimal, scale: number, rounding: Rounding): Decimal {
  if (scale >= value.scale) return { units: value.units * 10n ** BigInt(scale - value.scale), scale };
  return { units: divide(value.units, 10n ** BigInt(value.scale - scale), rounding), scale };
}

/** Formats with at least `minFractionDigits` digits after the point and no needless trailing zeros beyond. */
export function formatDecimal(value: Decimal, minFractionDigits = 0): string {
  const trimmed = trimTrailingZeros(value);
  const scale = Math.max(trimmed.scale, minFractionDigits);
  const units = trimmed.units * 10n ** BigInt(scale - trimmed.scale);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const integer = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  return `${negative ? '-' : ''}${integer}${scale > 0 ? `.${fraction}` : ''}`;
}

export function compareDecimals(a: Decimal, b: Decimal): number {
  const scale = Math.max(a.scale, b.scale);
  const left = a.units * 10n ** BigInt(scale - a.scale);
  const right = b.units * 10n ** BigInt(scale - b.scale);
  return left < right ? -1 : left > right ? 1 : 0;
}
