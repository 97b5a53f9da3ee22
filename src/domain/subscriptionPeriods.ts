/**
 * A subscription's calendar (decision 0060): period n (1, 2, …) starts `n - 1` intervals after the anchor (the
 * end of the trial, or the start when there is none) and ends where period n + 1 starts. Every start is counted
 * from the anchor, never from the previous period, so a month-end anchor keeps its day: Jan 31 → Feb 28 (29 in
 * a leap year) → Mar 31, never drifting to the 28th. All in UTC; a day is 24 hours.
 */

export const INTERVAL_UNITS = ['day', 'week', 'month', 'year'] as const;
export type IntervalUnit = (typeof INTERVAL_UNITS)[number];

/** Every `count` `unit`s: `{ unit: 'month', count: 3 }` is quarterly. */
export interface Interval {
  readonly unit: IntervalUnit;
  readonly count: number;
}

/** The longest interval a plan may have, per unit: about three years whatever the unit. */
export const MAX_INTERVAL_COUNT: Readonly<Record<IntervalUnit, number>> = {
  day: 1_095,
  week: 156,
  month: 36,
  year: 3,
};

export const DAY_MS = 86_400_000;

const FIXED_UNIT_MS: Partial<Record<IntervalUnit, number>> = { day: DAY_MS, week: 7 * DAY_MS };
const MONTHS_PER_UNIT: Partial<Record<IntervalUnit, number>> = { month: 1, year: 12 };

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

/**
 * The anchor moved `intervals` whole intervals on. Months and years keep the anchor's day of the month and time
 * of day, clamped to the last day of a shorter month (Feb 29 + 1 year is Feb 28).
 */
export function addIntervals(anchor: Date, interval: Interval, intervals: number): Date {
  const fixed = FIXED_UNIT_MS[interval.unit];
  if (fixed !== undefined) return new Date(anchor.getTime() + fixed * interval.count * intervals);
  const months = (MONTHS_PER_UNIT[interval.unit] ?? 1) * interval.count * intervals;
  const target = anchor.getUTCMonth() + months;
  const year = anchor.getUTCFullYear() + Math.floor(target / 12);
  const month = ((target % 12) + 12) % 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, month));
  const timeOfDay =
    anchor.getTime() - Date.UTC(anchor.getUTCFullYear(), anchor.getUTCMonth(), anchor.getUTCDate());
  return new Date(Date.UTC(year, month, day) + timeOfDay);
}

/** When period `period` (1-based) starts, which is also when its payment is due. */
export function periodStart(anchor: Date, interval: Interval, period: number): Date {
  if (!Number.isSafeInteger(period) || period < 1) throw new RangeError(`bad period ${period}`);
  return addIntervals(anchor, interval, period - 1);
}

/** When period `period` ends: the start of the next one (itself no longer in the period). */
export function periodEnd(anchor: Date, interval: Interval, period: number): Date {
  return periodStart(anchor, interval, period + 1);
}

/**
 * The period `at` falls in: the n with start(n) ≤ at < start(n + 1); 0 before the anchor (the trial). A period's
 * start belongs to it, its end to the next one.
 */
export function periodAt(anchor: Date, interval: Interval, at: Date): number {
  const elapsed = at.getTime() - anchor.getTime();
  if (elapsed < 0) return 0;
  const fixed = FIXED_UNIT_MS[interval.unit];
  if (fixed !== undefined) return Math.floor(elapsed / (fixed * interval.count)) + 1;
  const monthsPerPeriod = (MONTHS_PER_UNIT[interval.unit] ?? 1) * interval.count;
  const months =
    (at.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (at.getUTCMonth() - anchor.getUTCMonth());
  // An estimate by calendar months, within one period of the truth (days and times of day left out), then fixed.
  let period = Math.max(1, Math.floor(months / monthsPerPeriod) + 1);
  while (period > 1 && periodStart(anchor, interval, period).getTime() > at.getTime()) period--;
  while (periodStart(anchor, interval, period + 1).getTime() <= at.getTime()) period++;
  return period;
}
