import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  clampRetryAfter,
  DEFAULT_RETRY_AFTER_BOUNDS,
  DEFAULT_RETRY_SCHEDULE_MS,
  jittered,
  parseRetryAfter,
  parseRetrySchedule,
  RETRY_JITTER,
} from './webhookRetry.ts';

const now = new Date('2026-11-21T12:00:00.000Z');

describe('retry schedule', () => {
  it('is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h after the immediate first attempt', () => {
    expect(parseRetrySchedule('5s,5m,30m,2h,5h,10h,14h,20h,24h')).toStrictEqual(DEFAULT_RETRY_SCHEDULE_MS);
  });

  it('refuses empty, zero, negative, unreadable and overlong schedules', () => {
    for (const text of ['', '0', '5s,,5m', '-5s', 'soon', Array(51).fill('1s').join(',')]) {
      expect(parseRetrySchedule(text), text).toBeUndefined();
    }
    expect(parseRetrySchedule(' 1s , 2s ')).toStrictEqual([1000, 2000]);
  });

  it('jitters each delay by at most ±10 %', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 * 86_400_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (delay, r) => {
          const value = jittered(delay, () => r);
          expect(value).toBeGreaterThanOrEqual(Math.floor(delay * (1 - RETRY_JITTER)));
          expect(value).toBeLessThanOrEqual(Math.ceil(delay * (1 + RETRY_JITTER)));
        },
      ),
    );
    expect(jittered(5_000, () => 0)).toBe(4_500);
    expect(jittered(5_000, () => 0.5)).toBe(5_000);
  });
});

describe('Retry-After', () => {
  it('reads delay-seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:10:00 GMT', now)).toBe(600_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    for (const text of [undefined, '', 'soon', '-5', '1.5', 'tomorrow', '99999999999']) {
      expect(parseRetryAfter(text, now), String(text)).toBeUndefined();
    }
  });

  it('is clamped between 5 s and 24 h', () => {
    expect(clampRetryAfter(0, DEFAULT_RETRY_AFTER_BOUNDS)).toBe(5_000);
    expect(clampRetryAfter(60_000, DEFAULT_RETRY_AFTER_BOUNDS)).toBe(60_000);
    expect(clampRetryAfter(30 * 86_400_000, DEFAULT_RETRY_AFTER_BOUNDS)).toBe(86_400_000);
  });
});

describe('retry settings, at their edges', () => {
  it('takes a schedule of one delay, and of up to MAX_RETRIES delays', () => {
    expect(parseRetrySchedule('5s')).toStrictEqual([5_000]);
    expect(parseRetrySchedule(Array(50).fill('1s').join(','))).toHaveLength(50);
    expect(parseRetrySchedule(Array(51).fill('1s').join(','))).toBeUndefined();
    expect(parseRetrySchedule('')).toBeUndefined();
  });

  it('reads Retry-After with spaces around it, and only a whole HTTP date', () => {
    const now = new Date('2026-10-21T07:28:00Z');
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfter(' Wed, 21 Oct 2026 07:30:00 GMT ', now)).toBe(120_000);
    // Date.parse would read both of these; neither is an HTTP date.
    expect(parseRetryAfter('Sun Wed, 21 Oct 2026 07:30:00 GMT', now)).toBeUndefined();
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:30:00 GMT+0100', now)).toBeUndefined();
  });
});
