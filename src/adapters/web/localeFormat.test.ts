import { describe, expect, it } from 'vitest';
import {
  formatMoment,
  formatPriceAmount,
  formatRateValue,
  formatUsdcAmount,
  momentStyle,
} from './localeFormat.ts';

describe('amounts in the page language', () => {
  it.each([
    ['en', '27.00', '27.00'],
    ['fr', '27.00', '27,00'],
    ['de', '27.00', '27,00'],
    ['es', '27.00', '27,00'],
    ['en', '1234.5', '1,234.50'],
    ['de', '1234.5', '1.234,50'],
    ['fr', '1234.5', '1\u202f234,50'],
    ['en', '0.000001', '0.000001'],
  ] as const)('%s: %s USDC → %s', (language, decimal, text) => {
    expect(formatUsdcAmount(decimal, language)).toBe(text);
  });

  it('never rounds an exact amount, however large (a decimal string, not a float)', () => {
    expect(formatUsdcAmount('12345678901234.123456', 'en')).toBe('12,345,678,901,234.123456');
    expect(formatUsdcAmount('9007199254740993.000001', 'de')).toBe('9.007.199.254.740.993,000001');
  });

  it("writes a price in its currency's own precision, and a rate with its significant decimals", () => {
    expect(formatPriceAmount('25.00', 'fr')).toBe('25,00');
    expect(formatPriceAmount('500', 'de')).toBe('500');
    expect(formatPriceAmount('12.345', 'de')).toBe('12,345');
    expect(formatRateValue('1.08', 'de')).toBe('1,08');
    expect(formatRateValue('0.0066', 'en')).toBe('0.0066');
    expect(formatRateValue('1.23456789', 'fr')).toBe('1,23456789');
  });

  it('refuses anything but a plain decimal', () => {
    expect(() => formatUsdcAmount('1e6', 'en')).toThrow(RangeError);
    expect(() => formatUsdcAmount('-1', 'en')).toThrow(RangeError);
  });
});

describe('moments', () => {
  const expiry = new Date('2026-11-21T14:05:00.000Z');

  it('is a time alone within 12 hours, with the date further away', () => {
    expect(momentStyle(expiry, new Date('2026-11-21T13:05:00.000Z'))).toBe('time');
    expect(momentStyle(expiry, new Date('2026-11-21T02:05:01.000Z'))).toBe('time');
    expect(momentStyle(expiry, new Date('2026-11-20T14:05:00.000Z'))).toBe('date');
  });

  it('is written in UTC in the page language', () => {
    expect(formatMoment(expiry, 'en', 'time')).toBe('14:05 UTC');
    expect(formatMoment(expiry, 'en', 'date')).toBe('21 Nov 2026, 14:05 UTC');
    expect(formatMoment(expiry, 'de', 'date')).toBe('21. Nov. 2026, 14:05 UTC');
  });
});
