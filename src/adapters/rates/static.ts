import { type Decimal, parseDecimal } from '../../domain/decimal.ts';
import type { RateSource } from './rateSource.ts';

/**
 * A fixed table of USDC per one unit (`PAYLINK_RATES=static:EUR=1.08,CAD=0.73`), for the sandbox and tests.
 * Always fresh. USD defaults to 1 unless the table says otherwise.
 */
export function staticSource(usdcPerUnitText: Readonly<Record<string, string>>, now: () => Date): RateSource {
  const usdcPerUnit = new Map<string, Decimal>([['USD', { units: 1n, scale: 0 }]]);
  for (const [code, text] of Object.entries(usdcPerUnitText)) {
    const parsed = parseDecimal(text);
    if (typeof parsed === 'string' || parsed.units <= 0n)
      throw new Error(`static rate for ${code} is not positive`);
    usdcPerUnit.set(code.toUpperCase(), parsed);
  }
  return {
    name: 'static',
    fetchTable: async () => ({ usdcPerUnit, observedAt: now() }),
  };
}
