import { exactAtScale, formatDecimal, parseDecimal } from './decimal.ts';

/** "2.5" (percent, at most 2 decimals, 0–100) → 250 basis points; undefined when not such a percentage. */
export function percentToBps(percent: string): number | undefined {
  const parsed = parseDecimal(percent.trim());
  if (typeof parsed === 'string') return undefined;
  const bps = exactAtScale(parsed, 2);
  if (bps === undefined || bps < 0n || bps > 10_000n) return undefined;
  return Number(bps);
}

export function bpsToPercent(bps: number): string {
  return formatDecimal({ units: BigInt(bps), scale: 2 });
}
