import { compareDecimals, type Decimal, divide, roundToScale } from './decimal.ts';
import { RATE_SCALE } from './quote.ts';

/** One source's price for one currency: USDC per one unit of that currency, and when the source saw it. */
export interface RateObservation {
  readonly source: string;
  readonly usdcPerUnit: Decimal;
  readonly observedAt: Date;
}

export interface AgreedRate {
  readonly usdcPerUnit: Decimal;
  readonly sources: readonly string[];
  readonly observedAt: Date;
}

export type RateDisagreement =
  | { readonly reason: 'none_fresh' }
  | { readonly reason: 'diverged'; spreadBps: bigint };

/**
 * Market APIs quote the price of one USDC in the fiat currency (e.g. 0.9259 EUR); we need its inverse, USDC per
 * one unit of fiat, rounded half-up to RATE_SCALE decimals.
 */
export function invertPrice(fiatPerUsdc: Decimal): Decimal {
  if (fiatPerUsdc.units <= 0n) throw new RangeError('a price must be positive');
  // 1 / (u / 10^s) = 10^s / u; at RATE_SCALE decimals: 10^(s + RATE_SCALE) / u.
  const units = divide(10n ** BigInt(fiatPerUsdc.scale + RATE_SCALE), fiatPerUsdc.units, 'half-up');
  return { units, scale: RATE_SCALE };
}

/**
 * The median of the fresh observations, refused when none is fresh or when the highest and lowest differ by
 * more than `maxSpreadBps` of the lowest. With an even count the median is the mean of the middle two.
 */
export function agreeOnRate(
  observations: readonly RateObservation[],
  options: { now: Date; maxAgeMs: number; maxSpreadBps: number },
): AgreedRate | RateDisagreement {
  const oldest = options.now.getTime() - options.maxAgeMs;
  const fresh = observations
    .filter((o) => o.observedAt.getTime() >= oldest && o.usdcPerUnit.units > 0n)
    .map((o) => ({ ...o, usdcPerUnit: roundToScale(o.usdcPerUnit, RATE_SCALE, 'half-up') }))
    .sort((a, b) => compareDecimals(a.usdcPerUnit, b.usdcPerUnit));
  const lowest = fresh[0];
  const highest = fresh[fresh.length - 1];
  if (!lowest || !highest) return { reason: 'none_fresh' };
  const spread = highest.usdcPerUnit.units - lowest.usdcPerUnit.units;
  const spreadBps = divide(spread * 10_000n, lowest.usdcPerUnit.units, 'up');
  if (spreadBps > BigInt(options.maxSpreadBps)) return { reason: 'diverged', spreadBps };
  const middle = Math.floor(fresh.length / 2);
  const upper = fresh[middle]!.usdcPerUnit.units;
  const lower = fresh.length % 2 === 0 ? fresh[middle - 1]!.usdcPerUnit.units : upper;
  const median = divide(upper + lower, 2n, 'half-up');
  const observedAt = new Date(Math.min(...fresh.map((o) => o.observedAt.getTime())));
  return {
    usdcPerUnit: { units: median, scale: RATE_SCALE },
    sources: fresh.map((o) => o.source),
    observedAt,
  };
}
