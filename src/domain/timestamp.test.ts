import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTimestamp } from './timestamp.ts';

/** 0000-01-01T00:00:00.000Z and 10000-01-01T00:00:00.000Z: the years it formats itself. */
const FOUR_DIGIT_YEARS = { min: -62_167_219_200_000, max: 253_402_300_799_999 };

describe('isoTimestamp', () => {
  it('is toISOString for any time of the four-digit years', () => {
    fc.assert(
      fc.property(fc.integer(FOUR_DIGIT_YEARS), (time) => {
        const date = new Date(time);
        expect(isoTimestamp(date)).toBe(date.toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('is toISOString for any time a Date can hold', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (time) => {
        const date = new Date(time);
        expect(isoTimestamp(date)).toBe(date.toISOString());
      }),
      { numRuns: 2_000 },
    );
  });

  it.each([
    '0009-12-31T23:59:59.009Z',
    '0010-01-01T00:00:00.010Z',
    '0099-12-31T23:59:59.099Z',
    '0100-01-01T00:00:00.100Z',
    '0999-12-31T23:59:59.999Z',
    '1000-01-01T00:00:00.000Z',
  ])('pads each field where it gains a digit: %s', (text) => {
    expect(isoTimestamp(new Date(text))).toBe(text);
  });

  it.each([
    ['the first millisecond of year 0', '0000-01-01T00:00:00.000Z'],
    ['the last millisecond before it', '-000001-12-31T23:59:59.999Z'],
    ['the last millisecond of year 9999', '9999-12-31T23:59:59.999Z'],
    ['the first of year 10000', '+010000-01-01T00:00:00.000Z'],
    ['a leap day', '2024-02-29T12:34:56.789Z'],
    ['the day after a leap day', '2024-03-01T00:00:00.000Z'],
    ['a century that is no leap year', '2100-02-28T23:59:59.999Z'],
    ['one that is', '2000-02-29T00:00:00.001Z'],
    ['the epoch', '1970-01-01T00:00:00.000Z'],
    ['before the epoch', '1969-12-31T23:59:59.999Z'],
  ])('formats %s as toISOString does', (_case, text) => {
    expect(isoTimestamp(new Date(text))).toBe(text);
  });

  it('refuses an invalid date as toISOString does', () => {
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});
