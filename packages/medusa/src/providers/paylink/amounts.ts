/**
 * Medusa hands the provider amounts in major units (25 = $25.00) as a number, a string, a BigNumber or its raw
 * `{ value, precision }`. Paylink takes exact decimal strings. The conversion works on the decimal text only,
 * never on a float, so 0.1 + 0.2 style errors cannot reach a price.
 */

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i;

/** The amount as a plain decimal string ("25", "19.9"), or undefined when it is not a finite decimal. */
export function decimalText(amount: unknown): string | undefined {
  const text = rawText(amount);
  if (text === undefined) return undefined;
  const match = DECIMAL.exec(text.trim());
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  // Shift the decimal point by the exponent on the digits themselves (bignumber.js writes 1e-7 for 0.0000001).
  const digits = `${whole}${fraction}`;
  const point = whole.length + Number(exponent);
  const padded = point <= 0 ? `${'0'.repeat(1 - point)}${digits}` : digits.padEnd(point, '0');
  const at = point <= 0 ? 1 : point;
  const integer = padded.slice(0, at).replace(/^0+(?=\d)/, '');
  const decimals = padded.slice(at).replace(/0+$/, '');
  const value = decimals ? `${integer}.${decimals}` : integer;
  return sign && /[1-9]/.test(value) ? `-${value}` : value;
}

function rawText(amount: unknown): string | undefined {
  if (typeof amount === 'string') return amount;
  if (typeof amount === 'number') return Number.isFinite(amount) ? String(amount) : undefined;
  if (typeof amount === 'bigint') return amount.toString();
  if (typeof amount === 'object' && amount !== null) {
    // Medusa's BigNumber keeps the exact text in `raw.value`; a raw value is `{ value, precision }`.
    const raw = (amount as { raw?: { value?: unknown } }).raw;
    if (raw && (typeof raw.value === 'string' || typeof raw.value === 'number')) return rawText(raw.value);
    const value = (amount as { value?: unknown }).value;
    if (typeof value === 'string' || typeof value === 'number') return rawText(value);
  }
  return undefined;
}

/** Whether two decimal strings are the same amount ("25" and "25.00"). */
export function sameAmount(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && decimalText(a) === decimalText(b);
}
