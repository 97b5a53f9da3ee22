/**
 * A subscription's calendar at its edges: month ends, leap years, a period's first and last millisecond. A start
 * counted from the previous period instead of the anchor, or a comparison turned the other way, fails one.
 */
import { describe, expect, it } from 'vitest';
import { addIntervals, type Interval, periodAt, periodEnd, periodStart } from './subscriptionPeriods.ts';

const monthly: Interval = { unit: 'month', count: 1 };
const at = (text: string) => new Date(text);
const iso = (date: Date) => date.toISOString();

describe('months and years keep the anchor’s day, clamped to a shorter month', () => {
  it.each([
    ['2027-01-31T10:00:00.000Z', 1, '2027-02-28T10:00:00.000Z'], // no Feb 31, no Mar 3
    ['2028-01-31T10:00:00.000Z', 1, '2028-02-29T10:00:00.000Z'], // leap year
    ['2027-01-31T10:00:00.000Z', 2, '2027-03-31T10:00:00.000Z'], // from the anchor: back to the 31st
    ['2027-01-31T10:00:00.000Z', 3, '2027-04-30T10:00:00.000Z'],
    ['2027-08-31T23:59:59.999Z', 1, '2027-09-30T23:59:59.999Z'], // time of day kept to the millisecond
    ['2027-12-15T00:00:00.000Z', 1, '2028-01-15T00:00:00.000Z'], // across a year
    ['2027-11-30T00:00:00.000Z', 3, '2028-02-29T00:00:00.000Z'],
  ])('%s plus %s month(s) is %s', (anchor, months, expected) => {
    expect(iso(addIntervals(at(anchor), monthly, months))).toBe(expected);
  });

  it('Feb 29 plus a year is Feb 28, plus four years Feb 29 again', () => {
    const yearly: Interval = { unit: 'year', count: 1 };
    expect(iso(addIntervals(at('2028-02-29T12:00:00Z'), yearly, 1))).toBe('2029-02-28T12:00:00.000Z');
    expect(iso(addIntervals(at('2028-02-29T12:00:00Z'), yearly, 4))).toBe('2032-02-29T12:00:00.000Z');
  });

  it('a quarterly plan is three months a period', () => {
    const quarterly: Interval = { unit: 'month', count: 3 };
    expect(iso(periodStart(at('2027-01-31T00:00:00Z'), quarterly, 2))).toBe('2027-04-30T00:00:00.000Z');
    expect(iso(periodStart(at('2027-01-31T00:00:00Z'), quarterly, 5))).toBe('2028-01-31T00:00:00.000Z');
  });

  it('days and weeks are 24-hour days', () => {
    expect(iso(addIntervals(at('2027-03-27T12:00:00Z'), { unit: 'day', count: 1 }, 2))).toBe(
      '2027-03-29T12:00:00.000Z',
    );
    expect(iso(addIntervals(at('2027-03-27T12:00:00Z'), { unit: 'week', count: 2 }, 1))).toBe(
      '2027-04-10T12:00:00.000Z',
    );
  });
});

describe('the period a moment falls in', () => {
  const anchor = at('2027-01-31T10:00:00Z');
  const secondStart = periodStart(anchor, monthly, 2); // Feb 28, 10:00
  const ms = (date: Date, delta: number) => new Date(date.getTime() + delta);

  it('is 0 before the anchor and 1 at the anchor itself', () => {
    expect(periodAt(anchor, monthly, ms(anchor, -1))).toBe(0);
    expect(periodAt(anchor, monthly, anchor)).toBe(1);
  });

  it('changes exactly at a period’s end, which is the next one’s start', () => {
    expect(periodEnd(anchor, monthly, 1)).toEqual(secondStart);
    expect(periodAt(anchor, monthly, ms(secondStart, -1))).toBe(1);
    expect(periodAt(anchor, monthly, secondStart)).toBe(2);
    // March 28 is past the day of February's start but still period 2: Mar 31 starts the third.
    expect(periodAt(anchor, monthly, at('2027-03-28T10:00:00Z'))).toBe(2);
    expect(periodAt(anchor, monthly, at('2027-03-31T09:59:59.999Z'))).toBe(2);
    expect(periodAt(anchor, monthly, at('2027-03-31T10:00:00Z'))).toBe(3);
  });

  it('agrees with the starts for every day of four years, monthly and weekly', () => {
    const wrong: string[] = [];
    for (const interval of [
      monthly,
      { unit: 'week', count: 1 } as const,
      { unit: 'year', count: 1 } as const,
    ]) {
      for (let day = 0; day < 4 * 366; day += 1) {
        const moment = ms(anchor, day * 86_400_000 + 3_600_000);
        const period = periodAt(anchor, interval, moment);
        const inside =
          periodStart(anchor, interval, period).getTime() <= moment.getTime() &&
          periodEnd(anchor, interval, period).getTime() > moment.getTime();
        if (!inside) wrong.push(`${interval.unit} ${iso(moment)}: ${period}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('refuses period 0 or a fraction: the first period is 1', () => {
    expect(() => periodStart(anchor, monthly, 0)).toThrow(RangeError);
    expect(() => periodStart(anchor, monthly, 1.5)).toThrow(RangeError);
  });
});
